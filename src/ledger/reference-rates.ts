// Reference rates in the ledger: `ca-ledger rates import` writes the ECB's history in one
// transaction (a re-import of the same file changes nothing), and the year report reads USD →
// currency quotes for a day, falling back to the latest earlier ECB day
// (docs/income-and-tax.md#reference-rates).
import type { Database } from "bun:sqlite";
import type { Conversion, RateQuote } from "../domain/income-report.ts";
import { EUR_PER_EUR, usdRate, type EcbHistory } from "../domain/reference-rates.ts";
import { formatExact, parseDecimal } from "../domain/numbers.ts";

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
export function importRates(sqlite: Database, history: EcbHistory, now = new Date()): RatesImport {
  const existing = sqlite.query("SELECT per_eur FROM reference_rates WHERE currency = ? AND date = ?");
  const put = sqlite.query(
    `INSERT INTO reference_rates (currency, date, per_eur, imported_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(currency, date) DO UPDATE SET per_eur = excluded.per_eur, imported_at = excluded.imported_at`,
  );
  const at = now.toISOString();
  const dates = history.days.map((d) => d.date).sort();
  const result: RatesImport = { days: dates.length, currencies: history.currencies.length, first: dates[0]!, last: dates[dates.length - 1]!, added: 0, changed: 0, unchanged: 0 };
  sqlite.transaction(() => {
    for (const day of history.days) {
      for (const [currency, perEur] of day.perEur) {
        const row = existing.get(currency, day.date) as { per_eur: string } | null;
        if (row && row.per_eur === perEur) {
          result.unchanged++;
          continue;
        }
        put.run(currency, day.date, perEur, at);
        if (row) result.changed++;
        else result.added++;
      }
    }
  }).immediate();
  return result;
}

/**
 * USD → `currency` on a day: the latest ECB day on or before it that quotes both the dollar and
 * the currency (for EUR, the dollar alone). Reads the primary key (currency, date) backwards.
 */
export function conversionTo(sqlite: Database, currency: string): Conversion {
  const dollar = sqlite.query("SELECT date, per_eur AS usd FROM reference_rates WHERE currency = 'USD' AND date <= ? ORDER BY date DESC LIMIT 1");
  const both = sqlite.query(
    `SELECT u.date AS date, u.per_eur AS usd, x.per_eur AS x FROM reference_rates u
     JOIN reference_rates x ON x.currency = ?2 AND x.date = u.date
     WHERE u.currency = 'USD' AND u.date <= ?1 ORDER BY u.date DESC LIMIT 1`,
  );
  const quoteOn = (day: string): RateQuote | null => {
    const row = (currency === "EUR" ? dollar.get(day) : both.get(day, currency)) as { date: string; usd: string; x?: string } | null;
    if (!row) return null;
    const perEur = row.x === undefined ? formatExact(EUR_PER_EUR) : row.x;
    return { rateDate: row.date, usdPerEur: row.usd, perEur, rate: usdRate(parseDecimal(row.usd), parseDecimal(perEur)) };
  };
  return { currency, quoteOn };
}
