// The typed client of the API, pointed at the dashboard's same-origin path. The server forwards
// each call as the session's key; the page adds the session's CSRF token to writes. A call whose
// session has ended tells the app, which shows the sign-in form again.
import { ApiError, createClient, NetworkError, type Client } from "@ca-ledger/client";
import type { SessionView } from "./session.ts";

export const apiBase = "/ui/api";

export function sessionClient(session: SessionView, onEnded: () => void): Client {
  return createClient({
    baseUrl: apiBase,
    fetch: async (input, init = {}) => {
      const headers = new Headers(init.headers);
      if ((init.method ?? "GET") !== "GET") headers.set("x-csrf-token", session.csrfToken);
      const res = await fetch(input, { ...init, headers, credentials: "same-origin" });
      if (res.status === 401) onEnded();
      return res;
    },
  });
}

/** A sentence for a failed call, with what the person can do about it. */
export function explain(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === "rate_limited") return `${error.message} The page asks again when you retry.`;
    return error.message;
  }
  if (error instanceof NetworkError) return "The server cannot be reached. Is ca-ledger still running?";
  return String((error as Error)?.message ?? error);
}

/** Reads are cached for the page's life (a "Refresh" drops them), so moving between views costs no requests. */
export function cached<T>(cache: Map<string, Promise<unknown>>, key: string, load: () => Promise<T>): Promise<T> {
  let hit = cache.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = load();
    cache.set(key, hit);
    hit.catch(() => cache.delete(key)); // a failure is asked again next time
  }
  return hit;
}
