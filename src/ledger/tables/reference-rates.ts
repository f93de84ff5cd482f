// The ECB's euro reference rates as imported: units of a currency per euro, per business day.
// Each quote is written with its seal (../seals.ts), kept as bytes on SQLite (../sql/hash-bytes.ts).
import { hashValue } from "../sql/hash-bytes.ts";
import { inList, jsonEach, jsonText, query, sql, statements } from "../sql/statement.ts";

export interface ReferenceRateRow {
  currency: string;
  date: string;
  per_eur: string;
  imported_at: string;
  row_sha256: string | null;
}

/** A quote to store, with its seal (seals.ts). */
export interface RateWrite {
  currency: string;
  perEur: string;
  seal: string;
}

const quotedWithDollar = sql`EXISTS (SELECT 1 FROM reference_rates u WHERE u.currency = 'USD' AND u.date = x.date)`;

export const referenceRateSql = statements("reference_rates", {
  /** The stored quotes of a day, of these currencies. */
  ofDay: query<{ currencies: readonly string[]; date: string }, Pick<ReferenceRateRow, "currency" | "per_eur">>(
    (p) => sql`SELECT currency, per_eur FROM reference_rates WHERE date = ${p.date} AND currency IN ${inList(p.currencies)}`,
  ),
  /** A day's new or corrected quotes, each with its seal. */
  put: query<{ writes: readonly RateWrite[]; date: string; at: string }>(
    (p) => sql`INSERT INTO reference_rates (currency, date, per_eur, imported_at, row_sha256)
     SELECT ${jsonText(sql`value`, "currency")}, ${p.date}, ${jsonText(sql`value`, "perEur")}, ${p.at}, ${hashValue(jsonText(sql`value`, "seal"))} FROM ${jsonEach(p.writes)} WHERE true
     ON CONFLICT(currency, date) DO UPDATE SET per_eur = excluded.per_eur, imported_at = excluded.imported_at, row_sha256 = excluded.row_sha256`,
  ),
  /** The dollar's latest quote on or before a day. */
  dollarOn: query<{ day: string }, { date: string; usd: string }>((p) => sql`SELECT date, per_eur AS usd FROM reference_rates WHERE currency = 'USD' AND date <= ${p.day} ORDER BY date DESC LIMIT 1`),
  /** The latest day on or before `day` quoting both the dollar and `currency`. */
  bothOn: query<{ day: string; currency: string }, { date: string; usd: string; x: string }>(
    (p) => sql`SELECT u.date AS date, u.per_eur AS usd, x.per_eur AS x FROM reference_rates u
     JOIN reference_rates x ON x.currency = ${p.currency} AND x.date = u.date
     WHERE u.currency = 'USD' AND u.date <= ${p.day} ORDER BY u.date DESC LIMIT 1`,
  ),
  /**
   * Every currency with its first and last day quoted with the dollar, found by skipping along
   * the primary key (currency, date), one probe per currency.
   */
  currencies: query<Record<never, never>, { currency: string; firstRateDate: string | null; lastRateDate: string | null }>(
    () => sql`WITH RECURSIVE listed(currency) AS (
       SELECT MIN(currency) FROM reference_rates
       UNION ALL
       SELECT (SELECT r.currency FROM reference_rates r WHERE r.currency > listed.currency ORDER BY r.currency LIMIT 1)
       FROM listed WHERE listed.currency IS NOT NULL)
     SELECT currency,
       (SELECT x.date FROM reference_rates x WHERE x.currency = listed.currency AND ${quotedWithDollar} ORDER BY x.date LIMIT 1) AS "firstRateDate",
       (SELECT x.date FROM reference_rates x WHERE x.currency = listed.currency AND ${quotedWithDollar} ORDER BY x.date DESC LIMIT 1) AS "lastRateDate"
     FROM listed WHERE currency IS NOT NULL`,
  ),
});
