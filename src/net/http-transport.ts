// The one HTTP transport of both providers, the Solana RPC and the issuer's API, and of the
// webhook sender (one attempt each, its outbox retries): a request with a
// deadline over its headers and body, the body read up to a cap (and, for the issuer, from a
// byte budget every answer of a poll shares), and the attempts retried with backoff, jitter and
// `retry-after` on an injectable clock (retry.ts). What an answer means, and whether a failure
// is worth another try, is each client's verdict; a failure's cause is written for a person
// and never quotes the URL (provider-text.ts).
import { readCapped } from "../capped-read.ts";
import { networkCause } from "./provider-text.ts";
import { parseRetryAfter, retrying, wallClock, type Clock, type RetryableFailure, type RetryPolicy, type Settled, type Verdict } from "./retry.ts";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Bytes several reads share (one issuer poll's answers): `take` false once they pass it; `spent` is the error to throw then. */
export interface ByteBudget {
  take(bytes: number): boolean;
  spent(): Error;
}

/** What one request needs: the runtime's fetch, its deadline, its cap, the clock, a stop signal. */
export interface ExchangeConfig {
  fetch?: FetchLike;
  /** Deadline per attempt, headers and body included. */
  timeoutMs: number;
  /** Largest answer read, in bytes. */
  maxResponseBytes: number;
  /** Bytes every answer of this transport draws from; once spent, its error ends the call as is (never retried). */
  budget?: ByteBudget;
  /** What the waits between attempts, and `retry-after` dates, are read on (tests pass their own). */
  clock?: Clock;
  /** Aborts requests in flight and stops retrying at once (a shutting-down worker, a job's deadline). */
  signal?: AbortSignal;
}

export interface HttpTransportConfig extends ExchangeConfig, Omit<RetryPolicy, "clock" | "signal"> {}

/** What one request brought back: an answer read in full, or why none came. */
export type Exchange =
  | { kind: "answer"; status: number; ok: boolean; text: string; retryAfterMs: number | null }
  | { kind: "timeout" | "network_error" | "too_large"; status: number | null; detail: string };

export interface HttpTransport {
  /** One request: an answer within the deadline, read up to the cap, or why there was none. */
  exchange(url: string, init: RequestInit): Promise<Exchange>;
  /** `attempt` (usually around one `exchange`) until it succeeds, fails for good, or the retries run out. */
  retry<T, F extends RetryableFailure>(attempt: () => Promise<Verdict<T, F>>, onRetry?: () => void): Promise<Settled<T, F>>;
}

export function createHttpTransport(config: HttpTransportConfig): HttpTransport {
  const clock = config.clock ?? wallClock;
  const policy: RetryPolicy = { ...config, clock };
  return {
    exchange: (url, init) => exchange(config, url, init),
    retry: (attempt, onRetry) => retrying(policy, attempt, onRetry),
  };
}

/**
 * One request, no retry: an answer within the deadline, read up to the cap, or why there was
 * none (the webhook sender's attempt; the providers' clients go through createHttpTransport).
 */
export async function exchange(config: ExchangeConfig, url: string, init: RequestInit): Promise<Exchange> {
  const clock = config.clock ?? wallClock;
  const doFetch: FetchLike = config.fetch ?? ((input, requestInit) => fetch(input, requestInit));
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  config.signal?.addEventListener("abort", onAbort, { once: true });
  const deadline = deadlineAfter(config.timeoutMs, controller);
  const body = cappedBody(config.maxResponseBytes, config.budget);
  try {
    // Headers and body share one deadline: a server that sends headers and then stalls is a timeout too.
    const res = await Promise.race([doFetch(url, { ...init, signal: controller.signal }), deadline.passed]);
    const text = await Promise.race([body.read(res), deadline.passed]);
    if (text === null) return { kind: "too_large", status: res.status, detail: `answer larger than ${config.maxResponseBytes} bytes` };
    return { kind: "answer", status: res.status, ok: res.ok, text, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()) };
  } catch (err) {
    body.throwIfBudgetSpent();
    if (err instanceof DeadlinePassed || controller.signal.aborted) {
      return { kind: "timeout", status: null, detail: `timeout: no complete answer within ${config.timeoutMs} ms` };
    }
    return { kind: "network_error", status: null, detail: networkCause(err) };
  } finally {
    deadline.clear();
    config.signal?.removeEventListener("abort", onAbort);
  }
}

class DeadlinePassed extends Error {}

/** Rejects once `ms` pass, aborting the request; `clear` when the answer is in. */
function deadlineAfter(ms: number, controller: AbortController) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const passed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DeadlinePassed());
    }, ms);
  });
  passed.catch(() => {}); // raced; never an unhandled rejection
  return { passed, clear: () => clearTimeout(timer) };
}

/**
 * The body as text, reading at most `maxBytes` (a hostile or broken server can send hundreds of
 * megabytes; holding them, then parsing them, took over a gigabyte): null past the cap, the
 * stream cancelled there. With a `budget`, each chunk is taken from it too; once it runs out,
 * its `spent()` error is thrown, and thrown again by `throwIfBudgetSpent`.
 */
function cappedBody(maxBytes: number, budget: ByteBudget | undefined) {
  let spent: Error | null = null;
  const take = budget && ((n: number) => budget.take(n) || ((spent = budget.spent()), false));
  return {
    async read(res: Response): Promise<string | null> {
      const declared = Number(res.headers.get("content-length") ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await res.body?.cancel().catch(() => {});
        return null;
      }
      const text = await readCapped(res.body, maxBytes, take);
      if (spent) throw spent;
      return text;
    },
    throwIfBudgetSpent(): void {
      if (spent) throw spent;
    },
  };
}
