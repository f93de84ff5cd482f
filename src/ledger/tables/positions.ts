// Each wallet's positions (one row per mint) as the engine derived them at its last booking;
// `updated_at` is when the row last changed (a booking leaves an unchanged row as it is,
// docs/storage.md#writing-only-what-changed).
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface PositionRow {
  owner: string;
  mint: string;
  payload: string;
  updated_at: string;
}

export const positionSql = statements("positions", {
  /** Writes a position; one stored with the same payload is left as it is. */
  upsert: query<{ owner: string; mint: string; payload: string; at: string }>(
    (p) => sql`INSERT INTO positions (owner, mint, payload, updated_at) VALUES (${p.owner}, ${p.mint}, ${p.payload}, ${p.at})
     ON CONFLICT(owner, mint) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at WHERE positions.payload IS DISTINCT FROM excluded.payload`,
  ),
  delete: query<{ owner: string; mint: string }>((p) => sql`DELETE FROM positions WHERE owner = ${p.owner} AND mint = ${p.mint}`),
  keysOfOwners: query<{ owners: readonly string[] }, Pick<PositionRow, "owner" | "mint">>((p) => sql`SELECT owner, mint FROM positions WHERE owner IN ${inList(p.owners)}`),
  ofOwner: query<{ owner: string }, Pick<PositionRow, "payload">>((p) => sql`SELECT payload FROM positions WHERE owner = ${p.owner} ORDER BY mint`),
  ofOwners: query<{ owners: readonly string[] }, Pick<PositionRow, "owner" | "payload">>((p) => sql`SELECT owner, payload FROM positions WHERE owner IN ${inList(p.owners)} ORDER BY owner, mint`),
  /** Keyed `owner mint`, for verify's comparison with the engine. */
  keyedOfOwners: query<{ owners: readonly string[] }, { k: string; v: string }>((p) => sql`SELECT owner || ' ' || mint AS k, payload AS v FROM positions WHERE owner IN ${inList(p.owners)}`),
  owners: query<Record<never, never>, { owner: string }>(() => sql`SELECT DISTINCT owner FROM positions`),
});
