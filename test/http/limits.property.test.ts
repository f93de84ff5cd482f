// The in-memory window counter's idle(): true only when no id could be blocked, so the lockout may
// skip reading the client's address (src/http/auth.ts identify). And the key digests' constant-time
// comparison (src/ledger/keys.ts sameDigest) agrees with string equality.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createWindowCounter } from "../../src/http/limits.ts";
import { sameDigest } from "../../src/ledger/keys.ts";

describe("window counter idle()", () => {
  test("idle exactly when no id is blocked, whatever the hits and the times asked", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ id: fc.constantFrom("a", "b", "c"), dt: fc.integer({ min: 0, max: 90_000 }), hit: fc.boolean() }), { maxLength: 40 }),
        (limit, steps) => {
          const c = createWindowCounter(() => limit);
          let now = 1_000_000;
          for (const s of steps) {
            now += s.dt;
            if (s.hit) c.hit(s.id, now);
            const anyBlocked = ["a", "b", "c"].some((id) => c.blocked(id, now) !== null);
            // idle() may be false while nothing is blocked yet (a window open below its limit), never true while something is.
            if (c.idle(now)) expect(anyBlocked).toBe(false);
            const anyOpen = ["a", "b", "c"].some((id) => c.peek(id, now).remaining < limit);
            expect(c.idle(now)).toBe(!anyOpen);
          }
        },
      ),
    );
  });

  test("a fresh counter is idle; one failure makes it busy for its window only", () => {
    const c = createWindowCounter(() => 1, 60_000);
    expect(c.idle(0)).toBe(true);
    c.hit("10.0.0.1", 5_000);
    expect(c.idle(5_000)).toBe(false);
    expect(c.idle(64_999)).toBe(false);
    expect(c.blocked("10.0.0.1", 64_999)).not.toBeNull();
    expect(c.idle(65_000)).toBe(true);
    expect(c.blocked("10.0.0.1", 65_000)).toBeNull();
  });
});

describe("sameDigest", () => {
  const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
  test("true exactly for equal digests", () => {
    fc.assert(fc.property(hex, hex, (a, b) => expect(sameDigest(a, b)).toBe(a === b)));
    fc.assert(fc.property(hex, (a) => expect(sameDigest(a, a)).toBe(true)));
    fc.assert(fc.property(hex, fc.integer({ min: 0, max: 63 }), (a, i) => expect(sameDigest(a, a.slice(0, i) + (a[i] === "0" ? "1" : "0") + a.slice(i + 1))).toBe(false)));
    expect(sameDigest("ab", "abc")).toBe(false);
  });
});
