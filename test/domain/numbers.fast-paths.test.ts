// The fast paths of numbers.ts (denominator shapes, two-stripping gcd, one-pass sums, formatting
// by multiplication) checked against naive reference arithmetic written out here.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { add, formatExact, formatFixed, formatScaled, isTerminating, liftF64, nearestF64, rat, sum, ZERO } from "../../src/domain/numbers";

const naiveGcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

/** Exact decimal of a reduced n/d with d = 2^a·5^b, by long division (the pre-optimisation way). */
function naiveExact(n: bigint, d: bigint): string {
  let twos = 0;
  let fives = 0;
  let rest = d;
  while (rest % 2n === 0n) [rest, twos] = [rest / 2n, twos + 1];
  while (rest % 5n === 0n) [rest, fives] = [rest / 5n, fives + 1];
  const places = Math.max(twos, fives);
  const scaled = (n * 10n ** BigInt(places)) / d;
  const neg = scaled < 0n;
  let s = (neg ? -scaled : scaled).toString().padStart(places + 1, "0");
  if (places > 0) s = `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`.replace(/0+$/, "").replace(/\.$/, "");
  return s === "0" ? s : (neg ? "-" : "") + s;
}

const ints = fc.oneof(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.bigInt({ min: -(2n ** 1200n), max: 2n ** 1200n }));
const dyadicDecimal = fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 80 })).map(([a, b]) => 2n ** BigInt(a) * 5n ** BigInt(b));
const anyDen = fc.oneof(
  dyadicDecimal,
  dyadicDecimal.map((d) => d * 3n),
  fc.bigInt({ min: 1n, max: 2n ** 400n }),
);

describe("fast paths agree with naive arithmetic", () => {
  test("rat() is fully reduced with a positive denominator", () => {
    fc.assert(
      fc.property(ints, anyDen, fc.integer({ min: 0, max: 200 }), (n, d, shift) => {
        const r = rat(n << BigInt(shift), d << BigInt(shift));
        expect(r.d > 0n).toBe(true);
        expect(naiveGcd(r.n, r.d) === 1n || r.n === 0n).toBe(true);
        expect(r.n * d).toBe(n * r.d);
      }),
    );
  });

  test("formatExact matches long division; isTerminating matches the denominator's factors", () => {
    fc.assert(
      fc.property(ints, dyadicDecimal, (n, d) => {
        const r = rat(n, d);
        expect(isTerminating(r)).toBe(true);
        expect(formatExact(r)).toBe(naiveExact(r.n, r.d));
        expect(isTerminating(rat(1n, d * 7n))).toBe(false);
      }),
    );
  });

  test("liftF64 is exact and reduced", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const r = liftF64(x);
        expect(naiveGcd(r.n, r.d) === 1n || r.n === 0n).toBe(true);
        // Exact: a dyadic rational that rounds back to x itself (Number(n) / Number(d) would
        // overflow for tiny x, so compare through the independent nearest-f64 rounding).
        expect((r.d & (r.d - 1n)) === 0n).toBe(true);
        expect(nearestF64(r) === x).toBe(true);
      }),
    );
  });

  test("sum equals repeated add, for decimal and other denominators alike", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(ints, anyDen), { maxLength: 25 }), (xs) => {
        const rs = xs.map(([n, d]) => rat(n, d));
        expect(sum(rs)).toEqual(rs.reduce(add, ZERO));
      }),
    );
  });

  test("formatScaled(k, p) is formatFixed(k / 10^p, p)", () => {
    fc.assert(
      fc.property(ints, fc.integer({ min: 0, max: 20 }), (k, p) => {
        expect(formatScaled(k, p)).toBe(formatFixed(rat(k, 10n ** BigInt(p)), p));
      }),
    );
  });
});
