// The state of one request, from onRequest to its log line: who asked, which route it matched (the
// template, for metrics and logs), the headers every answer to it carries and a refusal decided
// before routing. It rides on Elysia's per-request context, the one object that onRequest, the
// route's handler, mapResponse and onError all receive, under one property.
import type { KeyPrincipal } from "../ledger/keys.ts";

export interface RequestState {
  requestId: string;
  started: number;
  /** Route template for metrics and logs; never the raw path. */
  route: string;
  principal: KeyPrincipal | null;
  /** x-request-id, x-ca-ledger-dataset and the rate-limit headers: added to whatever answers the request. */
  headers: Record<string, string>;
  refusal: Response | null;
  /** Counted and logged (it is, once). */
  observed?: boolean;
}

/** A request's state before any check: no route matched yet. */
export function newRequestState(route = "unmatched"): RequestState {
  return { requestId: crypto.randomUUID(), started: performance.now(), route, principal: null, headers: {}, refusal: null };
}

/**
 * Elysia's per-request context as far as the request's state goes. Hooks and handlers read it by
 * destructuring `requestState` (onRequest sets it): Elysia reads their source to learn what to
 * prepare, and a context passed whole to a function would make it parse every header and cookie.
 */
export interface StateHolder {
  requestState?: RequestState;
}
