// /ui/session: who is signed in (GET), sign in with a key (POST), sign out (DELETE).
// Sign-in takes the key once, in the body of a request from the dashboard's own page, runs the
// API's own checks on it (lockout, known, not revoked) and answers with the session cookie; the
// key is not kept anywhere but as the hash api_keys already holds.
import type { Config } from "../../config.ts";
import { identify, spendRate, type AuthDeps } from "../auth.ts";
import { readCapped } from "../../capped-read.ts";
import { errorResponse } from "../errors.ts";
import { clearSessionCookie, readCookie, sessionCookieName, setSessionCookie } from "./cookies.ts";
import { carriesToken, fromOwnPage, overHttps } from "./request-checks.ts";
import { sessionLimits, type Session, type SessionStore } from "./sessions.ts";

/** What the page learns about its session: never the key, only who it acts as and its CSRF token. */
export interface SessionView {
  signedIn: true;
  tenant: string;
  keyId: string;
  scopes: string[];
  csrfToken: string;
  expiresAt: string;
  idleSeconds: number;
}

const maxSignInBytes = 1024;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

function view(session: Session): SessionView {
  const { principal } = session;
  return {
    signedIn: true,
    tenant: principal.tenant,
    keyId: principal.keyId,
    scopes: principal.scopes,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    idleSeconds: sessionLimits.idleSeconds,
  };
}

export function sessionRoutes(deps: { sessions: SessionStore; config: Config; auth: AuthDeps }) {
  const { sessions, config } = deps;
  const secure = (request: Request, url: URL) => overHttps(request, url, config);
  const cookieId = (request: Request) => readCookie(request, sessionCookieName) ?? "";

  async function signIn(request: Request, url: URL, address: string): Promise<Response> {
    if (!fromOwnPage(request)) return errorResponse("csrf_refused", "Sign in from the dashboard's own page.");
    if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) return errorResponse("invalid_request", 'Send the key as a JSON body {"key": "cal_..."}.');
    const text = await readCapped(request.body, maxSignInBytes);
    if (text === null) return errorResponse("payload_too_large", `The request body is over ${maxSignInBytes} bytes.`);
    let key: unknown;
    try {
      key = (JSON.parse(text) as { key?: unknown })?.key;
    } catch {
      return errorResponse("invalid_request", "The body is not valid JSON.");
    }
    const trimmed = typeof key === "string" && key.trim() !== "" ? key.trim() : null;
    const principal = await identify({ key: trimmed }, address, deps.auth);
    if (principal instanceof Response) return principal;
    // A sign-in is a request made with the key: it counts against the key's rate limit, so a
    // script cannot open sessions faster than it could call the API (docs/dashboard.md#sign-in-and-sessions).
    const spent = spendRate(principal.keyId, deps.auth);
    if (spent.refusal) return spent.refusal;
    await sessions.close(cookieId(request)); // signing in again replaces the browser's session
    const opened = await sessions.open(principal);
    return json(201, view(opened.session), { ...spent.headers, "set-cookie": setSessionCookie(opened.id, sessionLimits.absoluteSeconds, secure(request, url)) });
  }

  async function signOut(request: Request, url: URL): Promise<Response> {
    const current = await sessions.find(cookieId(request));
    if (current && !(fromOwnPage(request) && carriesToken(request, current.csrfToken))) {
      return errorResponse("csrf_refused", "Sign out from the dashboard's own page, with the session's CSRF token.");
    }
    if (current) await sessions.close(cookieId(request));
    return new Response(null, { status: 204, headers: { "set-cookie": clearSessionCookie(secure(request, url)), "cache-control": "no-store" } });
  }

  return {
    async handle(request: Request, url: URL, address: string): Promise<Response> {
      switch (request.method) {
        case "GET":
        case "HEAD": {
          const current = await sessions.find(cookieId(request));
          if (current) return json(200, view(current));
          // Not an error for the page: it shows the sign-in form (and says why when a session ended).
          const ended = cookieId(request) !== "";
          return json(200, { signedIn: false, ended }, ended ? { "set-cookie": clearSessionCookie(secure(request, url)) } : {});
        }
        case "POST":
          return signIn(request, url, address);
        case "DELETE":
          return signOut(request, url);
        default:
          return errorResponse("method_not_allowed", `Method ${request.method} is not allowed here; use GET, POST, DELETE.`, { allow: "GET, POST, DELETE" });
      }
    },

    /** The answer to a forwarded request whose session is gone: sign in again. */
    ended(request: Request, url: URL): Response {
      return errorResponse("session_required", "Sign in first: there is no dashboard session, or it ended (signed out, expired, or its key was revoked).", {
        "set-cookie": clearSessionCookie(secure(request, url)),
      });
    },
  };
}
