// The European Central Bank's euro reference rates (docs/income-and-tax.md#reference-rates): the
// history file's format, and USD → X on a day. Pure and exact: a rate is a quotient of two
// published decimals, kept as a rational, never a float.
//
// The history file (eurofxref-hist.csv) is a header `Date,USD,JPY,…` and one line per business
// day, newest first, each rate in units of that currency per euro, `N/A` where the ECB published
// none (a currency that did not exist yet, or one that joined the euro). The official file ends
// every line with a comma, so the header's last column has no name; that column stays empty.
import { div, parseDecimal, ONE, type Rat } from "./numbers";
import { isDay } from "./date-range";

export interface EcbDay {
  date: string;
  /** Currency → units per euro, as published (only the currencies quoted that day). */
  perEur: Map<string, string>;
}

export interface EcbHistory {
  currencies: string[];
  days: EcbDay[];
}

/** A line of the file that cannot be read; `line` and `column` count from 1. */
export class RatesFileError extends Error {
  constructor(readonly line: number, readonly column: number | null, message: string) {
    super(`line ${line}${column === null ? "" : `, column ${column}`}: ${message}`);
    this.name = "RatesFileError";
  }
}

const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^[0-9]+(\.[0-9]+)?$/;
const GAPS = new Set(["N/A", ""]);

/** Reads the whole file or throws a RatesFileError naming the first bad line and column. */
export function parseEcbHistory(text: string): EcbHistory {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (!lines.length) throw new RatesFileError(1, null, "the file is empty; expected the header Date,USD,JPY,…");
  const currencies = parseHeader(lines[0]!);
  const seen = new Set<string>();
  const days = lines.slice(1).map((line, i) => {
    const day = parseDay(line, i + 2, currencies);
    if (seen.has(day.date)) throw new RatesFileError(i + 2, 1, `the date ${day.date} appears twice`);
    seen.add(day.date);
    return day;
  });
  if (!days.length) throw new RatesFileError(2, null, "the file has a header but no rates");
  return { currencies: currencies.filter((c): c is string => c !== null), days };
}

/** The header's currency per column (null for the official file's unnamed last column). */
function parseHeader(line: string): (string | null)[] {
  const cells = line.split(",");
  if (cells[0] !== "Date") throw new RatesFileError(1, 1, "the header must start with Date (the ECB's eurofxref-hist.csv)");
  const out: (string | null)[] = [];
  const seen = new Set<string>();
  cells.slice(1).forEach((c, i) => {
    const column = i + 2;
    if (c === "" && column === cells.length) return void out.push(null);
    if (!CURRENCY.test(c) || c === "EUR") throw new RatesFileError(1, column, "expected a three-letter currency code other than EUR");
    if (seen.has(c)) throw new RatesFileError(1, column, `the currency ${c} appears twice`);
    seen.add(c);
    out.push(c);
  });
  if (!seen.has("USD")) throw new RatesFileError(1, null, "the header has no USD column; converting USD amounts needs the dollar's rate");
  return out;
}

function parseDay(line: string, lineNo: number, currencies: (string | null)[]): EcbDay {
  const cells = line.split(",");
  if (cells.length !== currencies.length + 1) {
    throw new RatesFileError(lineNo, null, `expected ${currencies.length + 1} columns like the header, found ${cells.length}`);
  }
  const date = cells[0]!;
  if (!isDay(date)) throw new RatesFileError(lineNo, 1, "expected a date written YYYY-MM-DD");
  const perEur = new Map<string, string>();
  currencies.forEach((currency, i) => {
    const cell = cells[i + 1]!;
    if (currency === null) {
      if (cell !== "") throw new RatesFileError(lineNo, i + 2, "the header names no currency for this column, so it must be empty");
      return;
    }
    if (GAPS.has(cell)) return;
    if (!RATE.test(cell) || parseDecimal(cell).n === 0n) throw new RatesFileError(lineNo, i + 2, `${currency}: expected a positive decimal rate or N/A`);
    perEur.set(currency, cell);
  });
  return { date, perEur };
}

/**
 * Units of `currency` one US dollar buys on a day, from that day's quotes per euro:
 * (X per EUR) ÷ (USD per EUR); for EUR itself, 1 ÷ (USD per EUR).
 */
export function usdRate(usdPerEur: Rat, currencyPerEur: Rat): Rat {
  return div(currencyPerEur, usdPerEur);
}

/** The quote per euro of the euro itself. */
export const EUR_PER_EUR: Rat = ONE;
