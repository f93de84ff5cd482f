// Amounts for people. The ledger computes and stores exact values; what a person reads follows
// one rule (also in README, "Amounts for people"):
//
//   - USD: rounded half-even to at most 6 decimal places, trailing zeros dropped.
//   - A quantity the chain holds (a raw amount at a multiplier): exactly the string the Token-2022
//     program's AmountToUiAmount gives for a Scaled UI Amount mint (f64 product, truncated toward
//     zero, shown at the mint's decimals, trailing zeros dropped). A difference of two such
//     quantities is the difference of their strings.
//   - Any other quantity (principal, income units, averages): rounded half-even at the mint's
//     decimals, trailing zeros dropped.
//   - A total is the sum of the exact values, rounded once.
//   - The dashboard shows USD (and a report's other currency) to the cent: the exact value rounded
//     half-even to 2 places, the exact value on hover. An income breakdown shown in cents adds up
//     on the page: net, withheld and retained are each rounded so, and where all four parts are
//     known the gross shown is their sum (within 1.5 cents of the exact gross, which the hover
//     shows). The API keeps the 6-place rule.
//
// Why rounding is needed at all: a chain multiplier is an f64, and its exact value is not the
// decimal the issuer meant (10.00892302917 is stored as 10.008923029169999…). Ratios and products
// of those exact values carry the difference (a 10:1 split lifted exactly is 10.00000000000000044),
// which must not reach the holder as 30.0000000000000013 shares.
import { formatFixed, formatScaled, liftF64, neg, parseDecimal, pow10, type Rat } from "./numbers";

export const USD_PLACES = 6;

const trimZeros = (s: string): string => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);

/** Half-even at `places` decimals, trailing zeros dropped (the rounding of every figure people read). */
export const roundedText = (r: Rat, places: number): string => trimZeros(formatFixed(r, places));

/** USD a person reads: half-even at 6 decimals, trailing zeros dropped. */
export const usdForPeople = (usd: Rat): string => roundedText(usd, USD_PLACES);

/** USD inside a sentence: "$1.332461", "-$0.000253". */
export const usdInText = (usd: Rat): string => (usd.n < 0n ? `-$${usdForPeople(neg(usd))}` : `$${usdForPeople(usd)}`);

/** Cents, as the dashboard shows money: half-even at 2 places, both kept ("12.50"); never "-0.00". */
export function centsForPeople(amount: Rat): string {
  const text = formatFixed(amount, CENT_PLACES);
  return text === "-0.00" ? "0.00" : text;
}

export const CENT_PLACES = 2;

/** An income breakdown (gross = withheld + retained + net where all are known), exact. */
export interface Breakdown<T> {
  gross: T;
  withheld: T;
  retained: T;
  net: T;
}

/**
 * A breakdown in cents that adds up as shown: each part rounded by centsForPeople, and where all
 * four are known, gross is the sum of the three shown parts. Unknown stays null, never 0.00.
 */
export function centsBreakdown(b: Breakdown<Rat | null>): Breakdown<string | null> {
  const cents = (r: Rat | null) => (r === null ? null : centsForPeople(r));
  const shown = { gross: cents(b.gross), withheld: cents(b.withheld), retained: cents(b.retained), net: cents(b.net) };
  if (shown.gross === null || shown.withheld === null || shown.retained === null || shown.net === null) return shown;
  const inCents = (s: string) => BigInt(s.replace(".", ""));
  return { ...shown, gross: formatScaled(inCents(shown.withheld) + inCents(shown.retained) + inCents(shown.net), CENT_PLACES) };
}

/** The same for an exact decimal string (null stays null: unknown is never shown as 0). */
export function usdTextForPeople(exact: string | null): string | null {
  return exact === null ? null : usdForPeople(parseDecimal(exact));
}

/** A derived quantity (not raw × multiplier): half-even at the mint's decimals, trailing zeros dropped. */
export const quantityForPeople = (quantity: Rat, decimals: number): string => roundedText(quantity, decimals);

export function quantityTextForPeople(exact: string | null, decimals: number): string | null {
  return exact === null ? null : quantityForPeople(parseDecimal(exact), decimals);
}

/** 10_f64.powi(d) as compiled Rust computes it (compiler-rt's __powidf2: square and multiply in f64). */
function powi(base: number, exponent: number): number {
  // Decimals are a mint's u8; anything else (a stored row read back damaged) has no power, rather
  // than a power whose fixed-point text would run to millions of digits.
  if (!Number.isInteger(exponent) || exponent < 0 || exponent > 255) return NaN;
  let b = exponent < 0 ? -exponent : exponent;
  let a = base;
  let r = 1;
  for (;;) {
    if (b & 1) r *= a;
    b = Math.floor(b / 2);
    if (b === 0) break;
    a *= a;
  }
  return exponent < 0 ? 1 / r : r;
}

/**
 * What Token-2022's AmountToUiAmount returns for a Scaled UI Amount mint: (amount as f64) ×
 * multiplier, truncated toward zero, divided by 10^decimals in f64, printed with `decimals`
 * places (Rust prints the f64's exact value, ties to even) and trailing zeros trimmed.
 */
export function uiAmount(raw: bigint, multiplier: number, decimals: number): string {
  // Number(bigint) and Rust's `u64 as f64` both round to nearest, ties to even.
  const scaled = Math.trunc(Number(raw) * multiplier);
  const value = scaled / powi(10, decimals);
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : value > 0 ? "inf" : "-inf";
  const text = formatFixed(liftF64(value), decimals);
  const signed = Object.is(value, -0) || (value < 0 && !text.startsWith("-")) ? `-${text}` : text;
  return decimals > 0 ? trimZeros(signed) : signed;
}

const DISPLAYED = /^-?\d+(\.\d+)?$/;

/** A displayed decimal as an integer count of 10^-places (plain BigInt: no rational to reduce). */
function scaledOf(shown: string): [bigint, number] {
  const dot = shown.indexOf(".");
  return dot < 0 ? [BigInt(shown), 0] : [BigInt(shown.slice(0, dot) + shown.slice(dot + 1)), shown.length - dot - 1];
}

/** The change between two displayed quantities, as a person subtracts them: exact, on their digits. */
export function displayedChange(before: string, after: string): string {
  if (!DISPLAYED.test(before) || !DISPLAYED.test(after)) return "0";
  const [a, pa] = scaledOf(after);
  const [b, pb] = scaledOf(before);
  const places = Math.max(pa, pb);
  return trimZeros(formatScaled(a * pow10(places - pa) - b * pow10(places - pb), places));
}

const TWO_52 = 2 ** 52;

/**
 * What AmountToUiAmount shows changing for one raw balance between two multipliers: the same as
 * displayedChange(uiAmount(raw, before), uiAmount(raw, after)), cheaper. Below 2^52 units of
 * 10^-decimals the program prints k units exactly (its f64 quotient k ÷ 10^d is within half a
 * unit), so the change is the difference of the two truncated products. Every action of every
 * wallet computes one: 0.2 µs here against 1.45 µs through the two strings (500,000 actions).
 */
export function uiChange(raw: bigint, before: number, after: number, decimals: number): string {
  const from = Math.trunc(Number(raw) * before);
  const to = Math.trunc(Number(raw) * after);
  if (decimals <= 22 && Math.abs(from) < TWO_52 && Math.abs(to) < TWO_52) return trimZeros(formatScaled(BigInt(to - from), decimals));
  return displayedChange(uiAmount(raw, before, decimals), uiAmount(raw, after, decimals));
}
