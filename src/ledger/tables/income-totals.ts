// Income per wallet × mint, summed from the journal by each booking; `updated_at` is when the
// wallet's totals last changed (a booking leaves unchanged totals as they are,
// docs/storage.md#writing-only-what-changed).
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface IncomeTotalRow {
  owner: string;
  mint: string;
  usd: string;
  unvalued_events: number;
  updated_at: string;
}

export const incomeTotalSql = statements("income_totals", {
  deleteOfOwner: query<{ owner: string }>((p) => sql`DELETE FROM income_totals WHERE owner = ${p.owner}`),
  insert: query<{ owner: string; mint: string; usd: string; unvalued: number; at: string }>(
    (p) => sql`INSERT INTO income_totals (owner, mint, usd, unvalued_events, updated_at) VALUES (${p.owner}, ${p.mint}, ${p.usd}, ${p.unvalued}, ${p.at})`,
  ),
  ofOwners: query<{ owners: readonly string[] }, Omit<IncomeTotalRow, "updated_at">>((p) => sql`SELECT owner, mint, usd, unvalued_events FROM income_totals WHERE owner IN ${inList(p.owners)}`),
  all: query<Record<never, never>, Omit<IncomeTotalRow, "updated_at">>(() => sql`SELECT owner, mint, usd, unvalued_events FROM income_totals`),
});
