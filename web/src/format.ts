// What a person reads. Money is shown to the cent (src/domain/display.ts, the ledger's one rule:
// the exact value rounded half-even to 2 places; the exact value goes in a title, one hover away);
// an income breakdown in cents adds up as shown (display.ts centsBreakdown). Quantities are the
// server's digits as they are, only grouped. Where the page itself totals (across wallets, a month
// of the chart) it sums the exact values and rounds once with the same rule, imported, never copied.
import { centsBreakdown, centsForPeople, quantityTextForPeople, type Breakdown } from "../../src/domain/display.ts";
import { add, formatExact, formatFixed, mul, parseDecimal, rat, type Rat } from "../../src/domain/numbers.ts";

function group(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Thousands grouped; the digits are left as they are. */
function grouped(digits: string): string {
  const negative = digits.startsWith("-");
  const [integer, fraction] = (negative ? digits.slice(1) : digits).split(".");
  return `${negative ? "-" : ""}${group(integer!)}${fraction ? "." + fraction : ""}`;
}

/** An amount the server rounded, written with at least cents: "12.5" reads "12.50", "3" reads "3.00". No digit changes (the year report's CSV). */
export function centsText(shown: string): string {
  const [integer, fraction = ""] = shown.split(".");
  const digits = `${integer}.${fraction.padEnd(2, "0")}`;
  return /^-0\.0+$/.test(digits) ? digits.slice(1) : digits;
}

/** A decimal (exact, or as the server rounded it) in cents, by the ledger's rule: "1234.5678" reads "1234.57". */
export const cents = (value: string): string => centsForPeople(parseDecimal(value));

/** Cents already rounded, as dollars: "$1,234.50", "-$0.25"; unknown stays "unknown", never a guessed zero. */
export function dollarsText(cents: string | null | undefined): string {
  if (cents === null || cents === undefined) return "unknown";
  return cents.startsWith("-") ? `-$${grouped(cents.slice(1))}` : `$${grouped(cents)}`;
}

/** Cents already rounded, in another currency: "1,234.50 EUR". */
export const currencyCentsText = (cents: string, currency: string): string => `${grouped(cents)} ${currency}`;

export type Parts = Breakdown<string | null>;

/** A breakdown's exact values in cents that add up as shown (gross = withheld + retained + net where all are known). */
export function breakdownCents(exact: Parts): Parts {
  const r = (v: string | null): Rat | null => (v === null ? null : parseDecimal(v));
  return centsBreakdown({ gross: r(exact.gross), withheld: r(exact.withheld), retained: r(exact.retained), net: r(exact.net) });
}

/** A decimal the server already rounded for display (a quantity, a change of one), grouped. */
export function decimalText(shown: string): string {
  return grouped(shown);
}

/** An exact quantity the page must show itself (a total, a journal entry), rounded by the ledger's rule at the mint's decimals. */
export const quantityOfExact = (exact: string, decimals: number): string => quantityTextForPeople(exact, decimals)!;

/** "1.2300" reads "1.23", "5.000" reads "5". */
function trimFraction(fixed: string): string {
  const trimmed = fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
  return trimmed === "-0" ? "0" : trimmed;
}

/** A factor or multiplier, shortened for a table (the exact value goes in the title). */
export function factorText(value: string | null, places = 8): string {
  return value === null ? "—" : trimFraction(formatFixed(parseDecimal(value), places));
}

/** A fraction as a percentage with up to four decimals: "0.25" reads "25%". */
export function percentText(value: string): string {
  return `${trimFraction(formatFixed(mul(parseDecimal(value), rat(100n)), 4))}%`;
}

export interface Total {
  value: string | null;
  known: number;
  unknown: number;
}

/** The exact sum of the known values; null when none is known. Unknown ones are counted. */
export function sumDecimals(values: Iterable<string | null | undefined>): Total {
  let acc: Rat | null = null;
  let known = 0;
  let unknown = 0;
  for (const v of values) {
    if (v === null || v === undefined) {
      unknown++;
      continue;
    }
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
