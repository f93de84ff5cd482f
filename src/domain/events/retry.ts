// When a failed delivery is tried again (docs/events.md#delivery-and-retries). The delays follow
// the attempt that failed: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h; a delivery whose
// attempt fails three days or more after it became due is `failed`. Three days count from when the
// delivery became due (its event entered the outbox), not from its first attempt: a delivery
// waiting behind an earlier one of the same subscription ages too, so the backlog of a dead
// endpoint is settled one attempt each once it is old, instead of three more days per event.
// Pure: every time is an argument.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after failed attempt 1, 2, 3, …; the last one repeats. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];
/** How long a delivery is retried before it is `failed`. */
export const RETRY_WINDOW_MS = 3 * 24 * HOUR;
/** A receiver's `Retry-After` is honoured up to this (a longer one would skip the schedule). */
export const MAX_RETRY_AFTER_MS = 10 * HOUR;

/** The wait after attempt `attempt` (1-based) failed. */
export function retryDelayMs(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt numbers start at 1; got ${attempt}`);
  return RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1]!;
}

export type RetryDecision = { kind: "retry"; at: Date } | { kind: "failed" };

/**
 * What follows a failed attempt: the next attempt's time, or `failed` once the attempt ended three
 * days or more after the delivery became due. A receiver's `Retry-After` (milliseconds, already
 * parsed) can push the next attempt later, never earlier, and never past 10 h.
 */
export function afterFailedAttempt(p: { attempt: number; dueSince: Date; attemptedAt: Date; retryAfterMs?: number | null }): RetryDecision {
  const age = p.attemptedAt.getTime() - p.dueSince.getTime();
  if (age >= RETRY_WINDOW_MS) return { kind: "failed" };
  const asked = p.retryAfterMs != null && Number.isFinite(p.retryAfterMs) ? Math.min(Math.max(0, p.retryAfterMs), MAX_RETRY_AFTER_MS) : 0;
  return { kind: "retry", at: new Date(p.attemptedAt.getTime() + Math.max(retryDelayMs(p.attempt), asked)) };
}

/**
 * The times of every attempt of a delivery that fails each time and takes `attemptMs` per attempt,
 * starting when it became due (the documented schedule, and what the tests hold it to).
 */
export function attemptTimes(dueSince: Date, attemptMs = 0): Date[] {
  const out: Date[] = [];
  let at = dueSince;
  for (let attempt = 1; ; attempt++) {
    out.push(at);
    const next = afterFailedAttempt({ attempt, dueSince, attemptedAt: new Date(at.getTime() + attemptMs) });
    if (next.kind === "failed") return out;
    at = next.at;
  }
}
