// Authentication and limits for one request, in the order of docs/api.md#check-order: lockout, key
// present, key valid, scope, rate limit. (Validation and the tenant check follow in the route.)
import type { Config } from "../config.ts";
import { missingScopeMessage } from "../domain/scopes.ts";
import type { KeyPrincipal } from "../ledger/keys.ts";
import { lockoutNetwork } from "./address.ts";
import { remembered } from "./remembered.ts";
import { errorResponse } from "./errors.ts";
import type { createWindowCounter } from "./limits.ts";
import type { Metrics } from "./metrics.ts";
import type { RouteMatch } from "./registry.ts";
import type { Route } from "./route.ts";
import type { RequestState } from "./request-state.ts";

type Counter = ReturnType<typeof createWindowCounter>;

/**
 * A request the dashboard forwards on behalf of a signed-in session: the principal its key row
 * resolved to on this request, and the browser's address (the forwarded request has no socket).
 */
export interface Delegation {
  principal: KeyPrincipal;
  address: string;
}

// Rides on the forwarded Request itself: only code holding this symbol can set or read it, and
// nothing from the network can.
const delegated = Symbol("delegation");

/** Marks a request the dashboard forwards as acting for its session. */
export function delegate(request: Request, delegation: Delegation): Request {
  (request as Request & { [delegated]?: Delegation })[delegated] = delegation;
  return request;
}

function delegationOf(request: Request): Delegation | undefined {
  return (request as Request & { [delegated]?: Delegation })[delegated];
}

export interface AuthDeps {
  config: Config;
  lookup: (key: string) => Promise<KeyPrincipal | null>;
  rate: Counter;
  failures: Counter;
  metrics: Metrics;
  /** A refusal for a route the database cannot serve now; checked first, since keys live there too. */
  unavailable?: (route: Route) => Response | null;
}

/**
 * The network one failure budget covers (see address.ts): the socket's address, or behind a
 * trusted proxy the last hop it appended. A hop that is not an address falls back to the socket
 * (the proxy's own budget), so garbage in the header never mints a fresh budget.
 */
const network = remembered(lockoutNetwork);

export function clientAddress(request: Request, socketAddress: string, trustProxy: boolean): string {
  const socket = network(socketAddress) ?? socketAddress;
  if (!trustProxy) return socket;
  const xff = request.headers.get("x-forwarded-for");
  if (!xff) return socket;
  // The rightmost entry is the one our own proxy wrote; entries to its left are client-supplied.
  const hops = xff
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  const last = hops[hops.length - 1];
  return (last === undefined ? null : network(last)) ?? socket;
}

/** Reads the key from `authorization: Bearer` (wins) or `x-api-key`. */
export function presentedKey(request: Request): string | null {
  const auth = request.headers.get("authorization");
  if (auth !== null) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(auth);
    return m ? m[1]! : auth.trim() === "" ? null : auth; // a malformed header counts as an invalid key
  }
  const x = request.headers.get("x-api-key");
  return x === null || x.trim() === "" ? null : x.trim();
}

type RateCount = { limit: number; remaining: number; resetSeconds: number };

/** The rate-limit headers, added to `headers` after what it holds. */
function addRateHeaders(headers: Record<string, string>, r: RateCount): Record<string, string> {
  headers["ratelimit-limit"] = String(r.limit);
  headers["ratelimit-remaining"] = String(r.remaining);
  headers["ratelimit-reset"] = String(r.resetSeconds);
  return headers;
}

/**
 * The request's state after the checks up to the rate limit: its route, its principal, its
 * headers, or the refusal. `state`: the request's state so far (the caller's headers first, the
 * rate-limit headers are added after them).
 */
export async function authenticate(request: Request, match: RouteMatch, socketAddress: () => string, deps: AuthDeps, state: RequestState): Promise<RequestState> {
  if (match.kind === "none") {
    state.refusal = errorResponse("route_not_found", "No such route.");
    return state;
  }
  if (match.kind === "method_not_allowed") {
    state.route = match.path;
    state.refusal = errorResponse("method_not_allowed", `Method ${request.method} is not allowed here; use ${match.allow.join(", ")}.`, { allow: match.allow.join(", ") });
    return state;
  }
  const { route } = match.served;
  state.route = route.path;
  state.refusal = deps.unavailable?.(route) ?? null;
  if (state.refusal) return state;
  const scope = route.scope;
  if (scope === null) return state;

  const { metrics } = deps;
  const delegation = delegationOf(request);
  // Asked of the socket only when the lockout needs it: on a cheap route, reading it was a few percent of the request.
  const address = delegation ? delegation.address : () => clientAddress(request, socketAddress(), deps.config.trustProxy);
  const identified = await identify(delegation ? { principal: delegation.principal } : { key: presentedKey(request) }, address, deps);
  if (identified instanceof Response) {
    state.refusal = identified;
    return state;
  }
  const principal = identified;
  state.principal = principal;
  if (scope !== "key" && !principal.scopes.includes(scope)) {
    // Checked before the rate limit (docs/api.md#check-order), so it is not counted; the headers still tell.
    addRateHeaders(state.headers, deps.rate.peek(principal.keyId));
    metrics.authFailure("missing_scope");
    state.refusal = errorResponse("missing_scope", missingScopeMessage(scope, principal.tenant));
    return state;
  }
  state.refusal = spendRate(principal.keyId, deps, state.headers).refusal;
  return state;
}

/**
 * Counts one request against the key's rate limit (a keyed request, or a dashboard sign-in with
 * the key): the rate-limit headers (added to `headers`, or alone), and the refusal once the key
 * is over its limit (with the rate-limit headers only).
 */
export function spendRate(keyId: string, deps: Pick<AuthDeps, "rate" | "metrics">, headers: Record<string, string> = {}): { headers: Record<string, string>; refusal: Response | null } {
  const r = deps.rate.hit(keyId);
  addRateHeaders(headers, r);
  if (r.allowed) return { headers, refusal: null };
  deps.metrics.rateLimited();
  return {
    headers,
    refusal: errorResponse(
      "rate_limited",
      `Rate limit of ${r.limit} requests per minute reached; retry after ${r.resetSeconds} seconds.`,
      addRateHeaders({ "retry-after": String(r.resetSeconds) }, r),
    ),
  };
}

/**
 * The checks before the scope: the address's lockout, then the key (present, known, not
 * revoked). A dashboard session arrives with its principal already resolved from the key row and
 * still meets the lockout; the dashboard's sign-in runs the same checks on the key it is given.
 */
export async function identify(credential: { key: string | null } | { principal: KeyPrincipal }, address: string | (() => string), deps: AuthDeps): Promise<KeyPrincipal | Response> {
  const { metrics } = deps;
  const where = typeof address === "string" ? () => address : address;
  // While no address has a failure counted this minute, none is locked out: the address is not needed yet.
  const locked = deps.failures.idle() ? null : deps.failures.blocked(where());
  if (locked) {
    metrics.authFailure("locked_out");
    return errorResponse("auth_locked_out", `Too many failed keys from this address; retry after ${locked.resetSeconds} seconds.`, { "retry-after": String(locked.resetSeconds) });
  }
  if ("principal" in credential) return credential.principal;
  if (credential.key === null) {
    metrics.authFailure("missing_key");
    return errorResponse("missing_api_key", "An API key is required: send it as 'authorization: Bearer <key>' or 'x-api-key'.", { "www-authenticate": "Bearer" });
  }
  const principal = await deps.lookup(credential.key);
  if (!principal) {
    deps.failures.hit(where());
    metrics.authFailure("invalid_key");
    return errorResponse("invalid_api_key", "The API key is unknown, malformed or revoked.", { "www-authenticate": 'Bearer error="invalid_token"' });
  }
  return principal;
}
