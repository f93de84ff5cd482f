// One JSON-RPC answer read: the result, if it has the shape the method promises; the node's error
// object; or why the answer is not usable, in words (docs/providers.md#sync-errors), and whether
// another try may help. The result shapes of the methods we call are checked here too.
import type { Exchange } from "../../net/http-transport.ts";
import { isRetryableStatus, type RetryableFailure, type Verdict } from "../../net/retry.ts";
import type { WireAccount, WireContext, WireSignatureInfo, WireTransaction, WireTransactionsPage } from "./wire";

/** Outcome of one HTTP attempt, the label of `caledger_rpc_requests_total{method,outcome}`. */
export type RpcOutcome = "ok" | "rpc_error" | "rate_limited" | "server_error" | "http_error" | "timeout" | "bad_response" | "network_error";

/** Why an attempt gave no result: the node's error object, or no usable answer. */
export type RpcFailure = RetryableFailure &
  ({ kind: "rpc_error"; code: number; message: string; data: unknown } | { kind: Exclude<RpcOutcome, "ok" | "rpc_error">; status: number | null; detail: string });

/**
 * JSON-RPC error codes worth another try: rate limits expressed in the body, a node behind or
 * unhealthy, a block not yet available, and generic internal errors some providers use for
 * transient trouble. Everything else (invalid params, skipped slot...) is final.
 */
const TRANSIENT_RPC_CODES = new Set([429, -32429, -32005, -32004, -32014, -32016, -32603]);

/** The answer to request `id` read: its result when `isResult` accepts it, else why not. */
export function readRpcAnswer<T>(exchange: Exchange, id: number, isResult: (value: unknown) => value is T): Verdict<T, RpcFailure> {
  if (exchange.kind !== "answer") {
    const kind = exchange.kind === "too_large" ? "bad_response" : exchange.kind;
    return unusable(kind, exchange.status, exchange.detail, null);
  }
  const { status, retryAfterMs } = exchange;
  if (status === 429) return unusable("rate_limited", 429, "HTTP 429 (rate limited)", retryAfterMs);
  if (status >= 500) return unusable("server_error", status, `HTTP ${status} (server error)`, retryAfterMs);
  // 4xx other than 429 is a client or auth problem; 408 is still worth a retry.
  if (!exchange.ok) return unusable("http_error", status, `HTTP ${status}`, null);
  return readEnvelope(exchange.text, status, id, isResult);
}

/** The JSON-RPC envelope: a result, an error object, or neither. */
function readEnvelope<T>(text: string, status: number, id: number, isResult: (value: unknown) => value is T): Verdict<T, RpcFailure> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return unusable("bad_response", status, `unreadable body (${text.length} bytes)`, null);
  }
  if (!isObject(body) || (body.id !== undefined && body.id !== null && body.id !== id)) {
    return unusable("bad_response", status, "not a JSON-RPC response for this request", null);
  }
  if (isObject(body.error)) {
    const code = typeof body.error.code === "number" ? body.error.code : 0;
    const message = typeof body.error.message === "string" ? body.error.message : "unknown error";
    return { ok: false, failure: { kind: "rpc_error", code, message, data: body.error.data, retryable: TRANSIENT_RPC_CODES.has(code), retryAfterMs: null } };
  }
  if (!("result" in body)) return unusable("bad_response", status, "response has neither result nor error", null);
  if (!isResult(body.result)) return unusable("bad_response", 200, "result has an unexpected shape", null);
  return { ok: true, value: body.result };
}

function unusable<T>(kind: Exclude<RpcOutcome, "ok" | "rpc_error">, status: number | null, detail: string, retryAfterMs: number | null): Verdict<T, RpcFailure> {
  const retryable = kind !== "http_error" || isRetryableStatus(status ?? 0);
  return { ok: false, failure: { kind, status, detail, retryable, retryAfterMs } };
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isWireAccount(v: unknown): v is WireAccount {
  return isObject(v) && Array.isArray(v.data) && typeof v.data[0] === "string" && v.data[1] === "base64" && typeof v.owner === "string";
}

/** `{context: {slot}, value}` whose value `checkValue` accepts. */
export function isContextValue<T>(checkValue: (v: unknown) => v is T) {
  return (v: unknown): v is { context: WireContext; value: T } => isObject(v) && isObject(v.context) && typeof v.context.slot === "number" && "value" in v && checkValue(v.value);
}

export function isSignatureList(v: unknown): v is WireSignatureInfo[] {
  return Array.isArray(v) && v.every((s) => isObject(s) && typeof s.signature === "string" && typeof s.slot === "number");
}

export function isTransaction(v: unknown): v is WireTransaction {
  return isObject(v) && typeof v.slot === "number" && isObject(v.transaction) && isObject((v.transaction as Record<string, unknown>).message);
}

export function isTransactionsPage(v: unknown): v is WireTransactionsPage {
  return (
    isObject(v) &&
    Array.isArray(v.data) &&
    (v.paginationToken === null || v.paginationToken === undefined || typeof v.paginationToken === "string") &&
    v.data.every((t) => isTransaction(t) && Array.isArray((t.transaction as Record<string, any>).signatures) && typeof (t.transaction as Record<string, any>).signatures[0] === "string")
  );
}
