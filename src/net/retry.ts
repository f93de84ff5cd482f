// When to ask a provider again and how long to wait first: backoff with jitter, `retry-after`,
// and the clock the waits run on. The loop itself is `retrying`; what counts as a failure worth
// another try is the caller's verdict (src/net/http-transport.ts runs both providers and the webhooks through it).

/**
 * Exponential backoff with "full jitter": a uniform delay in [0.5, 1] x base x 2^attempt,
 * capped. Half of the window is kept as a floor so a retry never fires instantly after a 429.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * `retry-after` is either whole seconds or an HTTP date (RFC 9110 §10.2.3). Returns
 * milliseconds to wait, or null when absent or unreadable (the caller falls back to backoff).
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value == null) return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** The status codes a well-behaved client retries: throttling and transient server trouble. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599);
}

export function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a transport reads and waits on for its pacing: the wall clock, or a test's. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const wallClock: Clock = { now: () => Date.now(), sleep };

/** How often and how patiently one client asks again. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff step; doubles per retry. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Upper bound on a server's `retry-after`, so a hostile value cannot park a sync for hours. */
  maxRetryAfterMs: number;
  random: () => number;
  clock: Clock;
  /** Aborted: no further attempt, its reason thrown at once. */
  signal?: AbortSignal;
}

/** Why an attempt failed, as far as retrying cares: whether to try again, and when the server asked us to. */
export interface RetryableFailure {
  retryable: boolean;
  retryAfterMs: number | null;
}

export type Verdict<T, F extends RetryableFailure> = { ok: true; value: T } | { ok: false; failure: F };

/** The value, or the last failure and how many attempts were made. */
export type Settled<T, F extends RetryableFailure> = { ok: true; value: T } | { ok: false; failure: F; attempts: number };

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries run out, waiting between
 * tries for the server's `retry-after` (capped) or else a jittered backoff. An aborted `signal`
 * throws its reason before the next attempt.
 */
export async function retrying<T, F extends RetryableFailure>(policy: RetryPolicy, attempt: () => Promise<Verdict<T, F>>, onRetry: () => void = () => {}): Promise<Settled<T, F>> {
  for (let n = 0; ; n++) {
    throwIfAborted(policy.signal);
    const verdict = await attempt();
    if (verdict.ok) return verdict;
    throwIfAborted(policy.signal);
    if (!verdict.failure.retryable || n >= policy.maxRetries) return { ok: false, failure: verdict.failure, attempts: n + 1 };
    onRetry();
    await policy.clock.sleep(retryDelay(policy, n, verdict.failure.retryAfterMs));
  }
}

function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | null): number {
  if (retryAfterMs != null) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return backoffDelay(attempt, policy.baseDelayMs, policy.maxDelayMs, policy.random);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error("aborted");
}
