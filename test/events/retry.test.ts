// The retry schedule (docs/events.md#delivery-and-retries): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// then every 10 h; failed once an attempt fails three days or more after the delivery became due.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { MAX_RETRY_AFTER_MS, RETRY_WINDOW_MS, afterFailedAttempt, attemptTimes, retryDelayMs } from "../../src/domain/events/retry.ts";

const S = 1000,
  M = 60 * S,
  H = 60 * M;
const due = new Date("2026-03-01T00:00:00.000Z");

describe("retry schedule", () => {
  test("the delays after attempts 1..9", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(retryDelayMs)).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H, 10 * H, 10 * H]);
    expect(() => retryDelayMs(0)).toThrow(RangeError);
  });

  test("a delivery that always fails instantly: 13 attempts, the last 77 h 35 min 5 s after it became due", () => {
    const times = attemptTimes(due).map((t) => t.getTime() - due.getTime());
    expect(times).toEqual([
      0,
      5 * S,
      5 * M + 5 * S,
      35 * M + 5 * S,
      2 * H + 35 * M + 5 * S,
      7 * H + 35 * M + 5 * S,
      17 * H + 35 * M + 5 * S,
      27 * H + 35 * M + 5 * S,
      37 * H + 35 * M + 5 * S,
      47 * H + 35 * M + 5 * S,
      57 * H + 35 * M + 5 * S,
      67 * H + 35 * M + 5 * S,
      77 * H + 35 * M + 5 * S,
    ]);
  });

  test("property: retried for at least 3 days and at most 3 days + 10 h + one attempt; waits never shrink", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (attemptMs) => {
        const times = attemptTimes(due, attemptMs).map((t) => t.getTime() - due.getTime());
        const lastEnd = times.at(-1)! + attemptMs;
        const waits = times.slice(1).map((t, i) => t - times[i]! - attemptMs);
        return lastEnd >= RETRY_WINDOW_MS && lastEnd <= RETRY_WINDOW_MS + 10 * H + 2 * attemptMs && waits.every((w, i) => i === 0 || w >= waits[i - 1]!);
      }),
    );
  });

  test("an attempt that ends after three days fails, however few attempts came before (a delivery that waited its turn)", () => {
    expect(afterFailedAttempt({ attempt: 1, dueSince: due, attemptedAt: new Date(due.getTime() + RETRY_WINDOW_MS) })).toEqual({ kind: "failed" });
    expect(afterFailedAttempt({ attempt: 1, dueSince: due, attemptedAt: new Date(due.getTime() + RETRY_WINDOW_MS - 1) })).toEqual({
      kind: "retry",
      at: new Date(due.getTime() + RETRY_WINDOW_MS - 1 + 5 * S),
    });
  });

  test("Retry-After pushes the next attempt later, never earlier, and at most 10 h", () => {
    const at = new Date(due.getTime() + H);
    const next = (retryAfterMs: number | null) => (afterFailedAttempt({ attempt: 2, dueSince: due, attemptedAt: at, retryAfterMs }) as { at: Date }).at.getTime() - at.getTime();
    expect(next(null)).toBe(5 * M);
    expect(next(10 * S)).toBe(5 * M);
    expect(next(20 * M)).toBe(20 * M);
    expect(next(48 * H)).toBe(MAX_RETRY_AFTER_MS);
    expect(next(-5)).toBe(5 * M);
  });
});
