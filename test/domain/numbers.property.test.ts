// Property tests of the exact arithmetic: rationals, the f64 lift, the 4-ulp comparison and the
// decimal parse/format round trip.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  add,
  cmp,
  div,
  eq,
  formatExact,
  formatFixed,
  isTerminating,
  issuerMultiplierMatches,
  liftF64,
  mul,
  nearestF64,
  parseDecimal,
  rat,
  roundHalfEven,
  sub,
  ulpDistance,
  ZERO,
} from "../../src/domain/numbers";

const bigs = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
const nonZero = bigs.filter((x) => x !== 0n);
const rats = fc.tuple(bigs, nonZero).map(([n, d]) => rat(n, d));
const nzRats = fc.tuple(nonZero, nonZero).map(([n, d]) => rat(n, d));
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const positiveMultipliers = fc.double({ min: 1e-6, max: 1e6, noNaN: true });

describe("rationals", () => {
  test("field laws hold exactly", () => {
    fc.assert(
      fc.property(rats, rats, rats, (a, b, c) => {
        expect(eq(add(a, b), add(b, a))).toBe(true);
        expect(eq(mul(a, add(b, c)), add(mul(a, b), mul(a, c)))).toBe(true);
        expect(eq(sub(add(a, b), b), a)).toBe(true);
      }),
    );
  });
  test("division inverts multiplication; values stay reduced", () => {
    fc.assert(
      fc.property(rats, nzRats, (a, b) => {
        const q = div(mul(a, b), b);
        expect(eq(q, a)).toBe(true);
        expect(q.d > 0n).toBe(true);
      }),
    );
  });
  test("order agrees with subtraction", () => {
    fc.assert(fc.property(rats, rats, (a, b) => expect(cmp(a, b)).toBe(Math.sign(cmp(sub(a, b), ZERO)))));
  });
});

describe("f64 exact lift", () => {
  test("lift(x) converted back to the nearest f64 is x", () => {
    fc.assert(fc.property(finite, (x) => expect(nearestF64(liftF64(x)) === x).toBe(true)));
  });
  test("lift is an exact dyadic rational: denominator a power of two, and toFixed agrees digit for digit", () => {
    fc.assert(
      fc.property(positiveMultipliers, (x) => {
        const r = liftF64(x);
        expect((r.d & (r.d - 1n)) === 0n).toBe(true);
        // ES toFixed is exact; for |x| < 1e6 the expansion needs at most 100 places only if tiny,
        // so compare on values whose expansion fits.
        const s = formatExact(r);
        const places = s.includes(".") ? s.split(".")[1]!.length : 0;
        if (places <= 100) expect(x.toFixed(places)).toBe(s);
      }),
    );
  });
  test("nearestF64 agrees with the platform's correctly rounded parser on decimal strings", () => {
    const digits = fc.tuple(fc.integer({ min: 0, max: 999 }), fc.bigInt({ min: 0n, max: 10n ** 25n - 1n }), fc.integer({ min: 1, max: 25 }));
    fc.assert(
      fc.property(digits, ([i, f, len]) => {
        const s = `${i}.${f.toString().padStart(len, "0").slice(0, len)}`;
        expect(nearestF64(parseDecimal(s))).toBe(Number(s));
      }),
    );
  });
});

describe("4-ulp comparison of an issuer decimal against a chain f64", () => {
  const nextUp = (x: number, k: number): number => {
    const v = new DataView(new ArrayBuffer(8));
    v.setFloat64(0, x);
    v.setBigUint64(0, v.getBigUint64(0) + BigInt(k));
    return v.getFloat64(0);
  };
  test("within 4 ulp matches, 5 or more does not", () => {
    fc.assert(
      fc.property(positiveMultipliers, fc.integer({ min: 0, max: 12 }), (x, k) => {
        const chain = nextUp(x, k);
        const issuer = formatExact(liftF64(x));
        expect(ulpDistance(x, chain)).toBe(BigInt(k));
        expect(issuerMultiplierMatches(issuer, chain)).toBe(k <= 4);
      }),
    );
  });
  test("extra issuer digits beyond f64 precision still match (SPYx 1.002560758222989779)", () => {
    expect(issuerMultiplierMatches("1.002560758222989779", 1.0025607582229898)).toBe(true);
    expect(issuerMultiplierMatches("1.0201914454672472", 1.020191445467247)).toBe(true);
    expect(issuerMultiplierMatches("0.5111362527153565", 0.5111362527152737)).toBe(false);
  });
});

describe("decimal parse and format", () => {
  test("format then parse is the identity on terminating rationals", () => {
    const terminating = fc.tuple(bigs, fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 })).map(([n, a, b]) => rat(n, 2n ** BigInt(a) * 5n ** BigInt(b)));
    fc.assert(
      fc.property(terminating, (r) => {
        expect(isTerminating(r)).toBe(true);
        expect(eq(parseDecimal(formatExact(r)), r)).toBe(true);
      }),
    );
  });
  test("parse then format is the identity on canonical decimal strings", () => {
    const canon = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.bigInt({ min: 0n, max: 10n ** 20n })).map(([neg, i, f]) => {
      const frac = f.toString().replace(/0+$/, "");
      const s = frac ? `${i}.${frac}` : `${i}`;
      return neg && s !== "0" ? `-${s}` : s;
    });
    fc.assert(fc.property(canon, (s) => expect(formatExact(parseDecimal(s))).toBe(s)));
  });
  test("round half even: ties go to the even neighbour", () => {
    expect(formatFixed(parseDecimal("0.125"), 2)).toBe("0.12");
    expect(formatFixed(parseDecimal("0.135"), 2)).toBe("0.14");
    expect(formatFixed(parseDecimal("-2.5"), 0)).toBe("-2");
    expect(formatFixed(rat(1, 3), 4)).toBe("0.3333");
    fc.assert(
      fc.property(rats, fc.integer({ min: 0, max: 12 }), (r, p) => {
        const err = sub(roundHalfEven(r, p), r);
        const half = rat(1, 2n * 10n ** BigInt(p));
        expect(cmp(err, half) <= 0 && cmp(err, { n: -half.n, d: half.d }) >= 0).toBe(true);
      }),
    );
  });
});
