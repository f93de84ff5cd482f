// Income per wallet × mint, summed from the journal by each booking; `updated_at` is when the row
// last changed (a booking leaves an unchanged total as it is, docs/storage.md#writing-only-what-changed).
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface IncomeTotalRow {
  owner: string;
  mint: string;
  usd: string;
  unvalued_events: number;
  updated_at: string;
}

export const incomeTotalSql = statements("income_totals", {
  /** Writes a total; one stored with the same amounts is left as it is. */
  upsert: query<{ owner: string; mint: string; usd: string; unvalued: number; at: string }>(
    (p) => sql`INSERT INTO income_totals (owner, mint, usd, unvalued_events, updated_at) VALUES (${p.owner}, ${p.mint}, ${p.usd}, ${p.unvalued}, ${p.at})
     ON CONFLICT(owner, mint) DO UPDATE SET usd = excluded.usd, unvalued_events = excluded.unvalued_events, updated_at = excluded.updated_at
     WHERE income_totals.usd IS DISTINCT FROM excluded.usd OR income_totals.unvalued_events IS DISTINCT FROM excluded.unvalued_events`,
  ),
  delete: query<{ owner: string; mint: string }>((p) => sql`DELETE FROM income_totals WHERE owner = ${p.owner} AND mint = ${p.mint}`),
  mintsOf: query<{ owner: string }, Pick<IncomeTotalRow, "mint">>((p) => sql`SELECT mint FROM income_totals WHERE owner = ${p.owner}`),
  ofOwners: query<{ owners: readonly string[] }, Omit<IncomeTotalRow, "updated_at">>((p) => sql`SELECT owner, mint, usd, unvalued_events FROM income_totals WHERE owner IN ${inList(p.owners)}`),
  all: query<Record<never, never>, Omit<IncomeTotalRow, "updated_at">>(() => sql`SELECT owner, mint, usd, unvalued_events FROM income_totals`),
});
