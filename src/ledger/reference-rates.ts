// Reference rates in the ledger: `ca-ledger rates import` writes the ECB's history in one
// transaction (a re-import of the same file changes nothing), each quote sealed like every row
// nothing derives (seals.ts), and the year report reads USD → currency quotes for a day, falling
// back to the latest earlier ECB day (docs/income-and-tax.md#reference-rates).
import type { Conversion, RateQuote } from "../domain/income-report.ts";
import { EUR_PER_EUR, usdRate, type EcbHistory } from "../domain/reference-rates.ts";
import { formatExact, parseDecimal } from "../domain/numbers.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";

export interface RatesImport {
  days: number;
  currencies: number;
  first: string;
  last: string;
  added: number;
  changed: number;
  unchanged: number;
}

/** Stores every quote of the file; a quote already stored with the same value is left as it is. */
export async function importRates(db: Sql, history: EcbHistory, now = new Date()): Promise<RatesImport> {
  const existing = "SELECT per_eur FROM reference_rates WHERE currency = ? AND date = ?";
  const put = `INSERT INTO reference_rates (currency, date, per_eur, imported_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(currency, date) DO UPDATE SET per_eur = excluded.per_eur, imported_at = excluded.imported_at, row_sha256 = NULL`;
  const at = now.toISOString();
  const dates = history.days.map((d) => d.date).sort();
  const result: RatesImport = { days: dates.length, currencies: history.currencies.length, first: dates[0]!, last: dates[dates.length - 1]!, added: 0, changed: 0, unchanged: 0 };
  await db.write(async (tx) => {
    for (const day of history.days) {
      for (const [currency, perEur] of day.perEur) {
        const row = await tx.get<{ per_eur: string }>(existing, currency, day.date);
        if (row && row.per_eur === perEur) {
          result.unchanged++;
          continue;
        }
        await tx.run(put, currency, day.date, perEur, at);
        if (row) result.changed++;
        else result.added++;
      }
    }
    await sealRows(tx); // last: seals the quotes this import added or replaced
  });
  return result;
}

/**
 * USD → `currency` on each of `days`: the latest ECB day on or before it that quotes both the
 * dollar and the currency (for EUR, the dollar alone). Reads the primary key (currency, date)
 * backwards, once per day, before the report (pure) asks for them.
 */
export async function conversionTo(db: Sql, currency: string, days: Iterable<string>): Promise<Conversion> {
  const dollar = "SELECT date, per_eur AS usd FROM reference_rates WHERE currency = 'USD' AND date <= ? ORDER BY date DESC LIMIT 1";
  const both = `SELECT u.date AS date, u.per_eur AS usd, x.per_eur AS x FROM reference_rates u
     JOIN reference_rates x ON x.currency = ?2 AND x.date = u.date
     WHERE u.currency = 'USD' AND u.date <= ?1 ORDER BY u.date DESC LIMIT 1`;
  const quotes = new Map<string, RateQuote | null>();
  for (const day of days) {
    if (quotes.has(day)) continue;
    const row = await (currency === "EUR" ? db.get<{ date: string; usd: string }>(dollar, day) : db.get<{ date: string; usd: string; x: string }>(both, day, currency));
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
 * a month or 25 years.
 */
export async function reportCurrencies(db: Sql): Promise<ReportCurrency[]> {
  const quotedWithDollar = "EXISTS (SELECT 1 FROM reference_rates u WHERE u.currency = 'USD' AND u.date = x.date)";
  const rows = await db.all<{ currency: string; firstRateDate: string | null; lastRateDate: string | null }>(
    `WITH RECURSIVE listed(currency) AS (
       SELECT MIN(currency) FROM reference_rates
       UNION ALL
       SELECT (SELECT r.currency FROM reference_rates r WHERE r.currency > listed.currency ORDER BY r.currency LIMIT 1)
       FROM listed WHERE listed.currency IS NOT NULL)
     SELECT currency,
       (SELECT x.date FROM reference_rates x WHERE x.currency = listed.currency AND ${quotedWithDollar} ORDER BY x.date LIMIT 1) AS "firstRateDate",
       (SELECT x.date FROM reference_rates x WHERE x.currency = listed.currency AND ${quotedWithDollar} ORDER BY x.date DESC LIMIT 1) AS "lastRateDate"
     FROM listed WHERE currency IS NOT NULL`,
  );
  return rows
    .filter((r): r is ReportCurrency => r.firstRateDate !== null && r.lastRateDate !== null)
    .map((r) => (r.currency === "USD" ? { ...r, currency: "EUR" } : r))
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}
