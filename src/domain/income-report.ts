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

/**
 * Signed sums over a set of entries. The parts (gross, withholding, retained, net) cover only the
 * events whose net USD is known, so gross − withholding − retained = net exactly; the gross of the
 * others is kept apart (docs/income-and-tax.md#year-report).
 */
export interface Tally {
  events: number;
  unvaluedEvents: number;
  /** Sums of each part over the events whose net is known. */
  sums: Sums;
  /** Events whose net is known that lack each part: a part one of them lacks is unknown (null), never a partial sum. */
  lacking: Record<Part, number>;
  /** The gross of the events whose net is unknown, and how many of them lack one. */
  unvaluedGross: Rat;
  unvaluedLackingGross: number;
  converted: { sums: Sums; unvaluedGross: Rat; missing: number; firstMissingDay: string | null; quotes: Map<string, RateQuote> } | null;
}

export interface ReportRow extends Tally {
  month: string;
  symbol: string | null;
}
export interface IncomeReport {
  currency: string | null;
  rows: ReportRow[];
  totals: Tally;
  /** The latest day (YYYY-MM-DD) with events that stand, or null: how far a currency's rates must reach. */
  lastEventDate: string | null;
}

function newTally(conversion: Conversion | null): Tally {
  return {
    events: 0,
    unvaluedEvents: 0,
    sums: zeroSums(),
    lacking: zeroCounts(),
    unvaluedGross: ZERO,
    unvaluedLackingGross: 0,
    converted: conversion ? { sums: zeroSums(), unvaluedGross: ZERO, missing: 0, firstMissingDay: null, quotes: new Map() } : null,
  };
}

function addEntry(t: Tally, e: IncomeEntry, quote: RateQuote | null): void {
  // A reversal's amounts are already negated: amounts add as they are, counts take the sign.
  const sign = e.entryType === "reversal" ? -1 : 1;
  t.events += sign;
  const day = e.effectiveAt.slice(0, 10);
  const c = t.converted;
  if (c) {
    if (quote) c.quotes.set(day, quote);
    else {
      c.missing += sign;
      if (c.firstMissingDay === null || day < c.firstMissingDay) c.firstMissingDay = day;
    }
  }
  const inCurrency = (amount: Rat) => (c && quote ? mul(amount, quote.rate) : null);
  if (e.usd === null) {
    t.unvaluedEvents += sign;
    if (e.grossUsd === null) t.unvaluedLackingGross += sign;
    else {
      const gross = parseDecimal(e.grossUsd);
      t.unvaluedGross = add(t.unvaluedGross, gross);
      const converted = inCurrency(gross);
      if (c && converted) c.unvaluedGross = add(c.unvaluedGross, converted);
    }
    return;
  }
  for (const part of PARTS) {
    const text = e[part];
    if (text === null) {
      t.lacking[part] += sign;
      continue;
    }
    const amount = parseDecimal(text);
    t.sums[part] = add(t.sums[part], amount);
    const converted = inCurrency(amount);
    if (c && converted) c.sums[part] = add(c.sums[part], converted);
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
  const ordered = [...rows.values()].filter(stands).sort(byMonthThenSymbol);
  const days = [...standing].filter(([, events]) => events !== 0).map(([day]) => day);
  const lastEventDate = days.reduce<string | null>((last, day) => (last === null || day > last ? day : last), null);
  return { currency: conversion?.currency ?? null, rows: ordered, totals, lastEventDate };
}

/** A row whose entries all cancel out (each recognition reversed) is not shown. */
const stands = (r: Tally): boolean => r.events !== 0 || PARTS.some((p) => r.sums[p].n !== 0n) || r.unvaluedGross.n !== 0n;

function byMonthThenSymbol(a: ReportRow, b: ReportRow): number {
  if (a.month !== b.month) return a.month < b.month ? -1 : 1;
  if (a.symbol === b.symbol) return 0;
  if (a.symbol === null) return 1;
  if (b.symbol === null) return -1;
  return a.symbol < b.symbol ? -1 : 1;
}

/** Events whose net USD is known. */
const valuedEvents = (t: Tally): number => t.events - t.unvaluedEvents;

/**
 * A part's exact total over the events whose net is known; null (unknown, never 0) when there is
 * no such event or one of them lacks the part.
 */
const partTotal = (t: Tally, part: Part): Rat | null => (valuedEvents(t) > 0 && t.lacking[part] === 0 ? t.sums[part] : null);

/** The gross of the events whose net is unknown: 0 when there are none, null when one of them has no gross either. */
const unvaluedGrossTotal = (t: Tally): Rat | null => (t.unvaluedLackingGross === 0 ? t.unvaluedGross : null);

const ratesComplete = (t: Tally): boolean => t.converted !== null && t.converted.missing <= 0;

/** A converted part's exact total, or null when it is unknown or a rate is missing. */
const convertedTotal = (t: Tally, part: Part): Rat | null => (ratesComplete(t) && partTotal(t, part) !== null ? t.converted!.sums[part] : null);

const convertedUnvaluedGross = (t: Tally): Rat | null => (ratesComplete(t) && unvaluedGrossTotal(t) !== null ? t.converted!.unvaluedGross : null);

// ---- for people ------------------------------------------------------------------------------

const shownUsd = (r: Rat | null) => (r === null ? null : usdForPeople(r));
const exactUsd = (r: Rat | null) => (r === null ? null : formatExact(r));
// A converted amount is a product with a quotient of two quotes: it may not terminate.
const exactConverted = (r: Rat | null) => (r === null ? null : formatDecimal(r, 18));

/** Shown amounts (money at most 6 decimals, half-even) with the exact ones under `exact`. */
function amountsForPeople(t: Tally) {
  const shown = {} as Record<Part, string | null>;
  const exact = {} as Record<Part | "unvaluedGrossUsd", string | null>;
  for (const part of PARTS) {
    const total = partTotal(t, part);
    shown[part] = shownUsd(total);
    exact[part] = exactUsd(total);
  }
  const unvaluedGross = unvaluedGrossTotal(t);
  exact.unvaluedGrossUsd = exactUsd(unvaluedGross);
  return { events: t.events, ...shown, unvaluedEvents: t.unvaluedEvents, unvaluedGrossUsd: shownUsd(unvaluedGross), exact };
}

function convertedForPeople(t: Tally, currency: string, scope: "row" | "totals") {
  const c = t.converted!;
  const shown = {} as Record<(typeof CONVERTED_NAME)[Part], string | null>;
  const exact = {} as Record<(typeof CONVERTED_NAME)[Part] | "unvaluedGross", string | null>;
  for (const part of PARTS) {
    const total = convertedTotal(t, part);
    shown[CONVERTED_NAME[part]] = shownUsd(total);
    exact[CONVERTED_NAME[part]] = exactConverted(total);
  }
  const unvaluedGross = convertedUnvaluedGross(t);
  exact.unvaluedGross = exactConverted(unvaluedGross);
  return { currency, ...shown, unvaluedGross: shownUsd(unvaluedGross), exact, reason: missingRateReason(c.missing, c.firstMissingDay, currency, scope) };
}

export function missingRateReason(missing: number, firstDay: string | null, currency: string, scope: "row" | "totals"): string | null {
  if (missing <= 0 || firstDay === null) return null;
  const fix = "import the ECB history with `ca-ledger rates import <eurofxref-hist.csv>`";
  if (scope === "row" && missing === 1) return `No ${currency} reference rate on or before ${firstDay}; ${fix}.`;
  return `${missing} event${missing === 1 ? " has" : "s have"} no ${currency} reference rate on or before ${missing === 1 ? "its" : "their"} day (the first on ${firstDay}); ${fix}.`;
}

/** A quote used for an event's day: the rate, its ECB day and the two quotes it came from. */
export const rateForPeople = (eventDate: string, q: RateQuote) => ({ eventDate, rateDate: q.rateDate, usdPerEur: q.usdPerEur, perEur: q.perEur, rate: roundedText(q.rate, RATE_PLACES) });

/** Quotes a row used, one per event day. */
function quotesForPeople(t: Tally) {
  return [...t.converted!.quotes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([eventDate, q]) => rateForPeople(eventDate, q));
}

/** A row or the totals as reportForPeople gives them (the exact values are what combine). */
export interface ShownTally {
  events: number;
  unvaluedEvents: number;
  exact: Record<Part | "unvaluedGrossUsd", string | null>;
}

/**
 * Several rows as one (a month of the chart, across symbols), by the same rule as the report's
 * own totals: each part over the rows with an event whose net is known, unknown when one of them
 * lacks it; the gross of the events without a net, unknown when one row's is.
 */
export function combineShown(rows: ShownTally[]): ShownTally["exact"] {
  const valued = rows.filter((r) => r.events - r.unvaluedEvents > 0);
  const sum = (values: (string | null)[]) => (values.includes(null) ? null : formatExact(values.reduce<Rat>((s, v) => add(s, parseDecimal(v!)), ZERO)));
  const out = {} as ShownTally["exact"];
  for (const part of PARTS) out[part] = valued.length === 0 ? null : sum(valued.map((r) => r.exact[part]));
  out.unvaluedGrossUsd = sum(rows.map((r) => r.exact.unvaluedGrossUsd));
  return out;
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

/**
 * An income entry read under the `deferred` treatment (docs/lots.md#the-treatment-and-the-income-reports):
 * the event stands, but nothing of it is income (the reinvested amount is realized at disposal,
 * through the lots), so every part is 0; the withholding is shown apart, as information.
 */
export const deferredEntry = <E extends IncomeEntry>(e: E): E => ({ ...e, usd: "0", grossUsd: "0", withholdingTaxUsd: "0", retainedUsd: "0" });

/** The withholding of the entries, as information (the tax was withheld whatever the treatment): its exact sum rounded once, and how many events lack it. */
export function withholdingInformation(entries: Iterable<IncomeEntry>) {
  let events = 0;
  let unknownEvents = 0;
  let total = ZERO;
  for (const e of entries) {
    const sign = e.entryType === "reversal" ? -1 : 1;
    events += sign;
    if (e.withholdingTaxUsd === null) unknownEvents += sign;
    else total = add(total, parseDecimal(e.withholdingTaxUsd));
  }
  return { events, unknownEvents, withholdingTaxUsd: usdForPeople(total), exact: { withholdingTaxUsd: formatExact(total) } };
}
