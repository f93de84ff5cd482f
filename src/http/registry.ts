// From the declared routes (routes/index.ts) to what serves them: each route registered on Elysia
// with its schemas, the auth matcher that runs before parsing and validation, each route's query
// rules, the metrics label (the route's path template) and the method + path table the client's
// paths are generated from (scripts/gen-client-routes.ts). The OpenAPI document is openapi.ts.
import { status, type AnyElysia } from "elysia";
import type { TObject } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import { coercedQuery } from "./params.ts";
import { queryRules, type QueryRules } from "./query-check.ts";
import type { StateHolder } from "./request-state.ts";
import { Serialized, WithStatus, type Caller, type Method, type Responses, type Route, type RouteContext } from "./route.ts";

/** The error responses every keyed route may give, beyond its own. */
export const keyedErrors = { 401: S.errors[401], 403: S.errors[403], 429: S.errors[429], 500: S.errors[500], 503: S.errors[503] };

/** Every response a route may give: its own, and a keyed route's refusals. */
export function responsesOf(route: Route): Responses {
  return route.scope === null ? route.response : { ...keyedErrors, ...route.response };
}

/** A declared route, ready for requests: the rules its query string must meet before anything else reads it. */
export interface Served {
  route: Route;
  rules: QueryRules;
  /** The query schema Elysia validates with: integers coerced from their text (params.ts). */
  query?: TObject;
}

export function servedRoutes(routes: readonly Route[]): Served[] {
  return routes.map((route) => {
    // Only a schema with an integer property needs Elysia's coercing integer.
    const query = route.query && hasInteger(route.query) ? coercedQuery(route.query) : route.query;
    return { route, query, rules: queryRules(query) };
  });
}

const hasInteger = (schema: TObject) => Object.values(schema.properties).some((p) => p.type === "integer");

export type RouteMatch = { kind: "route"; served: Served } | { kind: "method_not_allowed"; path: string; allow: string[] } | { kind: "none" };

/**
 * Matches a request to its route the way Elysia's router will, before Elysia parses anything:
 * a path without parameters first, then each template with parameters in declared order; one
 * trailing slash is ignored; HEAD is GET. A known path with another method is method_not_allowed.
 */
export function routeMatcher(served: readonly Served[]): (method: string, path: string) => RouteMatch {
  interface Entry {
    path: string;
    byMethod: Map<string, Served>;
    allow: string[];
  }
  const entries = new Map<string, Entry>();
  for (const s of served) {
    const e: Entry = entries.get(s.route.path) ?? { path: s.route.path, byMethod: new Map(), allow: [] };
    if (e.byMethod.has(s.route.method)) throw new Error(`${s.route.method} ${s.route.path} is declared twice`);
    e.byMethod.set(s.route.method, s);
    e.allow.push(s.route.method);
    entries.set(e.path, e);
  }
  const exact = new Map<string, Entry>();
  const templates: { re: RegExp; entry: Entry }[] = [];
  for (const e of entries.values()) {
    if (e.path.includes(":")) templates.push({ re: new RegExp("^" + e.path.replace(/\./g, "\\.").replace(/:[a-z]+/g, "[^/]+") + "/?$"), entry: e });
    else exact.set(e.path, e);
  }
  const none: RouteMatch = { kind: "none" };
  return (method, path) => {
    let e = exact.get(path) ?? (path.length > 1 && path.endsWith("/") ? exact.get(path.slice(0, -1)) : undefined);
    if (!e)
      for (const t of templates)
        if (t.re.test(path)) {
          e = t.entry;
          break;
        }
    if (!e) return none;
    const s = e.byMethod.get(method === "HEAD" ? "GET" : method);
    return s ? { kind: "route", served: s } : { kind: "method_not_allowed", path: e.path, allow: e.allow };
  };
}

/** What a route's handler is given by Elysia (after validation), and the state onRequest attached. */
interface HandlerContext extends StateHolder {
  request: Request;
  query: unknown;
  params: unknown;
  body?: unknown;
  set: { headers: Record<string, unknown> };
}

/** The one Elysia method the registry uses, without the types Elysia infers for a chain of literal routes. */
interface Registrar {
  route(method: Method, path: string, handler: (context: HandlerContext) => unknown, hook: object): unknown;
}

/** Registers each route on Elysia with its schemas, so Elysia validates its input and its 2xx body. */
export function registerRoutes(app: AnyElysia, served: readonly Served[], context: RouteContext): void {
  const registrar = app as unknown as Registrar;
  for (const s of served) {
    const { route } = s;
    registrar.route(route.method, route.path, elysiaHandler(route, context), { query: s.query, params: route.params, body: route.body, response: responsesOf(route) });
  }
}

/**
 * The handler Elysia runs. Elysia reads a handler's source to learn what to parse (only what it
 * destructures), so each is written out with exactly the parts it reads: no body for a route
 * that declares none.
 */
function elysiaHandler(route: Route, app: RouteContext) {
  // A route given the request also gets its body as the app's parse hook read it (capped, JSON) and Elysia checked it.
  if (route.takesRequest) return ({ request, body, set, requestState }: HandlerContext) => answer(route, app, requestState, set, undefined, undefined, body, request);
  return route.body
    ? ({ query, params, body, set, requestState }: HandlerContext) => answer(route, app, requestState, set, query, params, body)
    : ({ query, params, set, requestState }: HandlerContext) => answer(route, app, requestState, set, query, params, undefined);
}

async function answer(
  route: Route,
  app: RouteContext,
  state: HandlerContext["requestState"],
  set: HandlerContext["set"] & { status?: unknown },
  query: unknown,
  params: unknown,
  body: unknown,
  request?: Request,
): Promise<unknown> {
  if (!state || (route.scope !== null && !state.principal)) throw new Error(`${route.path} reached without its checks`); // onRequest runs first: a bug
  const reply = await route.handler({ principal: state.principal, query, params, body, request } as Caller, app);
  if (reply instanceof Response) {
    // Another protocol's answer (POST /mcp), sent as it is with the request's headers; its status is what the metrics count.
    for (const [k, v] of Object.entries(state.headers)) if (!reply.headers.has(k)) reply.headers.set(k, v);
    set.status = reply.status;
    return reply;
  }
  // Text the handler serialised is sent as it is, in one Response with every header (Elysia
  // would copy a Response to add headers to it).
  if (reply instanceof Serialized) return serializedResponse(reply, state.headers);
  Object.assign(set.headers, state.headers);
  return reply instanceof WithStatus ? status(reply.code, reply.body) : reply;
}

/**
 * A serialised reply as a Response: its media type, its own headers, then the request's, in that
 * order on the wire (a later name replaces an earlier one's value in place, as in an object
 * spread). Set one by one on the Response's own headers: converting a plain object of them in
 * the Response's init costs about a third more, on every cheap route (docs/performance.md).
 */
function serializedResponse(reply: Serialized, requestHeaders: Record<string, string>): Response {
  const res = new Response(reply.text);
  const headers = res.headers;
  headers.set("content-type", reply.contentType);
  for (const name in reply.headers) headers.set(name, reply.headers[name]!);
  for (const name in requestHeaders) headers.set(name, requestHeaders[name]!);
  return res;
}

/** Each route's method and path, by OpenAPI operation id: the table the client's paths come from. */
export function methodsAndPaths(routes: readonly Route[], operationId: (route: Route) => string): Record<string, { method: Method; path: string }> {
  return Object.fromEntries(routes.map((r) => [operationId(r), { method: r.method, path: r.path }]));
}
