// The xStocks public API over an injectable fetch: assets, corporate actions (history and
// upcoming, every page) and per-symbol multiplier history, validated row by row (records.ts).
//
// Paging (chosen from the public API's observed contract, made robust to the other common forms):
// - We ask `?page=N&pageSize=P`, pages from 1. The API answers
//   `{page:{currentPage,pageSize,totalPages,totalNodes,hasNextPage,...}, nodes:[...]}`; we follow
//   `page.hasNextPage` (else `page.totalPages`).
// - A cursor answer (`nextCursor`, or `pageInfo:{endCursor,hasNextPage}`) is followed with
//   `?cursor=` instead; a bare array or a `{nodes}` without paging info shorter than a page is
//   the whole list; a page identical to the previous one means the server ignores paging: stop.
// - New records land on page 1 and push the rest down, so a sweep can miss a row at a page
//   boundary: if `totalNodes` changed during a sweep it is run once more and the rows merged
//   (rows are deduplicated by the SHA-256 of their canonical JSON).
// - `/public/assets/{symbol}/multiplier/history` is one answer (array or `{nodes}`), not paged.
// - More than `maxPages` pages is an error, never a silent cap. A page that fails after the
//   retries fails the whole fetch: a partial sweep would look complete.
// - `caps` bound what one client (one poll: make a new client per poll) reads over all its
//   answers, in bytes as they stream in and in rows as pages arrive: past either, reading stops at
//   once and every call fails with FeedOverCap (docs/sources.md#feed-caps). Each answer is also
//   capped on its own (`maxResponseBytes`).
import { canonicalSha256 } from "../../domain/evidence";
import type { InstrumentObs, IssuerRecord } from "../../domain/observations";
import { createHttpTransport, type ByteBudget, type Exchange, type FetchLike, type HttpTransport } from "../../net/http-transport.ts";
import { providerHost } from "../../net/provider-text.ts";
import { isRetryableStatus, type Clock, type RetryableFailure, type Verdict } from "../../net/retry.ts";
import { parseAssets, parseIssuerRecords, parseMultiplierHistory, type IssuerMultiplierPoint, type SourceRejection } from "./records";

export const DEFAULT_XSTOCKS_API_URL = "https://api.xstocks.fi/api/v2";

/**
 * The issuer's API gave no usable answer: the message names its host (never the base URL's path
 * or query, which can carry a key), the list asked for, and the cause (docs/providers.md#sync-errors).
 */
export class IssuerFetchError extends Error {
  readonly path: string;
  readonly status: number | null;
  readonly attempts: number;
  readonly host: string;
  constructor(host: string, path: string, status: number | null, attempts: number, detail: string) {
    const tries = attempts > 0 ? `, after ${attempts} attempt${attempts === 1 ? "" : "s"}` : "";
    super(`xStocks ${path} at ${host}: ${detail}${tries}`);
    this.name = "IssuerFetchError";
    this.path = path;
    this.status = status;
    this.attempts = attempts;
    this.host = host;
  }
}

/** What one poll may read of the feed, over every answer of every list. */
export interface FeedCaps {
  maxBytes: number;
  /** Rows (assets and records, valid or not) over every page. */
  maxRows: number;
}

/** The feed passed one of its caps: nothing of what it sent in this poll should be kept. */
export class FeedOverCap extends Error {
  constructor(
    readonly cap: "bytes" | "rows",
    readonly limit: number,
  ) {
    super(cap === "bytes" ? `the feed sent more than ${limit} bytes in one poll` : `the feed listed more than ${limit} rows in one poll`);
    this.name = "FeedOverCap";
  }
}

export interface IssuerClientConfig {
  baseUrl?: string;
  fetch?: FetchLike;
  pageSize?: number;
  maxPages?: number;
  maxRetries?: number;
  timeoutMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxRetryAfterMs?: number;
  random?: () => number;
  /** What the waits between attempts are read on (tests pass their own). */
  clock?: Clock;
  /** Largest page read, in bytes (default 16 MiB; a real page of 100 records is a few tens of KiB). */
  maxResponseBytes?: number;
  /** Caps over everything this client reads (default none). */
  caps?: FeedCaps;
}

export interface IssuerFetchResult<T> {
  rows: T[];
  rejections: SourceRejection[];
  /** HTTP requests made (retries included). */
  requests: number;
}

export interface IssuerClient {
  assets(): Promise<{ instruments: InstrumentObs[]; rejections: SourceRejection[]; requests: number }>;
  corporateActionsHistory(): Promise<{ records: IssuerRecord[]; rejections: SourceRejection[]; requests: number }>;
  corporateActionsUpcoming(): Promise<{ records: IssuerRecord[]; rejections: SourceRejection[]; requests: number }>;
  multiplierHistory(symbol: string): Promise<{ points: IssuerMultiplierPoint[]; rejections: SourceRejection[]; requests: number }>;
}

export const ISSUER_PATHS = {
  assets: "/public/assets",
  history: "/public/corporate-actions/history",
  upcoming: "/public/corporate-actions/upcoming",
  multiplierHistory: (symbol: string) => `/public/assets/${encodeURIComponent(symbol)}/multiplier/history`,
} as const;

export function createIssuerClient(config: IssuerClientConfig = {}): IssuerClient {
  const base = (config.baseUrl ?? DEFAULT_XSTOCKS_API_URL).replace(/\/+$/, "");
  const caps = pollCaps(config.caps);
  const transport = createHttpTransport({
    fetch: config.fetch,
    maxRetries: config.maxRetries ?? 4,
    timeoutMs: config.timeoutMs ?? 20_000,
    baseDelayMs: config.baseDelayMs ?? 500,
    maxDelayMs: config.maxDelayMs ?? 15_000,
    maxRetryAfterMs: config.maxRetryAfterMs ?? 60_000,
    random: config.random ?? Math.random,
    clock: config.clock,
    maxResponseBytes: config.maxResponseBytes ?? 16 * 1024 * 1024,
    budget: caps.bytes,
  });
  const feed: Feed = { base, host: providerHost(base), transport, caps, pageSize: config.pageSize ?? 100, maxPages: config.maxPages ?? 500 };
  const source = (path: string) => `xstocks:${path}`;
  return {
    async assets() {
      const { rows, requests } = await fetchAll(feed, ISSUER_PATHS.assets);
      return { ...parseAssets(rows, source(ISSUER_PATHS.assets)), requests };
    },
    async corporateActionsHistory() {
      const { rows, requests } = await fetchAll(feed, ISSUER_PATHS.history);
      return { ...parseIssuerRecords(rows, source(ISSUER_PATHS.history)), requests };
    },
    async corporateActionsUpcoming() {
      const { rows, requests } = await fetchAll(feed, ISSUER_PATHS.upcoming);
      return { ...parseIssuerRecords(rows, source(ISSUER_PATHS.upcoming)), requests };
    },
    async multiplierHistory(symbol) {
      // Not a paged list (one asset's steps): asked exactly as documented, `?network=Solana`.
      const path = ISSUER_PATHS.multiplierHistory(symbol);
      const counter = { n: 0 };
      const { items: rows } = unwrapPage(await getJson(feed, path, { network: "Solana" }, counter), path, feed.host);
      return { ...parseMultiplierHistory(symbol, rows, source(path)), requests: counter.n };
    },
  };
}

/** What every read of one client shares. */
interface Feed {
  base: string;
  /** The API's host, the only part of its URL an error shows. */
  host: string;
  transport: HttpTransport;
  caps: PollCaps;
  pageSize: number;
  maxPages: number;
}

type PollCaps = ReturnType<typeof pollCaps>;

/**
 * The caps over everything one client reads (docs/sources.md#feed-caps): bytes as they stream
 * in (the transport draws each chunk from `bytes`) and rows as pages arrive. The first cap passed
 * is kept: every list of the poll stops on it.
 */
function pollCaps(caps: FeedCaps | undefined) {
  let bytesLeft = caps?.maxBytes ?? Infinity;
  let rowsLeft = caps?.maxRows ?? Infinity;
  let overCap: FeedOverCap | null = null;
  const bytes: ByteBudget | undefined = caps && {
    take: (n) => overCap === null && (bytesLeft -= n) >= 0,
    spent: () => (overCap ??= new FeedOverCap("bytes", caps.maxBytes)),
  };
  return {
    bytes,
    takeRows(n: number): void {
      if (overCap) throw overCap;
      if ((rowsLeft -= n) < 0) throw (overCap = new FeedOverCap("rows", caps!.maxRows));
    },
    /** Another list of this poll passed a cap: stop reading. */
    throwIfOver(): void {
      if (overCap) throw overCap;
    },
  };
}

/** GET one URL as JSON, retrying throttling, 5xx, timeouts and unreadable bodies; `counter` counts the attempts. */
async function getJson(feed: Feed, path: string, query: Record<string, string>, counter: { n: number }): Promise<unknown> {
  const url = `${feed.base}${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`;
  const settled = await feed.transport.retry(async () => {
    feed.caps.throwIfOver();
    counter.n++;
    return readJson(await feed.transport.exchange(url, { headers: { accept: "application/json" } }));
  });
  if (settled.ok) return settled.value;
  const { status, detail } = settled.failure;
  throw new IssuerFetchError(feed.host, path, status, settled.attempts, detail);
}

interface FeedFailure extends RetryableFailure {
  status: number | null;
  detail: string;
}

/** One answer as JSON, or why not: an answer too large is final, anything else transient is worth another try. */
function readJson(exchange: Exchange): Verdict<unknown, FeedFailure> {
  const fail = (failure: FeedFailure): Verdict<unknown, FeedFailure> => ({ ok: false, failure });
  if (exchange.kind === "too_large") return fail({ status: null, detail: exchange.detail, retryAfterMs: null, retryable: false });
  if (exchange.kind !== "answer") return fail({ status: null, detail: exchange.detail, retryAfterMs: null, retryable: true });
  const { status } = exchange;
  if (!exchange.ok) return fail({ status, detail: `HTTP ${status}`, retryAfterMs: exchange.retryAfterMs, retryable: isRetryableStatus(status) });
  try {
    return { ok: true, value: JSON.parse(exchange.text) };
  } catch {
    return fail({ status, detail: `unreadable JSON body (HTTP ${status})`, retryAfterMs: null, retryable: true });
  }
}

/** One full sweep of a paged list. */
async function sweep(feed: Feed, path: string, query: Record<string, string>, counter: { n: number }): Promise<{ rows: unknown[]; totals: Set<number> }> {
  const rows: unknown[] = [];
  const totals = new Set<number>();
  let page = 1;
  let cursor: string | null = null;
  let previous: string | null = null;
  for (let pages = 1; ; pages++) {
    if (pages > feed.maxPages) throw new IssuerFetchError(feed.host, path, null, 0, `more than ${feed.maxPages} pages: refusing to cap the list silently`);
    const q = { ...query, ...(cursor !== null ? { cursor } : { page: String(page) }), pageSize: String(feed.pageSize) };
    const { items, info } = unwrapPage(await getJson(feed, path, q, counter), path, feed.host);
    feed.caps.takeRows(items.length);
    // Row hashes, not the page's canonical text: that text, built for every page, took several times the page's size.
    const fingerprint = items.length ? items.map(canonicalSha256).join("") : null;
    if (fingerprint !== null && fingerprint === previous) break; // the server ignores our paging parameters
    previous = fingerprint;
    // One at a time: spreading a huge page into push() overflows the call stack.
    for (const item of items) rows.push(item);
    if (info.totalNodes !== undefined) totals.add(info.totalNodes);
    if (info.bare || items.length === 0 || info.hasNextPage === false) break;
    if (info.nextCursor) {
      cursor = info.nextCursor;
      continue;
    }
    if (!hasMorePages(info, page, items.length, feed.pageSize)) break;
    page++;
  }
  return { rows, totals };
}

/** Explicit flag first, then the page count, then a short page as the last one. */
function hasMorePages(info: PageInfo, page: number, rows: number, pageSize: number): boolean {
  return info.hasNextPage ?? (info.totalPages !== undefined ? page < info.totalPages : rows >= pageSize);
}

/** Every row of a paged list, swept again once if the list moved under us. */
async function fetchAll(feed: Feed, path: string, query: Record<string, string> = {}): Promise<{ rows: unknown[]; requests: number }> {
  const counter = { n: 0 };
  const first = await sweep(feed, path, query, counter);
  let rows = first.rows;
  if (first.totals.size > 1) rows = rows.concat((await sweep(feed, path, query, counter)).rows);
  const seen = new Set<string>();
  const unique = rows.filter((r) => {
    const key = canonicalSha256(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { rows: unique, requests: counter.n };
}

interface PageInfo {
  /** A bare array: the whole list in one answer. */
  bare: boolean;
  hasNextPage?: boolean;
  totalPages?: number;
  totalNodes?: number;
  nextCursor?: string;
}

/** Find the rows and the paging information in the forms a JSON API commonly uses. */
export function unwrapPage(body: unknown, path: string, host: string): { items: unknown[]; info: PageInfo } {
  if (Array.isArray(body)) return { items: body, info: { bare: true } };
  if (typeof body !== "object" || body === null) throw new IssuerFetchError(host, path, 200, 1, "answer is neither a list nor an object");
  const b = body as Record<string, any>;
  const items = [b.nodes, b.data, b.items, b.results].find(Array.isArray);
  if (!items) throw new IssuerFetchError(host, path, 200, 1, "answer holds no list of rows (nodes/data/items/results)");
  const page = typeof b.page === "object" && b.page !== null ? b.page : typeof b.pagination === "object" && b.pagination !== null ? b.pagination : {};
  const pageInfo = typeof b.pageInfo === "object" && b.pageInfo !== null ? b.pageInfo : {};
  const cursor = [b.nextCursor, b.next_cursor, pageInfo.hasNextPage !== false ? pageInfo.endCursor : undefined].find((c) => typeof c === "string" && c !== "");
  const hasNext = [page.hasNextPage, pageInfo.hasNextPage, b.hasNextPage, b.hasMore].find((v) => typeof v === "boolean");
  const totalPages = [page.totalPages, b.totalPages].find((v) => typeof v === "number");
  const totalNodes = [page.totalNodes, page.total, b.totalNodes, b.total].find((v) => typeof v === "number");
  return { items, info: { bare: false, hasNextPage: hasNext, totalPages, totalNodes, nextCursor: cursor } };
}
