// @ca-ledger/client: typed access to every ca-ledger endpoint (docs/api.md#typescript-client).
// Runs in Bun, Node 20+ and browsers: it uses only `fetch` and string URL building, and depends
// on nothing beyond TypeBox (the shared schemas it re-exports are TypeBox values).
import type { Static } from "@sinclair/typebox";
import * as schemas from "../../schemas/index.ts";
import { routes } from "./routes.ts";

export { schemas };

export type Health = Static<typeof schemas.Health>;
export type AssetsResponse = Static<typeof schemas.AssetsResponse>;
export type SyncRequestResponse = Static<typeof schemas.SyncRequestResponse>;
export type WalletsResponse = Static<typeof schemas.WalletsResponse>;
export type SyncStatusResponse = Static<typeof schemas.SyncStatusResponse>;
export type Portfolio = Static<typeof schemas.Portfolio>;
export type IncomeList = Static<typeof schemas.IncomeList>;
export type IncomeDetail = Static<typeof schemas.IncomeDetail>;
export type JournalList = Static<typeof schemas.JournalList>;
export type YieldResponse = Static<typeof schemas.YieldResponse>;
export type OpsStatus = Static<typeof schemas.OpsStatus>;
export type ActionsList = Static<typeof schemas.ActionsList>;
export type ActionDetail = Static<typeof schemas.ActionDetail>;
export type TaxonomyResponse = Static<typeof schemas.TaxonomyResponse>;
export type LineageResponse = Static<typeof schemas.LineageResponse>;
export type IncomeReport = Static<typeof schemas.IncomeReport>;
export type ReportCurrencies = Static<typeof schemas.ReportCurrencies>;
export type LotsResponse = Static<typeof schemas.LotsResponse>;
export type GainsReport = Static<typeof schemas.GainsReport>;
export type HoldingsStatement = Static<typeof schemas.HoldingsStatement>;
export type TaxTreatment = Static<typeof schemas.TaxTreatment>;
export type LotMethod = Static<typeof schemas.LotMethod>;
export type CalendarResponse = Static<typeof schemas.CalendarResponse>;
export type ErrorBody = Static<typeof schemas.ErrorBody>;

export type ExportDataset = (typeof schemas.exportDatasets)[number];
export interface Paging {
  limit?: number;
  offset?: number;
}
/**
 * Date filters on effectiveAt: `from` and `to` (YYYY-MM-DD, UTC, both days included), or `year`
 * (not with from or to). Totals and nextOffset count what the filter keeps.
 */
export interface DateFilter {
  from?: string;
  to?: string;
  year?: number;
}
export type ListOptions = Paging & DateFilter;
/** A v1 kind: dividend, split or unclassified_adjustment. */
export type Kind = Static<typeof schemas.Kind>;
/** The v1 lists (income, journal) also keep only the kinds named; every kind when absent. */
export type KindListOptions = ListOptions & { kind?: readonly Kind[] };
export interface IncomeReportOptions {
  /** Wallets to cover (each registered by your tenant); all of them when absent. */
  owners?: string[];
  /** Also give every amount in this currency (EUR, or any the imported ECB history quotes). */
  currency?: string;
  /** income or deferred (docs/lots.md); the server's TAX_TREATMENT when absent. */
  treatment?: TaxTreatment;
}

/** The tax treatment and the lot method (docs/lots.md); the server's TAX_TREATMENT and LOT_METHOD when absent. */
export interface LotChoice {
  method?: LotMethod;
  treatment?: TaxTreatment;
}
export interface GainsOptions extends IncomeReportOptions, LotChoice {}
export interface HoldingsOptions extends LotChoice {
  /** The reconciliation's first day (YYYY-MM-DD); 1 January of asOf's year when absent. */
  from?: string;
  /** Wallets to cover; all of them when absent. */
  owners?: string[];
}
/** An export's date filter, and for `gains` and `lots` the treatment and method. */
export type ExportOptions = DateFilter & LotChoice;

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** API origin ("https://ledger.example.com") or a same-origin path ("/api") behind a proxy. */
  baseUrl: string;
  /** Sent as `authorization: Bearer <key>`; keep it server-side. */
  apiKey?: string;
  /** A custom fetch (defaults to the global one). */
  fetch?: FetchLike;
}

/**
 * The server answered, but not with what was asked: a non-2xx answer (`status`, `message` = the
 * body's `error`, the parsed `body` with `body.code`), or a 2xx whose body is not JSON (code
 * `invalid_response`).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody & Record<string, unknown>;
  readonly code: string;
  readonly headers: Headers | null;
  constructor(status: number, body: ErrorBody & Record<string, unknown>, headers: Headers | null = null) {
    super(body.error);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.code = body.code;
    this.headers = headers;
  }
}

/**
 * The request got no HTTP answer: connection refused, DNS failure, reset, TLS failure, or an
 * abort (`code` "aborted", e.g. a custom fetch's timeout). The original error is `cause`.
 */
export class NetworkError extends Error {
  readonly code: "network_error" | "aborted";
  readonly method: string;
  readonly url: string;
  constructor(method: string, url: string, cause: unknown) {
    const aborted = isAbort(cause);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url} ${aborted ? "was aborted" : "failed"}: ${reason}`, { cause });
    this.name = "NetworkError";
    this.code = aborted ? "aborted" : "network_error";
    this.method = method;
    this.url = url;
  }
}

function isAbort(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

type Query = Record<string, string | number | readonly string[] | undefined | null>;

/** A route of the server, as its declarations give it (routes.ts, generated). */
type Route = (typeof routes)[keyof typeof routes];
type Method = Route["method"];

/** The path parameters a template names: `/v1/wallets/:owner/status` takes `{ owner }`. */
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

/** A request's method and path: the route's, its parameters filled in (each percent-encoded). */
interface Target {
  method: Method;
  path: string;
}

function target<R extends Route>(route: R, ...params: keyof PathParams<R["path"]> extends never ? [] : [PathParams<R["path"]>]): Target {
  const values = (params[0] ?? {}) as Record<string, string>;
  return { method: route.method, path: route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name]!)) };
}

/** A list value repeats its key (`owner=a&owner=b`). */
function queryString(q: Query | undefined): string {
  if (!q) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    for (const one of typeof v === "object" ? v : [v]) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

export function createClient(options: ClientOptions) {
  if (!options || typeof options.baseUrl !== "string") throw new TypeError("createClient needs { baseUrl }");
  // Plain string joining: works for an absolute origin and for a same-origin path like "/api"
  // (no `new URL` against a missing base).
  const base = options.baseUrl.replace(/\/+$/, "");
  const apiKey = options.apiKey;
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const url = (path: string, q?: Query) => `${base}${path}${queryString(q)}`;

  async function send({ method, path }: Target, q?: Query, body?: unknown, accept = "application/json"): Promise<Response> {
    const headers: Record<string, string> = { accept };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const target = url(path, q);
    let res: Response;
    try {
      res = await doFetch(target, init);
    } catch (e) {
      throw new NetworkError(method, target, e);
    }
    if (!res.ok) throw await toError(res);
    return res;
  }

  /** A 2xx body: a connection lost while reading it is a NetworkError too. */
  async function bodyText(method: string, path: string, q: Query | undefined, res: Response): Promise<string> {
    try {
      return await res.text();
    } catch (e) {
      throw new NetworkError(method, url(path, q), e);
    }
  }

  async function toError(res: Response): Promise<ApiError> {
    const text = await res.text().catch(() => "");
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const obj = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
    const body = {
      ...obj,
      error: typeof obj.error === "string" ? obj.error : text || `HTTP ${res.status}${res.statusText ? " " + res.statusText : ""}`,
      code: typeof obj.code === "string" ? obj.code : `http_${res.status}`,
    };
    return new ApiError(res.status, body, res.headers ?? null);
  }

  async function json<T>(to: Target, q?: Query, body?: unknown): Promise<T> {
    const { method, path } = to;
    const res = await send(to, q, body);
    const raw = await bodyText(method, path, q, res);
    try {
      return JSON.parse(raw) as T;
    } catch {
      // A 2xx that is not JSON came from something in between (a captive portal, a proxy page).
      throw new ApiError(res.status, { error: `The ${res.status} response to ${method} ${path} is not JSON.`, code: "invalid_response" }, res.headers ?? null);
    }
  }
  const text = async (to: Target, q: Query | undefined, accept: string): Promise<string> => bodyText(to.method, to.path, q, await send(to, q, undefined, accept));
  const list = (wallet: string, o: KindListOptions) => ({ owner: wallet, limit: o.limit, offset: o.offset, from: o.from, to: o.to, year: o.year, kind: o.kind });
  const exportQuery = (wallet: string, dataset: ExportDataset | undefined, f: ExportOptions) => ({
    owner: wallet,
    dataset,
    from: f.from,
    to: f.to,
    year: f.year,
    method: f.method,
    treatment: f.treatment,
  });

  return {
    health: () => json<Health>(target(routes.getV1Health)),
    assets: () => json<AssetsResponse>(target(routes.getV1Assets)),
    requestSync: (wallet: string) => json<SyncRequestResponse>(target(routes.postV1WalletsSync), undefined, { owner: wallet }),
    /** Your tenant stops following the wallet (204; ApiError wallet_not_registered if it did not). Its books stay in the ledger. */
    removeWallet: async (wallet: string): Promise<void> => void (await send(target(routes.deleteV1WalletsByOwner, { owner: wallet }))),
    wallets: () => json<WalletsResponse>(target(routes.getV1Wallets)),
    syncStatus: (wallet: string) => json<SyncStatusResponse>(target(routes.getV1WalletsByOwnerStatus, { owner: wallet })),
    portfolio: (wallet: string) => json<Portfolio>(target(routes.getV1Portfolio), { owner: wallet }),
    income: (wallet: string, options: KindListOptions = {}) => json<IncomeList>(target(routes.getV1Income), list(wallet, options)),
    incomeEvent: (wallet: string, id: string) => json<IncomeDetail>(target(routes.getV1IncomeById, { id }), { owner: wallet }),
    journal: (wallet: string, options: KindListOptions = {}) => json<JournalList>(target(routes.getV1Journal), list(wallet, options)),
    yieldMetrics: (wallet: string) => json<YieldResponse>(target(routes.getV1Yield), { owner: wallet }),
    /** A CSV export; koinly, cointracker, coinledger and awaken are those tools' import templates. */
    exportCsv: (wallet: string, dataset?: ExportDataset, filter: ExportOptions = {}) => text(target(routes.getV1Export), exportQuery(wallet, dataset, filter), "text/csv"),
    /** Builds the export URL without a request (e.g. for a download link behind a proxy). */
    exportUrl: (wallet: string, dataset?: ExportDataset, filter: ExportOptions = {}) => url(target(routes.getV1Export).path, exportQuery(wallet, dataset, filter)),
    opsStatus: () => json<OpsStatus>(target(routes.getV1OpsStatus)),
    opsMetrics: () => text(target(routes.getV1OpsMetrics), undefined, "text/plain"),
    v2: {
      actions: (wallet: string, options: ListOptions = {}) => json<ActionsList>(target(routes.getV2Actions), list(wallet, options)),
      action: (wallet: string, id: string) => json<ActionDetail>(target(routes.getV2ActionsById, { id }), { owner: wallet }),
      taxonomy: () => json<TaxonomyResponse>(target(routes.getV2Taxonomy)),
      lineage: (mint: string) => json<LineageResponse>(target(routes.getV2InstrumentsByMintLineage, { mint })),
      /** Income of a year per month × symbol across your wallets (or those named), optionally also in another currency. */
      incomeReport: (year: number, options: IncomeReportOptions = {}) =>
        json<IncomeReport>(target(routes.getV2ReportsIncome), { year, owner: options.owners, currency: options.currency, treatment: options.treatment }),
      /** The currencies incomeReport can convert into (from the imported ECB rates), each with its first and last rate day. */
      reportCurrencies: () => json<ReportCurrencies>(target(routes.getV2ReportsCurrencies)),
      /** A wallet's open lots at the end of asOf (YYYY-MM-DD; today when absent), with their basis. */
      lots: (wallet: string, options: LotChoice & { asOf?: string } = {}) =>
        json<LotsResponse>(target(routes.getV2Lots), { owner: wallet, asOf: options.asOf, method: options.method, treatment: options.treatment }),
      /** Realized gains of a year, short and long term, across your wallets (or those named). */
      gainsReport: (year: number, options: GainsOptions = {}) =>
        json<GainsReport>(target(routes.getV2ReportsGains), { year, owner: options.owners, currency: options.currency, method: options.method, treatment: options.treatment }),
      /** A holdings statement at the end of asOf (YYYY-MM-DD), reconciled from `from`. */
      holdings: (asOf: string, options: HoldingsOptions = {}) =>
        json<HoldingsStatement>(target(routes.getV2ReportsHoldings), { asOf, from: options.from, owner: options.owners, method: options.method, treatment: options.treatment }),
      /** Pending actions of your wallets (or of one) with what each wallet can expect. */
      calendar: (wallet?: string) => json<CalendarResponse>(target(routes.getV2Calendar), { owner: wallet }),
      /** The iCalendar feed of a calendar URL's token (`ca-ledger calendar-url`; no key needed). */
      calendarFeed: (token: string) => text(target(routes.getV2CalendarByFile, { file: `${token}.ics` }), undefined, "text/calendar"),
      /** The live stream (Server-Sent Events) as the open Response: read its body with an SSE parser; after `lastEventId` when given, else from now. */
      events: (lastEventId?: string) => send(target(routes.getV2Events), { lastEventId }, undefined, "text/event-stream"),
    },
  };
}

export type Client = ReturnType<typeof createClient>;
