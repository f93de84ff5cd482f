// What a person reads. USD: at most six decimals, ties to even, at least cents, thousands
// grouped; unknown stays "unknown", never a guessed zero. Quantities: at the mint's decimals, ties
// to even, trailing zeros trimmed (as the token program's UI amount reads). Totals are the sum of
// the exact values, rounded once. Arithmetic is exact (the ledger's own rationals).
import { add, formatExact, formatFixed, mul, parseDecimal, rat, type Rat } from "../../src/domain/numbers.ts";

export const usdPlaces = 6;

function group(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function grouped(fixed: string): string {
  const negative = fixed.startsWith("-");
  const [integer, fraction] = (negative ? fixed.slice(1) : fixed).split(".");
  return `${negative ? "-" : ""}${group(integer!)}${fraction ? "." + fraction : ""}`;
}

/** "0.50" stays, "12.345600" becomes "12.3456": at most six places, at least two. */
export function usdDigits(value: string): string {
  const fixed = formatFixed(parseDecimal(value), usdPlaces);
  const trimmed = fixed.replace(/0{1,4}$/, "");
  const negativeZero = /^-0\.0+$/.test(trimmed);
  return negativeZero ? trimmed.slice(1) : trimmed;
}

export function usdText(value: string | null | undefined): string {
  if (value === null || value === undefined) return "unknown";
  const digits = usdDigits(value);
  return digits.startsWith("-") ? `-$${grouped(digits.slice(1))}` : `$${grouped(digits)}`;
}

/** "1.2300" reads "1.23", "5.000" reads "5". */
function trimFraction(fixed: string): string {
  const trimmed = fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
  return trimmed === "-0" ? "0" : trimmed;
}

/** A quantity at the mint's decimals, trailing zeros trimmed, thousands grouped. */
export function quantityText(value: string, decimals: number): string {
  return grouped(trimFraction(formatFixed(parseDecimal(value), decimals)));
}

/** A decimal the API already rounded for display (e.g. an action's quantityDisplay), grouped. */
export function decimalText(value: string): string {
  return grouped(trimFraction(value));
}

/** A factor or multiplier, shortened for a table (the exact value goes in the title). */
export function factorText(value: string | null, places = 8): string {
  return value === null ? "—" : trimFraction(formatFixed(parseDecimal(value), places));
}

/** A fraction as a percentage with up to four decimals: "0.25" reads "25%". */
export function percentText(value: string): string {
  return `${trimFraction(formatFixed(mul(parseDecimal(value), rat(100n)), 4))}%`;
}

export interface Total { value: string | null; known: number; unknown: number }

/** The exact sum of the known values; null when none is known. Unknown ones are counted. */
export function sumDecimals(values: Iterable<string | null | undefined>): Total {
  let acc: Rat | null = null;
  let known = 0;
  let unknown = 0;
  for (const v of values) {
    if (v === null || v === undefined) { unknown++; continue; }
    acc = acc === null ? parseDecimal(v) : add(acc, parseDecimal(v));
    known++;
  }
  return { value: acc === null ? null : formatExact(acc), known, unknown };
}

export function dateText(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : "—";
}

export function dateTimeText(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "—";
}

/** "cash_dividend" reads "Cash dividend". */
export function words(code: string): string {
  const text = code.replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A wallet or mint address shortened for a table: "HtdA6e…PWazW". */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-5)}` : address;
}
