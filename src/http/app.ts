// The HTTP application, in the order a request meets it (docs/api.md#check-order): the Host
// allow-list, the dashboard's own paths, then for the API the route's checks up to the rate limit
// and the query string, all in onRequest before anything is parsed; the body read with a cap; the
// route (routes/, registered by registry.ts); errors mapped to {error, code}; one place that
// counts and logs every answer. The routes know nothing of HTTP or auth.
import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { Ledger } from "../ledger/db.ts";
import type { Db } from "../ledger/sql/port.ts";
import { watchDatabase, type DatabaseHealth } from "../ledger/health.ts";
import { keyLookup, type KeyPrincipal } from "../ledger/keys.ts";
import { actionQueries } from "../ledger/queries/actions.ts";
import { datasetLabelOrDefault } from "../ledger/queries/common.ts";
import { incomeEntries } from "../ledger/queries/income-report.ts";
import { instrumentQueries } from "../ledger/queries/instruments.ts";
import { journalQueries } from "../ledger/queries/journal.ts";
import { portfolioQueries } from "../ledger/queries/portfolio.ts";
import type { Logger } from "../log.ts";
import { registerAndEnqueue, unregisterWallet, type EnqueueResult } from "../sync/queue.ts";
import { readCapped } from "../capped-read.ts";
import { authenticate, type AuthDeps } from "./auth.ts";
import { createDashboard } from "./dashboard/index.ts";
import { ApiFailure, describeValidation, errorResponse } from "./errors.ts";
import { exporter } from "./exports.ts";
import { hostAllowList } from "./host-check.ts";
import { createWindowCounter } from "./limits.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { openapiDocument } from "./openapi.ts";
import { queryRefusal, type QueryRules } from "./query-check.ts";
import { pathOf, searchOf } from "./request-target.ts";
import { registerRoutes, routeMatcher, servedRoutes } from "./registry.ts";
import { newRequestState, type RequestState, type StateHolder } from "./request-state.ts";
import type { Route, RouteContext } from "./route.ts";
import { routes } from "./routes/index.ts";
import { mcpHttpHandler } from "../mcp/http.ts";
import { localRunner, routeMcpService } from "../mcp/route-tools.ts";

export const maxBodyBytes = 16 * 1024;

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
  const metrics = deps.metrics ?? createMetrics({ version: deps.version, engine: deps.ledger.engine });
  const health = deps.health ?? watchDatabase(deps.ledger, { logger: deps.logger });
  const context = await routeContext(deps, metrics, health);
  const served = servedRoutes(routes);
  const auth = authDeps(deps, metrics, health);

  const app = new Elysia({ normalize: false });
  // The dashboard (GET /, its assets, its session) answers its own paths; its /ui/api/ path
  // forwards to this same app on behalf of the session's key (see dashboard/index.ts).
  const dashboard = createDashboard({ db: deps.ledger.db, config: deps.config, auth, dataset: context.dataset.kind, forward: (request) => app.handle(request) });
  const observe = requestObserver(metrics, deps.logger, deps.config.logRequests);
  // Hooks apply to the routes registered after them: these first.
  app
    .onRequest(
      checkRequest({
        config: deps.config,
        dataset: context.dataset,
        metrics,
        auth,
        dashboard,
        match: routeMatcher(served),
        reads: turnPins(deps.ledger.db),
        socketAddress: (request) => app.server?.requestIP(request)?.address ?? "unknown",
      }),
    )
    .onParse(readBody)
    // Every answer is observed once: a route's in mapResponse (after its response is checked,
    // before it is sent), every refusal and failure in onError (Elysia also runs mapResponse
    // after onError for a route's own failure: the observer counts a request once). Not in
    // onAfterResponse, which Elysia schedules with setImmediate on every request, a cost as large
    // as the rest of the request's own checks.
    .mapResponse(({ request, set, requestState }: RequestContext) => observe(request.method, requestState, typeof set.status === "number" ? set.status : 200))
    .onError(answerError(deps.logger, health, observe))
    .onStart(() => health.start())
    .onStop(() => health.stop());
  registerRoutes(app, served, context);
  return { app, metrics, health };
}

/**
 * What the handlers share, made once: the dataset label (written once per data dir, before the app
 * starts) and the prepared reads. A route's handler answers for a principal with it and no request.
 */
export async function routeContext(deps: AppDeps, metrics: Metrics, health: DatabaseHealth): Promise<RouteContext> {
  const { ledger } = deps;
  const db = ledger.db;
  let document: Record<string, unknown> | undefined;
  let mcp: ReturnType<typeof mcpHttpHandler<KeyPrincipal>> | undefined;
  const context: RouteContext = {
    ledger,
    config: deps.config,
    metrics,
    health,
    version: deps.version,
    dataset: await datasetLabelOrDefault(db),
    demoOwners: deps.demoOwners ? new Set(deps.demoOwners) : null,
    registerWallet: deps.registerWallet ?? ((tenantId, maxWallets, owner) => registerAndEnqueue(db, tenantId, maxWallets, owner)),
    removeWallet: deps.removeWallet ?? (async (tenantId, owner) => (await unregisterWallet(db, tenantId, owner)).removed),
    queries: {
      actions: actionQueries(db),
      journal: journalQueries(db),
      portfolio: portfolioQueries(db),
      instruments: instrumentQueries(db),
      incomeEntries: incomeEntries(db),
      exportCsv: exporter(db),
    },
    openapiDocument: () => (document ??= openapiDocument(routes, deps.version)),
    // The declared routes as tools, run through their handlers for the principal auth resolved (docs/mcp.md#over-http).
    mcp: (request, principal, body) => (mcp ??= mcpHttpHandler(routeMcpService(routes, localRunner(context), deps), { maxBodyBytes }))(request, principal, body),
  };
  return context;
}

function authDeps(deps: AppDeps, metrics: Metrics, health: DatabaseHealth): AuthDeps {
  const { config } = deps;
  return {
    config,
    metrics,
    lookup: keyLookup(deps.ledger.db),
    rate: createWindowCounter(() => config.rateLimitPerMinute),
    failures: createWindowCounter(() => config.authFailuresPerMinute),
    unavailable: databaseGate(health),
  };
}

/** Elysia's per-request context, as the hooks below read it (each hook, and each route, gets the same object). */
interface RequestContext extends StateHolder {
  request: Request;
  set: { headers: Record<string, unknown>; status?: number | string };
}

/**
 * onRequest: everything decided before the body is read. Every early answer is thrown, never
 * returned: a response returned from here skips the error hook, and with it the request's
 * metrics and log line.
 *
 * Elysia reads each hook's source to learn what to prepare for every route: this one names its
 * context `context`, never passes it whole to a function (or Elysia would parse every request's
 * headers and cookies) and reads the socket's address through the app, not `context.server`
 * (or Elysia would define that property on every request). The path and the query string are
 * sliced from the URL's text (request-target.ts); the URL is parsed only for the dashboard, whose
 * pages need its parts, and for a request without a Host header.
 */
function checkRequest(deps: {
  config: Config;
  dataset: { kind: string };
  metrics: Metrics;
  auth: AuthDeps;
  dashboard: ReturnType<typeof createDashboard>;
  match: ReturnType<typeof routeMatcher>;
  reads: ReturnType<typeof turnPins>;
  socketAddress: (request: Request) => string;
}) {
  const { dataset, metrics, auth, dashboard, match } = deps;
  const hostAllowed = hostAllowList(deps.config);
  /** An API request's state before its checks, with the headers every answer to it carries (the rate limit's follow). */
  const apiRequestState = (): RequestState => {
    const state = newRequestState();
    state.headers = { "x-request-id": state.requestId, "x-ca-ledger-dataset": dataset.kind };
    return state;
  };
  return async (context: RequestContext): Promise<void> => {
    const request = context.request;
    const raw = request.url; // read once: each read makes the string anew
    const path = pathOf(raw);
    // Asked of the socket only by the checks that need it: a keyed route's lockout, the dashboard.
    const socketAddress = () => deps.socketAddress(request);
    // First of all, before the dashboard and auth (so before the lockout counts anything).
    if (!hostAllowed(request.headers.get("host") ?? requestUrl(raw).host)) {
      context.requestState = apiRequestState();
      metrics.hostRefused();
      throw new Answered(errorResponse("host_not_allowed", "This server does not answer to the host name in the Host header; its operator lists the names it answers to in ALLOWED_HOSTS."));
    }
    if (dashboard.serves(path)) {
      deps.reads.unpin(); // its own reads (a session's key) see what is committed now
      context.requestState = newRequestState(dashboardRoute(path));
      throw new Answered(await dashboard.handle(request, requestUrl(raw), socketAddress()));
    }
    const matched = match(request.method, path);
    // From the key's row to the route's rows, one snapshot (route.ts pinnedRead), kept for the
    // turn's next such request while nothing is committed; any other request reads what is committed now.
    if (matched.kind === "route" && matched.served.route.pinnedRead) deps.reads.pin();
    else deps.reads.unpin();
    const state = (context.requestState = await authenticate(request, matched, socketAddress, auth, apiRequestState()));
    const refusal = state.refusal ?? admissionRefusal(request, raw, matched.kind === "route" ? matched.served.rules : undefined);
    if (refusal) throw new Answered(refusal);
  };
}

/**
 * The ledger's pinned reads as the app uses them (Db.pinReads, docs/api.md#one-snapshot-a-request):
 * `pin` for a request to a route that declares `pinnedRead`, `unpin` for any other request. A pin
 * lasts until the end of the event loop's turn, so the pinned requests answered in one turn share
 * a snapshot while nothing is committed (each asks the ledger again, which keeps the snapshot only
 * then), and no read lock outlives the turn: a reader left behind would keep SQLite from starting
 * its WAL over.
 */
function turnPins(db: Db) {
  let releasing = false;
  const release = () => {
    releasing = false;
    db.unpinReads();
  };
  return {
    pin(): void {
      db.pinReads();
      if (releasing) return;
      releasing = true;
      setImmediate(release);
    },
    unpin: (): void => db.unpinReads(),
  };
}

/** Bodies are read with a cap, so a chunked body without content-length cannot go past it. */
async function readBody({ request }: { request: Request }): Promise<unknown> {
  if (!request.body) return;
  const text = await readCapped(request.body, maxBodyBytes);
  if (text === null) throw new ApiFailure("payload_too_large", `The request body is over ${maxBodyBytes} bytes.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiFailure("invalid_request", "The body is not valid JSON.");
  }
}

/** onError: every failure as {error, code} with the request's headers (docs/api.md#errors). */
function answerError(logger: Logger, health: DatabaseHealth, observe: Observer) {
  return ({ code, error, request, set, requestState: state }: RequestContext & { code: unknown; error: unknown }): Response => {
    let res: Response;
    // Elysia wraps what a parse hook throws in its own ParseError; the cause is ours.
    const failure = error instanceof ApiFailure ? error : (error as { cause?: unknown })?.cause instanceof ApiFailure ? (error as { cause: ApiFailure }).cause : null;
    if (error instanceof Answered) {
      res = error.response;
      // The dashboard names its own requests: log them under the id the browser saw.
      if (state) state.requestId = res.headers.get("x-request-id") ?? state.requestId;
    } else if (failure) res = errorResponse(failure.code, failure.message, failure.headers);
    else if (code === "VALIDATION") {
      const e = error as { type?: string };
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
    observe(request.method, state, res.status);
    withHeaders(res, state?.headers);
    return withHeaders(res, set.headers as Record<string, string>);
  };
}

type Observer = (method: string, state: RequestState | undefined, status: number) => void;

/**
 * Every answer, refusals included, counted and timed (from its arrival to its answer being ready)
 * by method, route template (`unmatched` when no route matched, never the raw path) and status,
 * and logged: one info line per request with LOG_REQUESTS on (the default), else only those that
 * failed with a 5xx. The line holds the route template, never the path, the query or a header,
 * so no key and no wallet reaches the log (docs/operations.md#request-logs).
 */
function requestObserver(metrics: Metrics, logger: Logger, logRequests: boolean): Observer {
  return (method, state, status) => {
    if (state?.observed) return;
    if (state) state.observed = true;
    const route = state?.route ?? "unmatched";
    const seconds = state ? (performance.now() - state.started) / 1000 : 0;
    metrics.observeRequest(method, route, status, seconds);
    if (logRequests || status >= 500) {
      logger.info("request", { requestId: state?.requestId, method, route, status, ms: Math.round(seconds * 1000) });
    }
  };
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

/** A response decided in onRequest, thrown so that it reaches the error hook (which counts and logs it). */
class Answered extends Error {
  constructor(readonly response: Response) {
    super("answered before routing");
  }
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
function admissionRefusal(request: Request, url: string, rules: QueryRules | undefined): Response | null {
  const search = searchOf(url);
  const query = search === "" ? null : queryRefusal(search, rules);
  if (query) return errorResponse("invalid_request", query);
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > maxBodyBytes) return errorResponse("payload_too_large", `The request body is over ${maxBodyBytes} bytes.`);
  return null;
}

function withHeaders(res: Response, headers: Record<string, string> | undefined): Response {
  for (const k in headers) if (!res.headers.has(k)) res.headers.set(k, headers[k]!);
  return res;
}

/**
 * Once the path no longer holds the file the server opened (deleted or replaced), every route but
 * those that read no ledger data answers 503: its writes would be lost with the old inode, and
 * keys created or revoked with `ca-ledger keys` land in another file, so this server could still
 * accept a revoked key.
 */
function databaseGate(health: DatabaseHealth) {
  return (route: Route): Response | null => {
    if (route.databaseFree || health.check()?.kind !== "missing") return null;
    return errorResponse("unavailable", "The ledger database file was removed or replaced under the running server; the operator must restart it.", { "retry-after": "60" });
  };
}
