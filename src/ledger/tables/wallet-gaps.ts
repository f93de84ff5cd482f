// The named gaps of a wallet's history (what a sync could not read, and why).
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface WalletGapRow {
  owner: string;
  address: string;
  reason: string;
  recorded_at: string;
}

export const walletGapSql = statements("wallet_gaps", {
  delete: query<{ owner: string; address: string }>((p) => sql`DELETE FROM wallet_gaps WHERE owner = ${p.owner} AND address = ${p.address}`),
  reason: query<{ owner: string; address: string }, Pick<WalletGapRow, "reason">>((p) => sql`SELECT reason FROM wallet_gaps WHERE owner = ${p.owner} AND address = ${p.address}`),
  upsert: query<{ owner: string; address: string; reason: string; at: string }>(
    (p) =>
      sql`INSERT INTO wallet_gaps (owner, address, reason, recorded_at) VALUES (${p.owner}, ${p.address}, ${p.reason}, ${p.at}) ON CONFLICT(owner, address) DO UPDATE SET reason = excluded.reason, recorded_at = excluded.recorded_at`,
  ),
  ofOwners: query<{ owners: readonly string[] }, Omit<WalletGapRow, "recorded_at">>((p) => sql`SELECT owner, address, reason FROM wallet_gaps WHERE owner IN ${inList(p.owners)} ORDER BY address`),
});
