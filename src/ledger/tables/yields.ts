// Each wallet's yield records (stored compactly: ../yields-payload.ts); `updated_at` is when the wallet was last booked.
import { ownerPlacement, ownerRowid, placedColumn, placedValue } from "../sql/placement.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface YieldRow {
  owner: string;
  payload: string;
  updated_at: string;
}

export const yieldSql = statements("yields", {
  upsert: query<{ owner: string; payload: string; at: string }>(
    (p) =>
      sql`INSERT INTO yields (${placedColumn}owner, payload, updated_at) VALUES (${placedValue(ownerRowid("yields", p.owner))}${p.owner}, ${p.payload}, ${p.at}) ON CONFLICT(owner) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at`,
  ),
  ofOwner: query<{ owner: string }, Pick<YieldRow, "payload">>((p) => sql`SELECT payload FROM yields WHERE owner = ${p.owner}`),
  /** When each wallet was last booked. */
  bookedAt: query<Record<never, never>, Pick<YieldRow, "owner" | "updated_at">>(() => sql`SELECT owner, updated_at FROM yields`),
  keyedOfOwners: query<{ owners: readonly string[] }, { k: string; v: string }>((p) => sql`SELECT owner AS k, payload AS v FROM yields WHERE owner IN ${inList(p.owners)}`),
  /** When the ledger was last booked. */
  lastBookedAt: query<Record<never, never>, { at: string | null }>(() => sql`SELECT max(updated_at) AS at FROM yields`),
  /** Wallets booked before `before` and not waiting already, oldest first, a few hundred at a time. */
  stale: query<{ before: string }, { owner: string }>(
    (p) => sql`SELECT owner FROM yields WHERE updated_at < ${p.before} AND owner NOT IN (SELECT owner FROM dirty_wallets) ORDER BY updated_at LIMIT 500`,
  ),
  // ---- the upgrade to rows placed in key order (../upgrades.ts; SQLite's alone)
  ...ownerPlacement("yields"),
});
