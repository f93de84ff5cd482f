// The dashboard inside the binary: GET / and its assets, the sign-in session, and /ui/api/, the
// same-origin path through which the page reads the API. A forwarded request runs through the
// API app itself (the same lockout, scope check, rate limit, validation and handlers), acting as
// the session's key: the key never reaches the browser, which holds only an HttpOnly session
// cookie, and the key's row is read again on every request.
import type { Config } from "../../config.ts";
import type { DatasetLabel } from "../../../schemas/common.ts";
import type { Db } from "../../ledger/sql/port.ts";
import type { AuthDeps } from "../auth.ts";
import { clientAddress, delegate } from "../auth.ts";
import { errorResponse } from "../errors.ts";
import { assetServer } from "./assets.ts";
import { readCookie, sessionCookieName } from "./cookies.ts";
import { securityHeaders, withDefaults } from "./headers.ts";
import { carriesToken, fromOwnPage, isRead } from "./request-checks.ts";
import { sessionRoutes } from "./session-routes.ts";
import { sessionStore } from "./sessions.ts";

export interface DashboardDeps {
  db: Db;
  config: Config;
  /** The API's own checks, so a sign-in meets the same lockout and failure count as a keyed request. */
  auth: AuthDeps;
  dataset: DatasetLabel["kind"];
  /** The API app: a forwarded request goes through all of it. */
  forward: (request: Request) => Response | Promise<Response>;
}

const apiPrefix = "/ui/api";
/** Only what a handler reads is passed on: never a cookie, an authorization or an api-key header. */
const forwardedHeaders = ["accept", "content-type", "content-length", "last-event-id"]; // last-event-id: the live stream resumes

export function createDashboard(deps: DashboardDeps) {
  const sessions = sessionStore(deps.db);
  const assets = assetServer();
  const session = sessionRoutes({ sessions, config: deps.config, auth: deps.auth });

  async function forward(request: Request, url: URL, address: string): Promise<Response> {
    const inner = url.pathname.slice(apiPrefix.length);
    if (!/^\/v[12]\//.test(inner)) return errorResponse("route_not_found", "No such route.");
    const current = await sessions.find(readCookie(request, sessionCookieName) ?? "");
    if (!current) return session.ended(request, url);
    if (!isRead(request.method) && !(fromOwnPage(request) && carriesToken(request, current.csrfToken))) {
      return errorResponse("csrf_refused", "This write did not come from the dashboard's page with the session's CSRF token.");
    }
    const headers = new Headers();
    for (const name of forwardedHeaders) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    // A fixed origin: the API app routes by path, and the browser's Host plays no part.
    const body = isRead(request.method) ? undefined : request.body;
    const forwarded = new Request(`http://localhost${inner}${url.search}`, { method: request.method, headers, body, duplex: "half" } as RequestInit);
    const res = await deps.forward(delegate(forwarded, { principal: current.principal, address }));
    return withDefaults(res, { "cache-control": "no-store" });
  }

  async function route(request: Request, url: URL, address: string): Promise<Response> {
    const path = url.pathname;
    if (path === apiPrefix || path.startsWith(apiPrefix + "/")) return forward(request, url, address);
    if (path === "/ui/session") return session.handle(request, url, address);
    if (assets.has(path)) {
      if (!isRead(request.method)) return errorResponse("method_not_allowed", `Method ${request.method} is not allowed here; use GET.`, { allow: "GET" });
      return assets.serve(request, path);
    }
    return errorResponse("route_not_found", "No such route.");
  }

  return {
    /** The paths the dashboard answers; every other path is the API's. */
    serves: (path: string): boolean => path === "/" || path === "/ui" || path.startsWith("/ui/"),

    async handle(request: Request, url: URL, socketAddress: string): Promise<Response> {
      const address = clientAddress(request, socketAddress, deps.config.trustProxy);
      const res = await route(request, url, address);
      return withDefaults(res, { ...securityHeaders, "x-request-id": crypto.randomUUID(), "x-ca-ledger-dataset": deps.dataset });
    },
  };
}
