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
  constructor(
    readonly line: number,
    readonly column: number | null,
    message: string,
  ) {
    super(`line ${line}${column === null ? "" : `, column ${column}`}: ${message}`);
    this.name = "RatesFileError";
  }
}

const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^[0-9]+(\.[0-9]+)?$/;
const GAPS = new Set(["N/A", ""]);

/**
 * Every ISO 4217 code, current and withdrawn (the history file keeps columns for currencies that
 * joined the euro: CYP, SIT, TRL, …), as the runtime's Unicode CLDR data lists them.
 */
const ISO_4217 = new Set(Intl.supportedValuesOf("currency"));
/** The ECB's first euro reference rates: no day of the history is older. */
export const FIRST_ECB_DAY = "1999-01-04";
/** Digits a rate may have on each side of the point: the largest real quote (Turkish lira, 2004) had 7 before, the ECB writes at most 4 after. */
export const RATE_DIGITS = { before: 9, after: 9 } as const;

/** Reads the whole file or throws a RatesFileError naming the first bad line and column. */
export function parseEcbHistory(text: string, today: string): EcbHistory {
  const lines = text.split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (!lines.length) throw new RatesFileError(1, null, "the file is empty; expected the header Date,USD,JPY,…");
  const header = parseEcbHeader(lines[0]!);
  const day = ecbDayReader(header, today);
  const days = lines.slice(1).map((line, i) => day(line, i + 2));
  if (!days.length) throw new RatesFileError(2, null, "the file has a header but no rates");
  return { currencies: header.filter((c): c is string => c !== null), days };
}

/**
 * The file read as it streams: the header from the first line, then each day as its line arrives
 * (memory holds one line and the dates seen). Blank lines at the end are ignored; one before a
 * day is an error at its own line. Throws a RatesFileError at the first bad line.
 */
export async function readEcbHistory(lines: AsyncIterable<string>, today: string): Promise<{ currencies: string[]; days: AsyncGenerator<EcbDay> }> {
  const it = lines[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done || first.value.replace(/^\uFEFF/, "") === "") throw new RatesFileError(1, null, "the file is empty; expected the header Date,USD,JPY,…");
  const header = parseEcbHeader(first.value);
  const day = ecbDayReader(header, today);
  async function* days(): AsyncGenerator<EcbDay> {
    let lineNo = 1;
    let blank: number | null = null;
    let any = false;
    for (let next = await it.next(); !next.done; next = await it.next()) {
      lineNo++;
      if (next.value === "") {
        blank ??= lineNo;
        continue;
      }
      if (blank !== null) day("", blank); // throws: a blank line among the days
      any = true;
      yield day(next.value, lineNo);
    }
    if (!any) throw new RatesFileError(2, null, "the file has a header but no rates");
  }
  return { currencies: header.filter((c): c is string => c !== null), days: days() };
}

/** The header's currency per column (null for the official file's unnamed last column). */
function parseEcbHeader(line: string): (string | null)[] {
  const cells = line.replace(/^\uFEFF/, "").split(",");
  if (cells[0] !== "Date") throw new RatesFileError(1, 1, "the header must start with Date (the ECB's eurofxref-hist.csv)");
  const out: (string | null)[] = [];
  const seen = new Set<string>();
  cells.slice(1).forEach((c, i) => {
    const column = i + 2;
    if (c === "" && column === cells.length) return void out.push(null);
    if (!CURRENCY.test(c) || c === "EUR") throw new RatesFileError(1, column, "expected a three-letter currency code other than EUR");
    if (!ISO_4217.has(c)) throw new RatesFileError(1, column, `${c} is not an ISO 4217 currency code`);
    if (seen.has(c)) throw new RatesFileError(1, column, `the currency ${c} appears twice`);
    seen.add(c);
    out.push(c);
  });
  if (!seen.has("USD")) throw new RatesFileError(1, null, "the header has no USD column; converting USD amounts needs the dollar's rate");
  return out;
}

/** Reads one day's line after `header`; remembers the dates read, so a date given twice is an error. */
function ecbDayReader(currencies: (string | null)[], today: string): (line: string, lineNo: number) => EcbDay {
  const seen = new Set<string>();
  return (line, lineNo) => {
    const cells = line.split(",");
    if (cells.length !== currencies.length + 1) {
      throw new RatesFileError(lineNo, null, `expected ${currencies.length + 1} columns like the header, found ${cells.length}`);
    }
    const date = cells[0]!;
    if (!isDay(date)) throw new RatesFileError(lineNo, 1, "expected a date written YYYY-MM-DD");
    if (date > today) throw new RatesFileError(lineNo, 1, `the date ${date} is after today (${today}, UTC): no rate is published in advance`);
    if (date < FIRST_ECB_DAY) throw new RatesFileError(lineNo, 1, `the date ${date} is before the ECB's first euro reference rates (${FIRST_ECB_DAY})`);
    if (seen.has(date)) throw new RatesFileError(lineNo, 1, `the date ${date} appears twice`);
    seen.add(date);
    const perEur = new Map<string, string>();
    currencies.forEach((currency, i) => {
      const cell = cells[i + 1]!;
      if (currency === null) {
        if (cell !== "") throw new RatesFileError(lineNo, i + 2, "the header names no currency for this column, so it must be empty");
        return;
      }
      if (GAPS.has(cell)) return;
      if (!RATE.test(cell) || parseDecimal(cell).n === 0n) throw new RatesFileError(lineNo, i + 2, `${currency}: expected a positive decimal rate or N/A`);
      const [before, after = ""] = cell.split(".");
      if (before!.length > RATE_DIGITS.before || after.length > RATE_DIGITS.after) {
        throw new RatesFileError(
          lineNo,
          i + 2,
          `${currency}: at most ${RATE_DIGITS.before} digits before the point and ${RATE_DIGITS.after} after, got ${cell.length > 40 ? `${cell.slice(0, 40)}…` : cell}`,
        );
      }
      perEur.set(currency, cell);
    });
    return { date, perEur };
  };
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
