// The year report (docs/income-and-tax.md#year-report): income per month × symbol and in total,
// summed from journal entries. Pure and exact: a reversal carries the amounts of the entry it
// reverses negated and counts −1, so the plain signed sum of the entries is what stands; amounts
// are summed as rationals and rounded once, for people, in reportForPeople.
import { add, formatDecimal, formatExact, mul, parseDecimal, ZERO, type Rat } from "./numbers";
import { roundedText, usdForPeople } from "./display";

export interface IncomeEntry {
  entryType: "recognition" | "reversal";
  /** ISO-8601 UTC time the income took effect. */
  effectiveAt: string;
  symbol: string | null;
  usd: string | null;
  grossUsd: string | null;
  withholdingTaxUsd: string | null;
  retainedUsd: string | null;
}

/** USD → one currency on a day, from the reference rates in force then. */
export interface RateQuote {
  /** The ECB day the quote is from: the event's day, else the latest earlier one published. */
  rateDate: string;
  usdPerEur: string;
  perEur: string;
  /** Units of the currency per US dollar, exact. */
  rate: Rat;
}

export interface Conversion {
  currency: string;
  /** The quote for a day (YYYY-MM-DD), or null when no rate was published on or before it. */
  quoteOn(day: string): RateQuote | null;
}

export const PARTS = ["grossUsd", "withholdingTaxUsd", "retainedUsd", "usd"] as const;
export type Part = (typeof PARTS)[number];
/** What each USD part is called once converted. */
export const CONVERTED_NAME = { grossUsd: "gross", withholdingTaxUsd: "withholdingTax", retainedUsd: "retained", usd: "net" } as const satisfies Record<Part, string>;

type Sums = Record<Part, Rat>;
const zeroSums = (): Sums => ({ grossUsd: ZERO, withholdingTaxUsd: ZERO, retainedUsd: ZERO, usd: ZERO });
const zeroCounts = (): Record<Part, number> => ({ grossUsd: 0, withholdingTaxUsd: 0, retainedUsd: 0, usd: 0 });

/** Signed sums over a set of entries. */
export interface Tally {
  events: number;
  unvaluedEvents: number;
  sums: Sums;
  /** Standing entries that carry each part: a part none carries is unknown (null), not 0. */
  carriers: Record<Part, number>;
  converted: { sums: Sums; missing: number; firstMissingDay: string | null; quotes: Map<string, RateQuote> } | null;
}

export interface ReportRow extends Tally { month: string; symbol: string | null }
export interface IncomeReport {
  currency: string | null;
  rows: ReportRow[];
  totals: Tally;
  /** The latest day (YYYY-MM-DD) with events that stand, or null: how far a currency's rates must reach. */
  lastEventDate: string | null;
}

function newTally(conversion: Conversion | null): Tally {
  return {
    events: 0, unvaluedEvents: 0, sums: zeroSums(), carriers: zeroCounts(),
    converted: conversion ? { sums: zeroSums(), missing: 0, firstMissingDay: null, quotes: new Map() } : null,
  };
}

function addEntry(t: Tally, e: IncomeEntry, quote: RateQuote | null): void {
  const sign = e.entryType === "reversal" ? -1 : 1;
  t.events += sign;
  if (e.usd === null) t.unvaluedEvents += sign;
  const day = e.effectiveAt.slice(0, 10);
  const c = t.converted;
  if (c) {
    if (quote) c.quotes.set(day, quote);
    else {
      c.missing += sign;
      if (c.firstMissingDay === null || day < c.firstMissingDay) c.firstMissingDay = day;
    }
  }
  for (const part of PARTS) {
    const text = e[part];
    if (text === null) continue;
    // A reversal's amounts are already negated: amounts add as they are, counts take the sign.
    const amount = parseDecimal(text);
    t.carriers[part] += sign;
    t.sums[part] = add(t.sums[part], amount);
    if (c && quote) c.sums[part] = add(c.sums[part], mul(amount, quote.rate));
  }
}

/** Rows per month × symbol (in that order) and the totals, from the entries of one period. */
export function incomeReport(entries: Iterable<IncomeEntry>, conversion: Conversion | null = null): IncomeReport {
  const rows = new Map<string, ReportRow>();
  const totals = newTally(conversion);
  const quotes = new Map<string, RateQuote | null>();
  const standing = new Map<string, number>();
  for (const e of entries) {
    const day = e.effectiveAt.slice(0, 10);
    standing.set(day, (standing.get(day) ?? 0) + (e.entryType === "reversal" ? -1 : 1));
    let quote: RateQuote | null = null;
    if (conversion) {
      if (!quotes.has(day)) quotes.set(day, conversion.quoteOn(day));
      quote = quotes.get(day)!;
    }
    const month = e.effectiveAt.slice(0, 7);
    const key = `${month}|${e.symbol ?? ""}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { month, symbol: e.symbol, ...newTally(conversion) }));
    addEntry(row, e, quote);
    addEntry(totals, e, quote);
  }
  const ordered = [...rows.values()].filter((r) => r.events !== 0 || PARTS.some((p) => r.carriers[p] !== 0)).sort(byMonthThenSymbol);
  const days = [...standing].filter(([, events]) => events !== 0).map(([day]) => day);
  const lastEventDate = days.reduce<string | null>((last, day) => (last === null || day > last ? day : last), null);
  return { currency: conversion?.currency ?? null, rows: ordered, totals, lastEventDate };
}

function byMonthThenSymbol(a: ReportRow, b: ReportRow): number {
  if (a.month !== b.month) return a.month < b.month ? -1 : 1;
  if (a.symbol === b.symbol) return 0;
  if (a.symbol === null) return 1;
  if (b.symbol === null) return -1;
  return a.symbol < b.symbol ? -1 : 1;
}

/** A part's exact total, or null when no standing entry carries it. */
export const partTotal = (t: Tally, part: Part): Rat | null => (t.carriers[part] > 0 ? t.sums[part] : null);

/** A converted part's exact total, or null when it is unknown or a rate is missing. */
export const convertedTotal = (t: Tally, part: Part): Rat | null =>
  t.converted && t.converted.missing <= 0 && t.carriers[part] > 0 ? t.converted.sums[part] : null;

// ---- for people ------------------------------------------------------------------------------

/** Shown amounts (money at most 6 decimals, half-even) with the exact ones under `exact`. */
function amountsForPeople(t: Tally) {
  const shown = {} as Record<Part, string | null>;
  const exact = {} as Record<Part, string | null>;
  for (const part of PARTS) {
    const total = partTotal(t, part);
    shown[part] = total === null ? null : usdForPeople(total);
    exact[part] = total === null ? null : formatExact(total);
  }
  return { events: t.events, ...shown, unvaluedEvents: t.unvaluedEvents, exact };
}

function convertedForPeople(t: Tally, currency: string, scope: "row" | "totals") {
  const c = t.converted!;
  const shown = {} as Record<(typeof CONVERTED_NAME)[Part], string | null>;
  const exact = {} as Record<(typeof CONVERTED_NAME)[Part], string | null>;
  for (const part of PARTS) {
    const total = convertedTotal(t, part);
    // A converted amount is a product with a quotient of two quotes: it may not terminate.
    shown[CONVERTED_NAME[part]] = total === null ? null : usdForPeople(total);
    exact[CONVERTED_NAME[part]] = total === null ? null : formatDecimal(total, 18);
  }
  return { currency, ...shown, exact, reason: missingRateReason(c.missing, c.firstMissingDay, currency, scope) };
}

export function missingRateReason(missing: number, firstDay: string | null, currency: string, scope: "row" | "totals"): string | null {
  if (missing <= 0 || firstDay === null) return null;
  const fix = "import the ECB history with `ca-ledger rates import <eurofxref-hist.csv>`";
  if (scope === "row" && missing === 1) return `No ${currency} reference rate on or before ${firstDay}; ${fix}.`;
  return `${missing} event${missing === 1 ? " has" : "s have"} no ${currency} reference rate on or before ${missing === 1 ? "its" : "their"} day (the first on ${firstDay}); ${fix}.`;
}

/** Quotes a row used, one per event day: the rate, its ECB day and the two quotes it came from. */
function quotesForPeople(t: Tally) {
  return [...t.converted!.quotes.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([eventDate, q]) => ({ eventDate, rateDate: q.rateDate, usdPerEur: q.usdPerEur, perEur: q.perEur, rate: roundedText(q.rate, RATE_PLACES) }));
}

/** Rates are shown at 10 decimals (half-even); the quotes they come from are exact. */
export const RATE_PLACES = 10;

export function reportForPeople(r: IncomeReport) {
  const currency = r.currency;
  return {
    currency,
    lastEventDate: r.lastEventDate,
    totals: { ...amountsForPeople(r.totals), ...(currency ? { converted: convertedForPeople(r.totals, currency, "totals") } : {}) },
    rows: r.rows.map((row) => ({
      month: row.month,
      symbol: row.symbol,
      ...amountsForPeople(row),
      ...(currency ? { converted: { ...convertedForPeople(row, currency, "row"), rates: quotesForPeople(row) } } : {}),
    })),
  };
}
