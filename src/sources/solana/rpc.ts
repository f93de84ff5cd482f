// The JSON-RPC client of any standard Solana RPC provider. Only the methods
// docs/sources.md#rpc-methods names are exposed, all at `finalized` commitment, so any provider
// works and nothing depends on `jsonParsed`. One of them is not standard (getTransactionsForAddress,
// docs/providers.md): a provider that does not offer it is remembered for the process, per URL,
// and asked only the standard ones. Each call runs in a slot of the RPC's throttle (concurrency,
// spacing: throttle.ts) over the HTTP transport both providers share (deadline, capped body,
// retries: ../http-transport.ts), its answer read by rpc-answer.ts.
//
// The URL can carry a provider key (`?api-key=`, or a token in its path): an error names the
// provider by its host only, and the cause (docs/providers.md#sync-errors).
import { createHttpTransport, type FetchLike } from "../../net/http-transport.ts";
import { providerHost, withoutSecrets } from "../../net/provider-text.ts";
import { wallClock, type Clock } from "../../net/retry.ts";
import { isContextValue, isObject, isSignatureList, isTransaction, isTransactionsPage, isWireAccount, readRpcAnswer, type RpcFailure, type RpcOutcome } from "./rpc-answer";
import { createThrottle, throttled } from "./throttle";
import { TOKEN_2022_PROGRAM_ID, type WireAccount, type WireKeyedAccount, type WireSignatureInfo, type WireTransaction, type WireTransactionsPage } from "./wire";

export type { RpcOutcome } from "./rpc-answer";

export type RpcMethod = "getTokenAccountsByOwner" | "getAccountInfo" | "getMultipleAccounts" | "getSignaturesForAddress" | "getTransaction" | "getSlot" | "getBlockTime" | "getTransactionsForAddress";

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

/** What a setting left out means (each one's meaning is on RpcConfig). */
const RPC_DEFAULTS = {
  concurrency: 4,
  spacingMs: 0,
  maxRetries: 6,
  timeoutMs: 20_000,
  baseDelayMs: 250,
  maxDelayMs: 15_000,
  maxRetryAfterMs: 60_000,
  maxResponseBytes: 32 * 1024 * 1024,
};

export function createRpc(config: RpcConfig): Rpc {
  const call = createCaller(config);
  return {
    getTokenAccountsByOwner: (owner) => getTokenAccountsByOwner(call, owner),
    getAccountInfo: (address) => getAccountInfo(call, address),
    getMultipleAccounts: (addresses) => getMultipleAccounts(call, addresses),
    getSignaturesForAddress: (address, options) => getSignaturesForAddress(call, address, options),
    getTransaction: (signature) => call("getTransaction", [signature, transactionEncoding()], (v): v is WireTransaction | null => v === null || isTransaction(v)),
    getSlot: () => call("getSlot", [{ commitment: COMMITMENT }], (v): v is number => typeof v === "number"),
    getBlockTime: (slot) => call("getBlockTime", [slot], (v): v is number | null => v === null || typeof v === "number"),
    getTransactionsForAddress: (address, options) => getTransactionsForAddress(call, config.url, address, options),
    offersTransactionsForAddress: () => !withoutTransactionsForAddress.has(config.url),
    stats: call.stats,
  };
}

/** One JSON-RPC call, its result checked by `isResult`; a final failure is thrown (RpcError, RpcTransportError). */
interface Caller {
  <T>(method: RpcMethod, params: unknown[], isResult: (value: unknown) => value is T): Promise<T>;
  stats(): RpcStats;
}

/**
 * Each call: attempts in a slot of the throttle, over the shared HTTP transport (deadline, capped
 * body, retries on the clock), each attempt counted and reported; a final failure names the
 * provider's host and the cause.
 */
function createCaller(config: RpcConfig): Caller {
  const setting = (key: keyof typeof RPC_DEFAULTS): number => config[key] ?? RPC_DEFAULTS[key];
  const clock = config.clock ?? wallClock;
  const transport = createHttpTransport({
    fetch: config.fetch,
    timeoutMs: setting("timeoutMs"),
    maxResponseBytes: setting("maxResponseBytes"),
    clock,
    signal: config.signal,
    maxRetries: Math.max(0, setting("maxRetries")),
    baseDelayMs: setting("baseDelayMs"),
    maxDelayMs: setting("maxDelayMs"),
    maxRetryAfterMs: setting("maxRetryAfterMs"),
    random: config.random ?? Math.random,
  });
  const throttle = createThrottle(Math.max(1, setting("concurrency")), Math.max(0, setting("spacingMs")), clock);
  const host = providerHost(config.url);
  const stats: RpcStats = { requests: 0, retries: 0, failures: 0 };
  let nextId = 1;

  async function attempt<T>(method: RpcMethod, params: unknown[], isResult: (value: unknown) => value is T) {
    stats.requests++;
    const id = nextId++;
    const verdict = readRpcAnswer(await transport.exchange(config.url, jsonRpcRequest(id, method, params)), id, isResult);
    config.onRequest?.(method, verdict.ok ? "ok" : verdict.failure.kind);
    return verdict;
  }
  async function call<T>(method: RpcMethod, params: unknown[], isResult: (value: unknown) => value is T): Promise<T> {
    const settled = await transport.retry(
      () => throttled(throttle, () => attempt(method, params, isResult)),
      () => stats.retries++,
    );
    if (settled.ok) return settled.value;
    stats.failures++;
    throw callFailure(method, host, config.url, settled.failure, settled.attempts);
  }
  return Object.assign(call, { stats: () => ({ ...stats }) });
}

function jsonRpcRequest(id: number, method: RpcMethod, params: unknown[]): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  };
}

/** The error a call's last failure ends in: the node's own (its text cut of any part of the URL), or the transport's. */
function callFailure(method: RpcMethod, host: string, url: string, failure: RpcFailure, attempts: number): Error {
  if (failure.kind === "rpc_error") return new RpcError(method, host, failure.code, withoutSecrets(failure.message, url), failure.data);
  return new RpcTransportError(method, host, failure.kind, failure.status, attempts, failure.detail);
}

const transactionEncoding = () => ({ commitment: COMMITMENT, encoding: "json", maxSupportedTransactionVersion: 0 });

async function getTokenAccountsByOwner(call: Caller, owner: string): Promise<{ slot: number; accounts: { pubkey: string; account: AccountInfo }[] }> {
  const r = await call(
    "getTokenAccountsByOwner",
    [owner, { programId: TOKEN_2022_PROGRAM_ID }, { commitment: COMMITMENT, encoding: "base64" }],
    isContextValue((v): v is WireKeyedAccount[] => Array.isArray(v) && v.every((a) => isObject(a) && typeof a.pubkey === "string" && isWireAccount(a.account))),
  );
  return { slot: r.context.slot, accounts: r.value.map((a) => ({ pubkey: a.pubkey, account: toAccountInfo(a.account) })) };
}

async function getAccountInfo(call: Caller, address: string): Promise<{ slot: number; account: AccountInfo | null }> {
  const r = await call(
    "getAccountInfo",
    [address, { commitment: COMMITMENT, encoding: "base64" }],
    isContextValue((v): v is WireAccount | null => v === null || isWireAccount(v)),
  );
  return { slot: r.context.slot, account: r.value ? toAccountInfo(r.value) : null };
}

/** Chunked by 100 (the RPC limit), asked at once; `slot` is the lowest context slot of the chunks. */
async function getMultipleAccounts(call: Caller, addresses: string[]): Promise<{ slot: number; accounts: (AccountInfo | null)[] }> {
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
  let slot = Number.POSITIVE_INFINITY;
  const accounts: (AccountInfo | null)[] = [];
  for (const r of results) {
    slot = Math.min(slot, r.context.slot);
    for (const a of r.value) accounts.push(a ? toAccountInfo(a) : null);
  }
  return { slot: Number.isFinite(slot) ? slot : 0, accounts };
}

async function getSignaturesForAddress(call: Caller, address: string, options: SignaturePageOptions = {}): Promise<WireSignatureInfo[]> {
  const cfg: Record<string, unknown> = { commitment: COMMITMENT, limit: options.limit ?? 1000 };
  if (options.before) cfg.before = options.before;
  if (options.until) cfg.until = options.until;
  return call("getSignaturesForAddress", [address, cfg], isSignatureList);
}

/**
 * One page of getTransactionsForAddress (docs/providers.md#gettransactionsforaddress). A final
 * JSON-RPC error (method not found, not in this plan, parameters refused) means this provider
 * cannot serve it: remembered for its URL, so only the standard methods are asked from then on.
 */
async function getTransactionsForAddress(call: Caller, url: string, address: string, options: AddressTransactionsOptions = {}): Promise<WireTransactionsPage> {
  if (withoutTransactionsForAddress.has(url)) throw new FastPathUnavailable("remembered from an earlier answer");
  const cfg: Record<string, unknown> = {
    transactionDetails: "full",
    sortOrder: "asc",
    limit: options.limit ?? ADDRESS_TRANSACTIONS_PAGE,
    ...transactionEncoding(),
    filters: { status: "succeeded", tokenAccounts: "balanceChanged", ...(options.slotGte !== undefined ? { slot: { gte: options.slotGte } } : {}) },
  };
  if (options.paginationToken) cfg.paginationToken = options.paginationToken;
  try {
    return await call("getTransactionsForAddress", [address, cfg], isTransactionsPage);
  } catch (err) {
    if (err instanceof RpcError) {
      withoutTransactionsForAddress.add(url);
      throw new FastPathUnavailable(err.message);
    }
    throw err;
  }
}

function toAccountInfo(a: WireAccount): AccountInfo {
  return { data: a.data[0], owner: a.owner, lamports: a.lamports };
}
