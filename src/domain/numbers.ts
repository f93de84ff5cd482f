// Exact arithmetic for quantities, multipliers and money. Every f64 multiplier read from chain
// is a dyadic rational and is lifted exactly; issuer decimal strings are parsed exactly. No JS
// float ever holds a quantity or a USD amount.

/** A rational n/d, always reduced, d > 0. */
export interface Rat {
  n: bigint;
  d: bigint;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

const MAX_SAFE = 0x1fffffffffffffn; // 2^53 − 1: integers up to here are exact as Numbers

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  if (a === 0n) return b;
  if (b === 0n) return a;
  // Ledger numbers carry long runs of factor two (f64 lifts are m·2^e): take them out with shifts,
  // gcd = 2^min(twos)·gcd(odd parts), which leaves Euclid only the short odd parts.
  const aTwos = trailingZeros(a);
  const bTwos = trailingZeros(b);
  if (aTwos > 0) a >>= BigInt(aTwos);
  if (bTwos > 0) b >>= BigInt(bTwos);
  const twos = Math.min(aTwos, bTwos);
  const g = euclid(a, b);
  return twos > 0 ? g << BigInt(twos) : g;
}

function euclid(a: bigint, b: bigint): bigint {
  while (b > MAX_SAFE) {
    const r = a % b;
    a = b;
    b = r;
  }
  if (b === 0n) return a;
  // Once b fits in 53 bits so does every later remainder: finish Euclid on exact Numbers,
  // several times faster than BigInt steps (f64 mantissas and decimal scales land here at once).
  let x = Number(b);
  let y = Number(a % b);
  while (y !== 0) {
    const r = x % y;
    x = y;
    y = r;
  }
  return BigInt(x);
}

export function rat(n: bigint | number, d: bigint | number = 1n): Rat {
  let nn = typeof n === "bigint" ? n : BigInt(n);
  let dd = typeof d === "bigint" ? d : BigInt(d);
  if (dd === 0n) throw new RangeError("rational with zero denominator");
  if (dd < 0n) {
    nn = -nn;
    dd = -dd;
  }
  return reduce(nn, dd);
}

// Exponent of an f64, read from its bits (the high word holds sign and exponent).
const F64_BOX = new Float64Array(1);
const F64_WORDS = new Uint32Array(F64_BOX.buffer);
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // little-endian: word 1
const TWO_32 = 2 ** 32;

/** Number of bits of |x| (0 for 0), without building a string. */
function bitLength(x: bigint): number {
  if (x < 0n) x = -x;
  if (x <= MAX_SAFE) {
    // Exact as a Number: split into 32-bit halves for clz32.
    const v = Number(x);
    return v < TWO_32 ? 32 - Math.clz32(v) : 64 - Math.clz32(Math.floor(v / TWO_32));
  }
  let bits = 0;
  // Beyond the f64 range: drop 512 bits at a time until the value fits.
  while (Number(x) === Infinity) {
    x >>= 512n;
    bits += 512;
  }
  // Number(x) lies in [2^e, 2^(e+1)); rounding may have carried x (just below 2^e) up to 2^e,
  // so the bit length is e + 1 or, after such a carry, e. One comparison tells them apart.
  F64_BOX[0] = Number(x);
  const e = ((F64_WORDS[HIGH_WORD]! >>> 20) & 0x7ff) - 1023;
  return bits + (x >= 1n << BigInt(e) ? e + 1 : e);
}

/** Number of trailing zero bits of x (x !== 0). */
const trailingZeros = (x: bigint): number => bitLength(x & -x) - 1;

// Powers of 5 (and 10) are asked for over and over with small exponents: table them.
const POW5: bigint[] = [1n];
const POW10: bigint[] = [1n];
function pow5(k: number): bigint {
  if (k > 512) return 5n ** BigInt(k);
  for (let i = POW5.length; i <= k; i++) POW5.push(POW5[i - 1]! * 5n);
  return POW5[k]!;
}
export function pow10(k: number): bigint {
  if (!Number.isInteger(k) || k < 0 || k > 512) return 10n ** BigInt(k);
  for (let i = POW10.length; i <= k; i++) POW10.push(POW10[i - 1]! * 10n);
  return POW10[k]!;
}

const LOG2_5 = Math.log2(5);

/** b when x = 5^b exactly (x odd, x > 1), else -1: 5^b has floor(b·log2 5) + 1 bits. */
function fivePower(x: bigint): number {
  const bits = bitLength(x);
  const guess = Math.round((bits - 0.5) / LOG2_5);
  // Long denominators (products of f64 mantissas) are rarely multiples of 5: one cheap test
  // saves building a large power of five for nothing.
  if (guess > 64 && x % 5n !== 0n) return -1;
  for (let b = Math.max(1, guess - 1); b <= guess + 1; b++) if (pow5(b) === x) return b;
  return -1;
}

interface DenominatorShape {
  twos: number;
  fives: number;
  /** True when d = 2^twos·5^fives exactly (a finite decimal expansion). */
  pure: boolean;
}

function analyseDenominator(d: bigint): DenominatorShape {
  const twos = trailingZeros(d);
  const rest = twos === 0 ? d : d >> BigInt(twos);
  if (rest === 1n) return { twos, fives: 0, pure: true };
  const fives = fivePower(rest);
  return fives < 0 ? { twos, fives: 0, pure: false } : { twos, fives, pure: true };
}

// A ledger sees few distinct denominators (2^52·10^8 and its kin) over and over; remembering
// their shape costs one Map lookup instead of a dozen BigInt operations. Bounded: cleared when full.
const SHAPES = new Map<bigint, DenominatorShape>();
const SHAPES_MAX = 4096;

/** Powers of 2 and 5 in d (d > 0), and whether nothing else divides it. */
function dyadicDecimal(d: bigint): DenominatorShape {
  let shape = SHAPES.get(d);
  if (shape === undefined) {
    shape = analyseDenominator(d);
    // Other denominators (quotients of mantissas) rarely come back: not worth a slot.
    if (shape.pure) {
      if (SHAPES.size >= SHAPES_MAX) SHAPES.clear();
      SHAPES.set(d, shape);
    }
  }
  return shape;
}

/**
 * Reduce n/d (d > 0). Ledger denominators are almost always 2^a·5^b (f64 lifts times decimal
 * scales): recognise that shape with a bit count and one table lookup, then cancel twos by a
 * shift and fives by one gcd with 5^b, much faster than Euclid on BigInts.
 */
function reduce(n: bigint, d: bigint): Rat {
  if (d === 1n) return { n, d };
  if (n === 0n) return { n: 0n, d: 1n };
  const { twos, fives, pure } = dyadicDecimal(d);
  // Common factors of two: a shift (d's count is known from its shape).
  let dTwos = twos;
  if (twos > 0 && (n & 1n) === 0n) {
    const k = Math.min(trailingZeros(n), twos);
    const K = BigInt(k);
    n >>= K; // exact: 2^k divides n
    d >>= K;
    dTwos -= k;
  }
  if (!pure) {
    // What is left in common is odd: Euclid on the odd parts, which are much shorter.
    const nOdd = (n & 1n) === 0n ? n >> BigInt(trailingZeros(n)) : n;
    const g = euclid(abs(nOdd), dTwos > 0 ? d >> BigInt(dTwos) : d);
    return g > 1n ? { n: n / g, d: d / g } : { n, d };
  }
  if (fives > 0 && n % 5n === 0n) {
    // gcd(n, 5^b) is the power of five both share.
    const p = pow5(fives);
    const r = n % p;
    const g = r === 0n ? p : gcd(r, p);
    n /= g;
    d /= g;
  }
  return { n, d };
}

export const ZERO: Rat = { n: 0n, d: 1n };
export const ONE: Rat = { n: 1n, d: 1n };

const isOne = (a: Rat): boolean => a.n === 1n && a.d === 1n;

// Operands are reduced with d > 0, so sums and products go straight to reduce(). Adding zero or
// multiplying by one (most scales and most principal additions) returns the other operand as is.
export function add(a: Rat, b: Rat): Rat {
  if (b.n === 0n) return a;
  if (a.n === 0n) return b;
  return a.d === b.d ? reduce(a.n + b.n, a.d) : reduce(a.n * b.d + b.n * a.d, a.d * b.d);
}
export function sub(a: Rat, b: Rat): Rat {
  if (b.n === 0n) return a;
  return a.d === b.d ? reduce(a.n - b.n, a.d) : reduce(a.n * b.d - b.n * a.d, a.d * b.d);
}
export function mul(a: Rat, b: Rat): Rat {
  if (isOne(b)) return a;
  if (isOne(a)) return b;
  return reduce(a.n * b.n, a.d * b.d);
}
export const neg = (a: Rat): Rat => ({ n: -a.n, d: a.d });
export function div(a: Rat, b: Rat): Rat {
  if (b.n === 0n) throw new RangeError("division by zero");
  if (isOne(b)) return a;
  return rat(a.n * b.d, a.d * b.n);
}
export const cmp = (a: Rat, b: Rat): number => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};
export const eq = (a: Rat, b: Rat): boolean => a.n === b.n && a.d === b.d;
export const isZero = (a: Rat): boolean => a.n === 0n;
export const sign = (a: Rat): number => (a.n < 0n ? -1 : a.n > 0n ? 1 : 0);
export const ratAbs = (a: Rat): Rat => (a.n < 0n ? neg(a) : a);

/**
 * Exact sum of many rationals. Terms with 2^a·5^b denominators (nearly all of a ledger's) are
 * accumulated as one integer over the largest such denominator, each term costing a shift and a
 * multiplication; the total is reduced once. Other terms are added one by one.
 */
export function sum(xs: Iterable<Rat>): Rat {
  const scaled: { n: bigint; shape: DenominatorShape }[] = [];
  let twos = 0;
  let fives = 0;
  let rest = ZERO;
  for (const x of xs) {
    if (x.n === 0n) continue;
    const shape = dyadicDecimal(x.d);
    if (!shape.pure) {
      rest = add(rest, x);
      continue;
    }
    scaled.push({ n: x.n, shape });
    if (shape.twos > twos) twos = shape.twos;
    if (shape.fives > fives) fives = shape.fives;
  }
  let acc = 0n;
  for (const { n, shape } of scaled) acc += (n * pow5(fives - shape.fives)) << BigInt(twos - shape.twos);
  return add(reduce(acc, pow5(fives) << BigInt(twos)), rest);
}

/** Exact value of an f64 as a rational (every finite f64 is m·2^e), built already reduced. */
export function liftF64(x: number): Rat {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite f64: ${x}`);
  F64_BOX[0] = x;
  const hi = F64_WORDS[HIGH_WORD]!;
  const lo = F64_WORDS[1 - HIGH_WORD]!;
  const expBits = (hi >>> 20) & 0x7ff;
  const frac = (hi & 0xfffff) * TWO_32 + lo; // < 2^52: exact as a Number
  // Subnormals have no implicit leading 1 and a fixed exponent of -1074.
  let mant = expBits === 0 ? frac : frac + 2 ** 52;
  let e = (expBits === 0 ? 1 : expBits) - 1075;
  if (mant === 0) return { n: 0n, d: 1n };
  // Move the mantissa's trailing zero bits into the exponent: m/2^k is then in lowest terms.
  while (e < 0 && mant % 2 === 0) {
    mant /= 2;
    e++;
  }
  const m = BigInt(mant);
  const n = e > 0 ? m << BigInt(e) : m;
  return { n: hi >>> 31 ? -n : n, d: e < 0 ? 1n << BigInt(-e) : 1n };
}

/** Round a nonnegative rational to an integer, ties to even. */
function roundHalfEvenInt(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) return q + 1n;
  return q;
}

/** The f64 nearest to an exact rational (ties to even), as IEEE 754 rounding defines it. */
export function nearestF64(r: Rat): number {
  if (r.n === 0n) return 0;
  const negative = r.n < 0n;
  const n = abs(r.n);
  const d = r.d;
  // Choose e so that n/d / 2^e lies in [2^52, 2^53).
  let e = bitLength(n) - bitLength(d) - 53;
  const scaled = (k: number): [bigint, bigint] => (k >= 0 ? [n, d << BigInt(k)] : [n << BigInt(-k), d]);
  let [sn, sd] = scaled(e);
  while (sn >= sd << 53n) [sn, sd] = scaled(++e);
  while (sn < sd << 52n) [sn, sd] = scaled(--e);
  if (e < -1074) {
    e = -1074;
    [sn, sd] = scaled(e);
  }
  let m = roundHalfEvenInt(sn, sd);
  if (m === 1n << 53n) {
    m >>= 1n;
    e += 1;
  }
  if (e > 971) return negative ? -Infinity : Infinity;
  // m < 2^53 converts exactly, and 2^e (e in [-1074, 971]) is itself an f64, so the product
  // is exact: the result m·2^e is representable by construction.
  const v = Number(m) * 2 ** e;
  return negative ? -v : v;
}

/** Position of an f64 on the ordered line of all f64 values: the ulp distance is a difference. */
const F64_AS_INT = new BigInt64Array(F64_BOX.buffer);
function orderedBits(x: number): bigint {
  F64_BOX[0] = x;
  const b = F64_AS_INT[0]!;
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b;
}

export function ulpDistance(a: number, b: number): bigint {
  return abs(orderedBits(a) - orderedBits(b));
}

/**
 * Does an issuer decimal string name the same multiplier as a chain f64? The issuer may print
 * more digits than an f64 holds: round its string to the nearest f64, then allow 4 ulp.
 */
export function issuerMultiplierMatches(issuer: string, chain: number, maxUlps = 4n): boolean {
  // The issuer usually prints the f64's own shortest round-trip form: that string parses back
  // to exactly `chain` (0 ulp), so skip the exact parse and rounding.
  if (maxUlps >= 0n && issuer === String(chain)) return true;
  const parsed = tryParseDecimal(issuer);
  if (!parsed) return false;
  return ulpDistance(nearestF64(parsed), chain) <= maxUlps;
}

const DECIMAL_RE = /^([+-]?)(\d+)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parse a decimal string exactly ("1.0201914454672472", "-0.5", "1e-3"). */
export function parseDecimal(s: string): Rat {
  const r = tryParseDecimal(s);
  if (!r) throw new SyntaxError(`not a decimal number: ${JSON.stringify(s)}`);
  return r;
}

export function tryParseDecimal(s: string | null | undefined): Rat | null {
  if (s === null || s === undefined) return null;
  const m = DECIMAL_RE.exec(s.trim());
  if (!m || (m[2] === undefined && (m[3] === undefined || m[3] === ""))) return null;
  const intPart = m[2] ?? "0";
  const fracPart = m[3] ?? "";
  const exp = m[4] ? Number.parseInt(m[4], 10) : 0;
  if (Math.abs(exp) > 10000) return null;
  let n = BigInt(intPart + fracPart);
  let d = pow10(fracPart.length);
  if (exp > 0) n *= pow10(exp);
  else if (exp < 0) d *= pow10(-exp);
  if (m[1] === "-") n = -n;
  return rat(n, d);
}

/** True when r has a finite decimal expansion (denominator 2^a·5^b). */
export function isTerminating(r: Rat): boolean {
  return dyadicDecimal(r.d).pure;
}

function digitsOf(scaled: bigint, places: number): string {
  const negative = scaled < 0n;
  const s = abs(scaled)
    .toString()
    .padStart(places + 1, "0");
  const body = places === 0 ? s : `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`;
  return (negative ? "-" : "") + body;
}

function trimZeros(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  // Only a string ending in "0" or "." after a decimal point has anything to trim.
  if ((last === 48 || last === 46) && s.includes(".")) {
    const t = s.replace(/0+$/, "").replace(/\.$/, "");
    return t === "-0" ? "0" : t;
  }
  return s === "-0" ? "0" : s;
}

/** r × 10^places rounded to an integer, ties to even. */
function roundedScaled(r: Rat, places: number): bigint {
  const n = r.n * pow10(places);
  const q = roundHalfEvenInt(abs(n), r.d);
  return n < 0n ? -q : q;
}

/** Round to `places` decimals, ties to even (the display rounding). */
export function roundHalfEven(r: Rat, places: number): Rat {
  return rat(roundedScaled(r, places), pow10(places));
}

/** k·10^-places with exactly `places` decimals (what formatFixed gives for that value). */
export const formatScaled = (k: bigint, places: number): string => digitsOf(k, places);

/** Fixed decimals, ties to even, zeros kept: formatFixed(1/3, 4) = "0.3333". */
export function formatFixed(r: Rat, places: number): string {
  return digitsOf(roundedScaled(r, places), places);
}

/** Exact decimal string of a terminating rational, trailing zeros trimmed. Throws otherwise. */
export function formatExact(r: Rat): string {
  const { twos, fives, pure } = dyadicDecimal(r.d);
  if (!pure) throw new RangeError("rational has no finite decimal expansion");
  const places = Math.max(twos, fives);
  // n·10^p / (2^a·5^b) = n·5^(p−b)·2^(p−a): a short multiplication and a shift, no long division.
  let scaled = r.n;
  if (places > fives) scaled *= pow5(places - fives);
  if (places > twos) scaled <<= BigInt(places - twos);
  return trimZeros(digitsOf(scaled, places));
}

/**
 * Exact when the expansion terminates, otherwise rounded half-even to `places` decimals (used for
 * ratios such as factors and fractions, which are quotients of two dyadic numbers).
 */
export function formatDecimal(r: Rat, places = 18): string {
  return isTerminating(r) ? formatExact(r) : trimZeros(formatFixed(r, places));
}

/** Exact decimal expansion of an f64 (always terminates). */
export const f64ToDecimal = (x: number): string => formatExact(liftF64(x));

export const fromBigInt = (x: bigint): Rat => ({ n: x, d: 1n });
export const truncToInt = (r: Rat): bigint => r.n / r.d;
