// JSON-RPC transport to any standard Solana RPC provider: bounded concurrency, spacing between
// request starts, retries with exponential backoff + jitter (honouring `retry-after`), a
// deadline per attempt, and typed errors. Only the methods docs/sources.md#rpc-methods names are exposed, all
// at `finalized` commitment, so any provider works and nothing depends on `jsonParsed`. One of
// them is not standard (getTransactionsForAddress, docs/providers.md): a provider that does not
// offer it is remembered for the process, per URL, and asked only the standard ones.
//
// The URL can carry a provider key (`?api-key=`, or a token in its path): an error names the
// provider by its host only, and the cause (docs/providers.md#sync-errors).
import { BodyTooLarge, backoffDelay, isRetryableStatus, networkCause, parseRetryAfter, providerHost, readBodyCapped, wallClock, withoutSecrets, type Clock, type FetchLike } from "../retry";
import {
  TOKEN_2022_PROGRAM_ID,
  type WireAccount,
  type WireContext,
  type WireKeyedAccount,
  type WireSignatureInfo,
  type WireTransaction,
  type WireTransactionsPage,
} from "./wire";

export type RpcMethod =
  | "getTokenAccountsByOwner"
  | "getAccountInfo"
  | "getMultipleAccounts"
  | "getSignaturesForAddress"
  | "getTransaction"
  | "getSlot"
  | "getBlockTime"
  | "getTransactionsForAddress";

/** Outcome of one HTTP attempt, the label of `caledger_rpc_requests_total{method,outcome}`. */
export type RpcOutcome =
  | "ok"
  | "rpc_error"
  | "rate_limited"
  | "server_error"
  | "http_error"
  | "timeout"
  | "bad_response"
  | "network_error";

/** The node answered with a JSON-RPC error object (after retries, if the code is transient). */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly method: RpcMethod;
  /** The provider's host (never its path or query: they can hold a key). */
  readonly host: string;
  constructor(method: RpcMethod, host: string, code: number, message: string, data?: unknown) {
    super(`${method} to ${host}: JSON-RPC error ${code}: ${message}`);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
    this.method = method;
    this.host = host;
  }
}

/**
 * No usable answer after every retry: the message names the provider's host and the cause
 * (connection refused, DNS, TLS, a timeout, an HTTP status, an unreadable body).
 */
export class RpcTransportError extends Error {
  readonly kind: Exclude<RpcOutcome, "ok" | "rpc_error">;
  readonly status: number | null;
  readonly attempts: number;
  readonly method: RpcMethod;
  readonly host: string;
  constructor(method: RpcMethod, host: string, kind: RpcTransportError["kind"], status: number | null, attempts: number, detail: string) {
    super(`${method} to ${host}: ${detail}, after ${attempts} attempt${attempts === 1 ? "" : "s"}`);
    this.name = "RpcTransportError";
    this.kind = kind;
    this.status = status;
    this.attempts = attempts;
    this.method = method;
    this.host = host;
  }
}

export interface RpcConfig {
  url: string;
  fetch?: FetchLike;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Minimum milliseconds between two request starts (a provider's rate limit). */
  spacingMs?: number;
  /** Retries after the first attempt. */
  maxRetries?: number;
  /** Deadline per attempt, headers and body included. */
  timeoutMs?: number;
  /** First backoff step; doubles per retry. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Upper bound on a server's `retry-after`, so a hostile value cannot park a sync for hours. */
  maxRetryAfterMs?: number;
  /** Called once per HTTP attempt (metrics). */
  onRequest?(method: RpcMethod, outcome: RpcOutcome): void;
  random?: () => number;
  /** What the spacing and the waits between retries read and sleep on (tests pass their own). */
  clock?: Clock;
  /** Aborts requests in flight and stops retrying at once (a shutting-down worker, a job's deadline). */
  signal?: AbortSignal;
  /** Largest answer read, in bytes (default 32 MiB: a full page of signatures is under 1 MiB). */
  maxResponseBytes?: number;
}

export interface RpcStats {
  /** HTTP attempts made, retries included. */
  requests: number;
  retries: number;
  failures: number;
}

export interface AccountInfo {
  /** Account data, base64. */
  data: string;
  owner: string;
  lamports: number;
}

export interface SignaturePageOptions {
  before?: string;
  until?: string;
  limit?: number;
}

/**
 * The first slot whose transactions record token-balance owners: a provider's token-account
 * filter finds nothing of a wallet's token accounts before it (docs/providers.md).
 */
export const TOKEN_OWNER_METADATA_SLOT = 111_491_819;

/** One page of an address's history, oldest first, with the transactions' bodies (getTransactionsForAddress). */
export interface AddressTransactionsOptions {
  /** From the previous page; absent for the first. */
  paginationToken?: string;
  /** Transactions per page (the providers serve up to 100 full ones). */
  limit?: number;
  /** Only transactions at or after this slot. */
  slotGte?: number;
}

/** The provider does not serve getTransactionsForAddress (remembered for its URL). */
export class FastPathUnavailable extends Error {
  constructor(reason: string) {
    super(`getTransactionsForAddress is not available from this provider: ${reason}`);
    this.name = "FastPathUnavailable";
  }
}

export interface Rpc {
  getTokenAccountsByOwner(owner: string): Promise<{ slot: number; accounts: { pubkey: string; account: AccountInfo }[] }>;
  getAccountInfo(address: string): Promise<{ slot: number; account: AccountInfo | null }>;
  /** Chunked by 100 (the RPC limit); `slot` is the lowest context slot of the chunks. */
  getMultipleAccounts(addresses: string[]): Promise<{ slot: number; accounts: (AccountInfo | null)[] }>;
  getSignaturesForAddress(address: string, options?: SignaturePageOptions): Promise<WireSignatureInfo[]>;
  /** null when the node does not have the transaction. */
  getTransaction(signature: string): Promise<WireTransaction | null>;
  getSlot(): Promise<number>;
  getBlockTime(slot: number): Promise<number | null>;
  /**
   * An address's transactions, oldest first, with their bodies, including those that changed the
   * balance of a token account the address owns (closed ones too). Throws FastPathUnavailable
   * when the provider does not offer it; `offersTransactionsForAddress` says so beforehand once known.
   */
  getTransactionsForAddress(address: string, options?: AddressTransactionsOptions): Promise<WireTransactionsPage>;
  /** False once this provider's URL answered that it does not serve getTransactionsForAddress. */
  offersTransactionsForAddress(): boolean;
  stats(): RpcStats;
}

/** Provider URLs that answered that they do not serve getTransactionsForAddress (this process). */
const withoutTransactionsForAddress = new Set<string>();

/** Full transactions per getTransactionsForAddress page (the documented maximum for full details). */
export const ADDRESS_TRANSACTIONS_PAGE = 100;

const COMMITMENT = "finalized";
const MULTIPLE_ACCOUNTS_LIMIT = 100;

/**
 * JSON-RPC error codes worth another try: rate limits expressed in the body, a node behind or
 * unhealthy, a block not yet available, and generic internal errors some providers use for
 * transient trouble. Everything else (invalid params, skipped slot...) is final.
 */
const TRANSIENT_RPC_CODES = new Set([429, -32429, -32005, -32004, -32014, -32016, -32603]);

type Attempt =
  | { kind: "ok"; value: unknown }
  | { kind: "rpc_error"; code: number; message: string; data: unknown }
  | { kind: Exclude<RpcOutcome, "ok" | "rpc_error">; status: number | null; detail: string; retryAfterMs: number | null };

export function createRpc(config: RpcConfig): Rpc {
  const doFetch: FetchLike = config.fetch ?? ((input, init) => fetch(input, init));
  const concurrency = Math.max(1, config.concurrency ?? 4);
  const spacingMs = Math.max(0, config.spacingMs ?? 0);
  const maxRetries = Math.max(0, config.maxRetries ?? 6);
  const timeoutMs = config.timeoutMs ?? 20_000;
  const baseDelayMs = config.baseDelayMs ?? 250;
  const maxDelayMs = config.maxDelayMs ?? 15_000;
  const maxRetryAfterMs = config.maxRetryAfterMs ?? 60_000;
  const random = config.random ?? Math.random;
  const clock = config.clock ?? wallClock;
  const maxResponseBytes = config.maxResponseBytes ?? 32 * 1024 * 1024;
  const limiter = createLimiter(concurrency, spacingMs, clock);
  const host = providerHost(config.url);
  const stats: RpcStats = { requests: 0, retries: 0, failures: 0 };
  let nextId = 1;

  async function attemptOnce(method: RpcMethod, params: unknown[]): Promise<Attempt> {
    const id = nextId++;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    config.signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new DeadlineError());
      }, timeoutMs);
    });
    deadline.catch(() => {}); // raced below; never an unhandled rejection
    try {
      // Headers and body share one deadline: a server that sends headers and then stalls is a timeout too.
      const res = await Promise.race([
        doFetch(config.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
          signal: controller.signal,
        }),
        deadline,
      ]);
      let text: string;
      try {
        text = await Promise.race([readBodyCapped(res, maxResponseBytes), deadline]);
      } catch (err) {
        if (err instanceof BodyTooLarge) return { kind: "bad_response", status: res.status, detail: err.message, retryAfterMs: null };
        throw err;
      }
      if (res.status === 429) {
        return { kind: "rate_limited", status: 429, detail: "HTTP 429 (rate limited)", retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()) };
      }
      if (res.status >= 500) {
        return { kind: "server_error", status: res.status, detail: `HTTP ${res.status} (server error)`, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()) };
      }
      if (!res.ok) {
        // 4xx other than 429 is a client or auth problem; 408 is still worth a retry.
        return { kind: "http_error", status: res.status, detail: `HTTP ${res.status}`, retryAfterMs: null };
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { kind: "bad_response", status: res.status, detail: `unreadable body (${text.length} bytes)`, retryAfterMs: null };
      }
      if (!isObject(body) || (body.id !== undefined && body.id !== null && body.id !== id)) {
        return { kind: "bad_response", status: res.status, detail: "not a JSON-RPC response for this request", retryAfterMs: null };
      }
      if (isObject(body.error)) {
        const code = typeof body.error.code === "number" ? body.error.code : 0;
        const message = typeof body.error.message === "string" ? body.error.message : "unknown error";
        return { kind: "rpc_error", code, message, data: body.error.data };
      }
      if (!("result" in body)) {
        return { kind: "bad_response", status: res.status, detail: "response has neither result nor error", retryAfterMs: null };
      }
      return { kind: "ok", value: body.result };
    } catch (err) {
      if (err instanceof DeadlineError || controller.signal.aborted) {
        return { kind: "timeout", status: null, detail: `timeout: no complete answer within ${timeoutMs} ms`, retryAfterMs: null };
      }
      return { kind: "network_error", status: null, detail: networkCause(err), retryAfterMs: null };
    } finally {
      clearTimeout(timer);
      config.signal?.removeEventListener("abort", onAbort);
    }
  }

  async function call<T>(method: RpcMethod, params: unknown[], check: (value: unknown) => value is T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (config.signal?.aborted) throw config.signal.reason ?? new Error("aborted");
      await limiter.acquire();
      let result: Attempt;
      try {
        stats.requests++;
        result = await attemptOnce(method, params);
      } finally {
        limiter.release();
      }
      if (result.kind === "ok" && !check(result.value)) {
        result = { kind: "bad_response", status: 200, detail: "result has an unexpected shape", retryAfterMs: null };
      }
      config.onRequest?.(method, result.kind);
      if (result.kind === "ok") return result.value as T;

      const retryable =
        result.kind === "rpc_error" ? TRANSIENT_RPC_CODES.has(result.code) : result.kind !== "http_error" || isRetryableStatus(result.status ?? 0);
      if (config.signal?.aborted) throw config.signal.reason ?? new Error("aborted");
      if (!retryable || attempt >= maxRetries) {
        stats.failures++;
        if (result.kind === "rpc_error") throw new RpcError(method, host, result.code, withoutSecrets(result.message, config.url), result.data);
        throw new RpcTransportError(method, host, result.kind, result.status, attempt + 1, result.detail);
      }
      stats.retries++;
      const backoff = backoffDelay(attempt, baseDelayMs, maxDelayMs, random);
      const told = result.kind === "rpc_error" ? null : result.retryAfterMs;
      await clock.sleep(told != null ? Math.min(told, maxRetryAfterMs) : backoff);
    }
  }

  return {
    async getTokenAccountsByOwner(owner) {
      const r = await call(
        "getTokenAccountsByOwner",
        [owner, { programId: TOKEN_2022_PROGRAM_ID }, { commitment: COMMITMENT, encoding: "base64" }],
        isContextValue((v): v is WireKeyedAccount[] => Array.isArray(v) && v.every((a) => isObject(a) && typeof a.pubkey === "string" && isWireAccount(a.account))),
      );
      return { slot: r.context.slot, accounts: r.value.map((a) => ({ pubkey: a.pubkey, account: toAccountInfo(a.account) })) };
    },
    async getAccountInfo(address) {
      const r = await call(
        "getAccountInfo",
        [address, { commitment: COMMITMENT, encoding: "base64" }],
        isContextValue((v): v is WireAccount | null => v === null || isWireAccount(v)),
      );
      return { slot: r.context.slot, account: r.value ? toAccountInfo(r.value) : null };
    },
    async getMultipleAccounts(addresses) {
      let slot = Number.POSITIVE_INFINITY;
      const accounts: (AccountInfo | null)[] = [];
      const chunks: string[][] = [];
      for (let i = 0; i < addresses.length; i += MULTIPLE_ACCOUNTS_LIMIT) chunks.push(addresses.slice(i, i + MULTIPLE_ACCOUNTS_LIMIT));
      const results = await Promise.all(
        chunks.map((chunk) =>
          call(
            "getMultipleAccounts",
            [chunk, { commitment: COMMITMENT, encoding: "base64" }],
            isContextValue((v): v is (WireAccount | null)[] => Array.isArray(v) && v.length === chunk.length && v.every((a) => a === null || isWireAccount(a))),
          ),
        ),
      );
      for (const r of results) {
        slot = Math.min(slot, r.context.slot);
        for (const a of r.value) accounts.push(a ? toAccountInfo(a) : null);
      }
      return { slot: Number.isFinite(slot) ? slot : 0, accounts };
    },
    async getSignaturesForAddress(address, options = {}) {
      const cfg: Record<string, unknown> = { commitment: COMMITMENT, limit: options.limit ?? 1000 };
      if (options.before) cfg.before = options.before;
      if (options.until) cfg.until = options.until;
      return call(
        "getSignaturesForAddress",
        [address, cfg],
        (v): v is WireSignatureInfo[] => Array.isArray(v) && v.every((s) => isObject(s) && typeof s.signature === "string" && typeof s.slot === "number"),
      );
    },
    async getTransaction(signature) {
      return call(
        "getTransaction",
        [signature, { commitment: COMMITMENT, encoding: "json", maxSupportedTransactionVersion: 0 }],
        (v): v is WireTransaction | null =>
          v === null ||
          (isObject(v) && typeof v.slot === "number" && isObject(v.transaction) && isObject((v.transaction as Record<string, unknown>).message)),
      );
    },
    async getSlot() {
      return call("getSlot", [{ commitment: COMMITMENT }], (v): v is number => typeof v === "number");
    },
    async getBlockTime(slot) {
      return call("getBlockTime", [slot], (v): v is number | null => v === null || typeof v === "number");
    },
    async getTransactionsForAddress(address, options = {}) {
      if (withoutTransactionsForAddress.has(config.url)) throw new FastPathUnavailable("remembered from an earlier answer");
      const cfg: Record<string, unknown> = {
        transactionDetails: "full",
        sortOrder: "asc",
        limit: options.limit ?? ADDRESS_TRANSACTIONS_PAGE,
        commitment: COMMITMENT,
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        filters: { status: "succeeded", tokenAccounts: "balanceChanged", ...(options.slotGte !== undefined ? { slot: { gte: options.slotGte } } : {}) },
      };
      if (options.paginationToken) cfg.paginationToken = options.paginationToken;
      try {
        return await call("getTransactionsForAddress", [address, cfg], isTransactionsPage);
      } catch (err) {
        // A final JSON-RPC error (method not found, not in this plan, parameters refused) means
        // this provider cannot serve it: ask the standard methods from now on.
        if (err instanceof RpcError) {
          withoutTransactionsForAddress.add(config.url);
          throw new FastPathUnavailable(err.message);
        }
        throw err;
      }
    },
    offersTransactionsForAddress: () => !withoutTransactionsForAddress.has(config.url),
    stats: () => ({ ...stats }),
  };
}

function isTransactionsPage(v: unknown): v is WireTransactionsPage {
  return isObject(v) && Array.isArray(v.data) && (v.paginationToken === null || v.paginationToken === undefined || typeof v.paginationToken === "string")
    && v.data.every((t) => isObject(t) && typeof t.slot === "number" && isObject(t.transaction) && isObject((t.transaction as Record<string, unknown>).message)
      && Array.isArray((t.transaction as Record<string, any>).signatures) && typeof (t.transaction as Record<string, any>).signatures[0] === "string");
}

class DeadlineError extends Error {}

/** A FIFO semaphore that also keeps request starts at least `spacingMs` apart. */
function createLimiter(concurrency: number, spacingMs: number, clock: Clock) {
  let active = 0;
  let nextStartAt = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (active < concurrency) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve)); // the releaser hands its slot over
      if (spacingMs > 0) {
        const now = clock.now();
        const at = Math.max(now, nextStartAt);
        nextStartAt = at + spacingMs;
        await clock.sleep(at - now);
      }
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isWireAccount(v: unknown): v is WireAccount {
  return isObject(v) && Array.isArray(v.data) && typeof v.data[0] === "string" && v.data[1] === "base64" && typeof v.owner === "string";
}

function isContextValue<T>(checkValue: (v: unknown) => v is T) {
  return (v: unknown): v is { context: WireContext; value: T } =>
    isObject(v) && isObject(v.context) && typeof v.context.slot === "number" && "value" in v && checkValue(v.value);
}

function toAccountInfo(a: WireAccount): AccountInfo {
  return { data: a.data[0], owner: a.owner, lamports: a.lamports };
}
