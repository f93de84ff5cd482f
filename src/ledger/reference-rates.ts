// Reference rates in the ledger: `ca-ledger rates import` writes the ECB's history in one
// transaction as it streams (a re-import of the same file changes nothing), each quote sealed like
// every row nothing derives (seals.ts), and the year report reads USD → currency quotes for a day, falling
// back to the latest earlier ECB day (docs/income-and-tax.md#reference-rates).
import type { Conversion, RateQuote } from "../domain/income-report.ts";
import { EUR_PER_EUR, usdRate, type EcbDay } from "../domain/reference-rates.ts";
import { formatExact, parseDecimal } from "../domain/numbers.ts";
import { rowSeal, sealedTables } from "./seals.ts";
import type { Sql } from "./sql/port.ts";
import { referenceRateSql, type RateWrite } from "./tables/reference-rates.ts";

export interface RatesImport {
  days: number;
  currencies: number;
  first: string;
  last: string;
  added: number;
  changed: number;
  unchanged: number;
}

/**
 * Stores every quote of the file, a day at a time as the days arrive (a streamed file is never
 * held whole), in one transaction: a bad line met on the way rolls back everything. A quote
 * already stored with the same value is left as it is; a new or corrected one is written with
 * its seal (seals.ts), so the import never re-reads what it wrote.
 */
export async function importRates(db: Sql, history: { currencies: string[]; days: Iterable<EcbDay> | AsyncIterable<EcbDay> }, now = new Date()): Promise<RatesImport> {
  const at = now.toISOString();
  const result: RatesImport = { days: 0, currencies: history.currencies.length, first: "", last: "", added: 0, changed: 0, unchanged: 0 };
  await db.write(async (tx) => {
    for await (const day of history.days) {
      result.days++;
      if (result.first === "" || day.date < result.first) result.first = day.date;
      if (day.date > result.last) result.last = day.date;
      const before = new Map((await tx.all(referenceRateSql.ofDay, { currencies: [...day.perEur.keys()], date: day.date })).map((r) => [r.currency, r.per_eur]));
      const writes: RateWrite[] = [];
      for (const [currency, perEur] of day.perEur) {
        const old = before.get(currency);
        if (old === perEur) {
          result.unchanged++;
          continue;
        }
        if (old === undefined) result.added++;
        else result.changed++;
        writes.push({ currency, perEur, seal: rowSeal(REFERENCE_RATES, { currency, date: day.date, per_eur: perEur, imported_at: at }, "") });
      }
      if (writes.length) await tx.run(referenceRateSql.put, { writes, date: day.date, at });
    }
  });
  return result;
}

const REFERENCE_RATES = sealedTables.find((t) => t.name === "reference_rates")!;

/**
 * USD → `currency` on each of `days`: the latest ECB day on or before it that quotes both the
 * dollar and the currency (for EUR, the dollar alone). Reads the primary key (currency, date)
 * backwards, once per day, before the report (pure) asks for them.
 */
export async function conversionTo(db: Sql, currency: string, days: Iterable<string>): Promise<Conversion> {
  const quotes = new Map<string, RateQuote | null>();
  for (const day of days) {
    if (quotes.has(day)) continue;
    const row = await (currency === "EUR" ? db.get(referenceRateSql.dollarOn, { day }) : db.get(referenceRateSql.bothOn, { day, currency }));
    quotes.set(day, row && quoteOf(row));
  }
  return { currency, quoteOn: (day) => quotes.get(day) ?? null };
}

function quoteOf(row: { date: string; usd: string; x?: string }): RateQuote {
  const perEur = row.x === undefined ? formatExact(EUR_PER_EUR) : row.x;
  return { rateDate: row.date, usdPerEur: row.usd, perEur, rate: usdRate(parseDecimal(row.usd), parseDecimal(perEur)) };
}

/** A currency the year report can convert into, and the ECB days that give it a rate. */
export interface ReportCurrency {
  currency: string;
  /** The first and last ECB day quoting both the currency and the dollar (for EUR: the dollar). */
  firstRateDate: string;
  lastRateDate: string;
}

/**
 * Every currency `conversionTo` can convert into, sorted. A day counts only when it quotes the
 * dollar too, so an event on any listed day converts. The dollar's own days are the euro's (a
 * euro rate needs the dollar alone), so the USD row is listed as EUR; USD itself, the ledger's
 * own currency, is not listed. The currencies are found by skipping along the primary key
 * (currency, date), one probe per currency, so the read costs the same whether the history holds
 * a month or 25 years (tables/reference-rates.ts).
 */
export async function reportCurrencies(db: Sql): Promise<ReportCurrency[]> {
  const rows = await db.all(referenceRateSql.currencies);
  return rows
    .filter((r): r is ReportCurrency => r.firstRateDate !== null && r.lastRateDate !== null)
    .map((r) => (r.currency === "USD" ? { ...r, currency: "EUR" } : r))
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}
