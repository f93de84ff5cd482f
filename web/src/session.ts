// The page's side of the session: it asks the server who is signed in, signs in by posting the
// key once, and keeps only what the server answers (tenant, key id, scopes, CSRF token) in memory.
// Nothing goes to localStorage, sessionStorage, IndexedDB or the URL.
import type { SessionView } from "../../src/http/dashboard/session-routes.ts";

export type { SessionView };

export type SessionState = SessionView | { signedIn: false; ended: boolean };

export class SignInError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const json = { "content-type": "application/json" };

export async function currentSession(): Promise<SessionState> {
  const res = await fetch("/ui/session", { headers: { accept: "application/json" } });
  if (!res.ok) throw new SignInError(`The server answered ${res.status}.`, `http_${res.status}`);
  return (await res.json()) as SessionState;
}

export async function signIn(key: string): Promise<SessionView> {
  const res = await fetch("/ui/session", { method: "POST", headers: json, body: JSON.stringify({ key }) });
  const body = (await res.json().catch(() => ({}))) as SessionView & { error?: string; code?: string };
  if (!res.ok) throw new SignInError(body.error ?? `The server answered ${res.status}.`, body.code ?? `http_${res.status}`);
  return body;
}

export async function signOut(session: SessionView): Promise<void> {
  await fetch("/ui/session", { method: "DELETE", headers: { "x-csrf-token": session.csrfToken } });
}

export const canSync = (session: SessionView): boolean => session.scopes.includes("wallets:sync");
