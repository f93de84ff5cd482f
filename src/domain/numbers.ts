// Exact arithmetic for quantities, multipliers and money. Every f64 multiplier read from chain
// is a dyadic rational and is lifted exactly; issuer decimal strings are parsed exactly. No JS
// float ever holds a quantity or a USD amount.

/** A rational n/d, always reduced, d > 0. */
export interface Rat {
  n: bigint;
  d: bigint;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint | number, d: bigint | number = 1n): Rat {
  let nn = BigInt(n);
  let dd = BigInt(d);
  if (dd === 0n) throw new RangeError("rational with zero denominator");
  if (dd < 0n) {
    nn = -nn;
    dd = -dd;
  }
  return reduce(nn, dd);
}

/**
 * Reduce n/d (d > 0). Ledger denominators are almost always 2^a·5^b (f64 lifts times decimal
 * scales), where the gcd is found by stripping twos and fives, much faster than Euclid on BigInts.
 */
function reduce(n: bigint, d: bigint): Rat {
  if (d === 1n) return { n, d };
  if (n === 0n) return { n: 0n, d: 1n };
  const an = abs(n);
  const dTwos = bitLength(d & -d) - 1;
  let rest = d >> BigInt(dTwos);
  let dFives = 0;
  while (dFives < 64 && rest % 5n === 0n) {
    rest /= 5n;
    dFives++;
  }
  if (rest !== 1n) {
    const g = gcd(an, d);
    return g > 1n ? { n: n / g, d: d / g } : { n, d };
  }
  const k = BigInt(Math.min(bitLength(an & -an) - 1, dTwos));
  let nn = n >> k; // exact: 2^k divides n
  let dd = d >> k;
  for (let i = 0; i < dFives && nn % 5n === 0n; i++) {
    nn /= 5n;
    dd /= 5n;
  }
  return { n: nn, d: dd };
}

export const ZERO: Rat = { n: 0n, d: 1n };
export const ONE: Rat = { n: 1n, d: 1n };

export const add = (a: Rat, b: Rat): Rat => (a.d === b.d ? rat(a.n + b.n, a.d) : rat(a.n * b.d + b.n * a.d, a.d * b.d));
export const sub = (a: Rat, b: Rat): Rat => (a.d === b.d ? rat(a.n - b.n, a.d) : rat(a.n * b.d - b.n * a.d, a.d * b.d));
export const mul = (a: Rat, b: Rat): Rat => rat(a.n * b.n, a.d * b.d);
export const neg = (a: Rat): Rat => ({ n: -a.n, d: a.d });
export function div(a: Rat, b: Rat): Rat {
  if (b.n === 0n) throw new RangeError("division by zero");
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
export const pow10 = (k: number): bigint => 10n ** BigInt(k);
export const sum = (xs: Rat[]): Rat => xs.reduce(add, ZERO);

/** Exact value of an f64 as a rational (every finite f64 is m·2^e). */
export function liftF64(x: number): Rat {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite f64: ${x}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  // Subnormals have no implicit leading 1 and a fixed exponent of -1074.
  const mant = expBits === 0 ? frac : frac | (1n << 52n);
  const e = (expBits === 0 ? 1 : expBits) - 1075;
  let r = e >= 0 ? rat(mant << BigInt(e)) : rat(mant, 1n << BigInt(-e));
  if (negative) r = neg(r);
  return r;
}

function bitLength(x: bigint): number {
  if (x === 0n) return 0;
  const hex = (x < 0n ? -x : x).toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0]!, 16)));
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
function orderedBits(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const b = view.getBigInt64(0);
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

/** Powers of 2 and 5 in d, and what is left (trailing zero bits counted in one step). */
function twosAndFives(d: bigint): { twos: number; fives: number; rest: bigint } {
  const low = d & -d; // the largest power of two dividing d
  const twos = bitLength(low) - 1;
  let rest = d >> BigInt(twos);
  let fives = 0;
  while (rest % 5n === 0n) {
    rest /= 5n;
    fives++;
  }
  return { twos, fives, rest };
}

/** True when r has a finite decimal expansion (denominator 2^a·5^b). */
export function isTerminating(r: Rat): boolean {
  return twosAndFives(r.d).rest === 1n;
}

function placesNeeded(r: Rat): number {
  const { twos, fives } = twosAndFives(r.d);
  return Math.max(twos, fives);
}

function digitsOf(scaled: bigint, places: number): string {
  const negative = scaled < 0n;
  const s = abs(scaled).toString().padStart(places + 1, "0");
  const body = places === 0 ? s : `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`;
  return (negative ? "-" : "") + body;
}

function trimZeros(s: string): string {
  if (!s.includes(".")) return s === "-0" ? "0" : s;
  const t = s.replace(/0+$/, "").replace(/\.$/, "");
  return t === "-0" ? "0" : t;
}

/** Round to `places` decimals, ties to even (the display rounding). */
export function roundHalfEven(r: Rat, places: number): Rat {
  const scale = pow10(places);
  const n = r.n * scale;
  const q = roundHalfEvenInt(abs(n), r.d);
  return rat(n < 0n ? -q : q, scale);
}

/** Fixed decimals, ties to even, zeros kept: formatFixed(1/3, 4) = "0.3333". */
export function formatFixed(r: Rat, places: number): string {
  const rounded = roundHalfEven(r, places);
  return digitsOf((rounded.n * pow10(places)) / rounded.d, places);
}

/** Exact decimal string of a terminating rational, trailing zeros trimmed. Throws otherwise. */
export function formatExact(r: Rat): string {
  if (!isTerminating(r)) throw new RangeError("rational has no finite decimal expansion");
  const places = placesNeeded(r);
  return trimZeros(digitsOf((r.n * pow10(places)) / r.d, places));
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
