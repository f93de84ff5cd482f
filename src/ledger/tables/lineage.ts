// Each mint's lineage (identities, links, where its basis sits), derived when the mint is booked.
import { inList, query, sql, statements } from "../sql/statement.ts";

export const lineageSql = statements("lineage", {
  upsert: query<{ mint: string; payload: string; at: string }>(
    (p) => sql`INSERT INTO lineage (mint, payload, updated_at) VALUES (${p.mint}, ${p.payload}, ${p.at}) ON CONFLICT(mint) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at`,
  ),
  ofMint: query<{ mint: string }, { payload: string }>((p) => sql`SELECT payload FROM lineage WHERE mint = ${p.mint}`),
  keyedOfMints: query<{ mints: readonly string[] }, { k: string; v: string }>((p) => sql`SELECT mint AS k, payload AS v FROM lineage WHERE mint IN ${inList(p.mints)}`),
  mints: query<Record<never, never>, { mint: string }>(() => sql`SELECT mint FROM lineage`),
});
