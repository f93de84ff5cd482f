// The HTTP application: the Host allow-list, request ids, auth and limits (in onRequest, before
// parsing, in the order of docs/api.md#check-order), error mapping, metrics and logs. Routes live in routes/v1.ts and
// routes/v2.ts and know nothing about auth.
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import type { Config } from "../config.ts";
import type { Ledger } from "../ledger/db.ts";
import { watchDatabase, type DatabaseHealth } from "../ledger/health.ts";
import { keyLookup } from "../ledger/keys.ts";
import { datasetLabelOrDefault } from "../ledger/queries/common.ts";
import type { Logger } from "../log.ts";
import { authenticate, newRequestState, type AuthDeps, type RequestState } from "./auth.ts";
import { readCapped } from "../capped-read.ts";
import { createDashboard } from "./dashboard/index.ts";
import { ApiFailure, describeValidation, errorResponse } from "./errors.ts";
import { hostAllowList } from "./host-check.ts";
import { createWindowCounter } from "./limits.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { queryRefusal, queryRulesOf, type QueryRules } from "./query-check.ts";
import { v1Routes } from "./routes/v1.ts";
import { v2Routes } from "./routes/v2.ts";
import { reportRoutes } from "./routes/reports.ts";
import { finishDocument, openapiDocumentation, type RouteBody } from "./openapi.ts";
import { registerAndEnqueue, unregisterWallet, type EnqueueResult } from "../sync/queue.ts";

export const maxBodyBytes = 16 * 1024;

/**
 * The query parameters of each route that take one of a few words, each possibly repeated or
 * comma-separated (as Elysia reads a list). Checked here so that a wrong word is refused with a
 * sentence naming the parameter, whatever shape Elysia's own error would take.
 */
export interface AppDeps {
  ledger: Ledger;
  config: Config;
  logger: Logger;
  version: string;
  metrics?: Metrics;
  /**
   * Registers a wallet and queues its sync. `serve` hands it to the worker thread, which owns the
   * writes, so this thread never waits on the worker's write lock; without a worker (tests that
   * write rows themselves) it is written here.
   */
  registerWallet?: (tenantId: number, maxWallets: number, owner: string) => Promise<EnqueueResult>;
  /** The tenant stops following the wallet (true when it did), on the worker's connection as above. */
  removeWallet?: (tenantId: number, owner: string) => Promise<boolean>;
  health?: DatabaseHealth;
  /** Set when serving the offline demo: the only wallets it has data for. */
  demoOwners?: readonly string[];
}

export async function createApp(deps: AppDeps) {
  const { ledger, config, logger } = deps;
  const metrics = deps.metrics ?? createMetrics({ version: deps.version, engine: ledger.engine });
  const health = deps.health ?? watchDatabase(ledger, { logger });
  const states = new WeakMap<Request, RequestState>();
  const lookup = keyLookup(ledger.db);
  const rate = createWindowCounter(() => config.rateLimitPerMinute);
  const failures = createWindowCounter(() => config.authFailuresPerMinute);
  // The label is written once per data dir (the demo writes it before the app starts): read it once.
  const dataset = await datasetLabelOrDefault(ledger.db);

  const demoOwners = deps.demoOwners ? new Set(deps.demoOwners) : null;
  const ctx: AppContext = {
    ledger, config, metrics, health, states, dataset: () => dataset, version: deps.version, demoOwners,
    registerWallet: deps.registerWallet ?? ((tenantId, maxWallets, owner) => registerAndEnqueue(ledger.db, tenantId, maxWallets, owner)),
    removeWallet: deps.removeWallet ?? (async (tenantId, owner) => (await unregisterWallet(ledger.db, tenantId, owner)).removed),
  };
  const observe = requestObserver(states, metrics, logger, config.logRequests);
  const finishedDocs = new WeakMap<object, object>();
  // The dashboard (GET /, its assets, its session) answers its own paths; its /ui/api/ path
  // forwards to this same app on behalf of the session's key (see dashboard/index.ts).
  const auth: AuthDeps = { config, lookup, rate, failures, metrics, delegated: (request) => dashboard.delegation(request), unavailable: databaseGate(health) };
  const hostAllowed = hostAllowList(config);
  // Each route's query rules, read from the schemas the routes registered (at the first request,
  // when every route is registered).
  let queryRules: Map<string, QueryRules> | undefined;
  const queryRulesFor = (method: string, route: string) => (queryRules ??= queryRulesOf(app.routes)).get(`${method === "HEAD" ? "GET" : method} ${route}`);
  const dashboard = createDashboard({ db: ledger.db, config, auth, dataset: dataset.kind, forward: (request) => app.handle(request) });

  const app = new Elysia({ normalize: false })
    .onRequest(async ({ request, server, set }) => {
      const url = requestUrl(request.url);
      const socketAddress = server?.requestIP(request)?.address ?? "unknown";
      // Every early answer is thrown, never returned: a response returned from here skips the
      // error and after-response hooks, and with them the request's metrics and log line.
      // First of all, before the dashboard and auth (so before the lockout counts anything).
      if (!hostAllowed(request.headers.get("host") ?? url.host)) {
        const refused = newRequestState();
        states.set(request, refused);
        Object.assign(set.headers, { "x-request-id": refused.requestId, "x-ca-ledger-dataset": dataset.kind });
        metrics.hostRefused();
        throw new Answered(errorResponse("host_not_allowed", "This server does not answer to the host name in the Host header; its operator lists the names it answers to in ALLOWED_HOSTS."));
      }
      if (dashboard.serves(url.pathname)) {
        states.set(request, newRequestState(dashboardRoute(url.pathname)));
        return dashboard.handle(request, url, socketAddress).then((res) => { throw new Answered(res); });
      }
      const state = await authenticate(request, url, socketAddress, auth);
      states.set(request, state);
      Object.assign(set.headers, { "x-request-id": state.requestId, "x-ca-ledger-dataset": dataset.kind, ...state.headers });
      const refusal = state.refusal ?? admissionRefusal(request, url, queryRulesFor(request.method, state.route));
      if (refusal) throw new Answered(refusal);
    })
    // Bodies are read with a cap, so a chunked body without content-length cannot go past it.
    .onParse(async ({ request }) => {
      if (!request.body) return;
      const text = await readCapped(request.body, maxBodyBytes);
      if (text === null) throw new ApiFailure("payload_too_large", `The request body is over ${maxBodyBytes} bytes.`);
      try {
        return JSON.parse(text);
      } catch {
        throw new ApiFailure("invalid_request", "The body is not valid JSON.");
      }
    })
    .onError(({ code, error, request, set }) => {
      const state = states.get(request);
      let res: Response;
      // Elysia wraps what a parse hook throws in its own ParseError; the cause is ours.
      const failure = error instanceof ApiFailure ? error : (error as { cause?: unknown })?.cause instanceof ApiFailure ? ((error as { cause: ApiFailure }).cause) : null;
      if (error instanceof Answered) {
        res = error.response;
        // The dashboard names its own requests: log them under the id the browser saw.
        if (state) state.requestId = res.headers.get("x-request-id") ?? state.requestId;
      } else if (failure) res = errorResponse(failure.code, failure.message, failure.headers);
      else if (code === "VALIDATION") {
        const e = error as unknown as { type?: string };
        // A response that breaks its own schema is our bug, not the caller's.
        if (e.type === "response") {
          logger.error("response failed its schema", { requestId: state?.requestId, route: state?.route, detail: describeValidation(error) });
          res = errorResponse("internal_error", "The server failed to build a valid response.");
        } else res = errorResponse("invalid_request", describeValidation(error, requestUrl(request.url)));
      } else if (code === "PARSE") res = errorResponse("invalid_request", "The body is not valid JSON.");
      else if (code === "NOT_FOUND") res = errorResponse("route_not_found", "No such route.");
      else if (health.noteError(error)) {
        logger.error("database unavailable", { requestId: state?.requestId, route: state?.route, error: String((error as Error)?.message ?? error) });
        res = errorResponse("unavailable", health.unavailableMessage(error), { "retry-after": "5" });
      } else {
        logger.error("unhandled error", { requestId: state?.requestId, route: state?.route, error: String((error as Error)?.stack ?? error) });
        res = errorResponse("internal_error", "Internal error; the server log has the details under this request id.");
      }
      if (state) state.finalStatus = res.status;
      return withHeaders(res, { ...(set.headers as Record<string, string>) });
    })
    // Every response passes here, refusals included: one place counts and logs them all.
    .onAfterResponse(({ request, set }) => observe(request, set.status))
    // The generated document, finished once (named components, parameters, open routes):
    // src/http/openapi.ts says what and why. The plugin caches its object; so does this.
    .onAfterHandle({ as: "global" }, ({ request, response }) => {
      if (requestUrl(request.url).pathname !== "/v1/openapi.json" || !response || typeof response !== "object") return;
      let doc = finishedDocs.get(response);
      if (!doc) finishedDocs.set(response, (doc = finishDocument(response as Record<string, unknown>, routeBodies(app.routes))));
      return doc;
    })
    .use(
      openapi({
        provider: null,
        path: "/v1/openapi",
        specPath: "/v1/openapi.json",
        documentation: openapiDocumentation(deps.version),
        exclude: { paths: ["/v1/openapi.json", "/v1/openapi"] },
      }),
    )
    .onStart(() => health.start())
    .onStop(() => health.stop())
    .use(v1Routes(ctx))
    .use(v2Routes(ctx))
    .use(reportRoutes(ctx));

  return { app, metrics, health };
}

export type AppContext = {
  ledger: Ledger;
  config: Config;
  metrics: Metrics;
  health: DatabaseHealth;
  states: WeakMap<Request, RequestState>;
  dataset(): Awaited<ReturnType<typeof datasetLabelOrDefault>>;
  version: string;
  registerWallet(tenantId: number, maxWallets: number, owner: string): Promise<EnqueueResult>;
  removeWallet(tenantId: number, owner: string): Promise<boolean>;
  demoOwners: ReadonlySet<string> | null;
};

/** The request bodies the routes declare, for the OpenAPI document. */
function routeBodies(routes: { method: string; path: string; hooks?: { body?: unknown } }[]): RouteBody[] {
  return routes.flatMap((r) => (r.hooks?.body && typeof r.hooks.body === "object" ? [{ method: r.method, path: r.path, body: r.hooks.body as RouteBody["body"] }] : []));
}

/**
 * The request URL, even when a hostile Host header makes it unparsable: only the path and the
 * query matter here, so fall back to them on a fixed origin.
 */
export function requestUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    const slash = raw.indexOf("/", raw.indexOf("//") + 2);
    try {
      return new URL(slash < 0 ? "/" : raw.slice(slash), "http://invalid.host");
    } catch {
      return new URL("http://invalid.host/");
    }
  }
}

/** A response decided in onRequest, thrown so that it reaches the error and after-response hooks. */
class Answered extends Error {
  constructor(readonly response: Response) { super("answered before routing"); }
}

/**
 * The dashboard's paths as metric labels, never the raw path: its page and assets, its session,
 * and its API path (a forwarded call is counted there and again under the API route it reaches).
 */
export const dashboardRoutes = ["/ui", "/ui/session", "/ui/api"] as const;

function dashboardRoute(path: string): (typeof dashboardRoutes)[number] {
  if (path === "/ui/session") return "/ui/session";
  return path === "/ui/api" || path.startsWith("/ui/api/") ? "/ui/api" : "/ui";
}

/** The checks that need no key and no database: the query string against the route's schema, and the declared body size. */
function admissionRefusal(request: Request, url: URL, rules: QueryRules | undefined): Response | null {
  const query = queryRefusal(url.searchParams, rules);
  if (query) return errorResponse("invalid_request", query);
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > maxBodyBytes) return errorResponse("payload_too_large", `The request body is over ${maxBodyBytes} bytes.`);
  return null;
}

/**
 * Counts and times each answered request by method, route template (`unmatched` when no route
 * matched, never the raw path) and status, and logs it: one info line per request with
 * LOG_REQUESTS on (the default), else only those that failed with a 5xx. The line holds the route
 * template, never the path, the query or a header, so no key and no wallet reaches the log
 * (docs/operations.md#request-logs).
 */
function requestObserver(states: WeakMap<Request, RequestState>, metrics: Metrics, logger: Logger, logRequests: boolean) {
  return (request: Request, setStatus: unknown): void => {
    const state = states.get(request);
    const status = state?.finalStatus ?? (typeof setStatus === "number" ? setStatus : 200);
    const route = state?.route ?? "unmatched";
    const seconds = state ? (performance.now() - state.started) / 1000 : 0;
    metrics.observeRequest(request.method, route, status, seconds);
    if (logRequests || status >= 500) {
      logger.info("request", { requestId: state?.requestId, method: request.method, route, status, ms: Math.round(seconds * 1000) });
    }
  };
}

function withHeaders(res: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries(headers)) if (!res.headers.has(k)) res.headers.set(k, v);
  return res;
}

// Routes that read no ledger data, or report on the ledger itself.
const databaseFreeRoutes = new Set(["/v1/health", "/v1/openapi.json", "/v1/ops/status", "/v1/ops/metrics"]);

/**
 * Once the path no longer holds the file the server opened (deleted or replaced), every other
 * route answers 503: its writes would be lost with the old inode, and keys created or revoked
 * with `ca-ledger keys` land in another file, so this server could still accept a revoked key.
 */
function databaseGate(health: DatabaseHealth) {
  return (route: string): Response | null => {
    if (databaseFreeRoutes.has(route) || health.check()?.kind !== "missing") return null;
    return errorResponse("unavailable", "The ledger database file was removed or replaced under the running server; the operator must restart it.", { "retry-after": "60" });
  };
}
