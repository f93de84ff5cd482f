// One owner's part of a transaction that moved its Scaled UI balance (docs/lots.md#what-the-sync-stores).
import { canonicalJson } from "../../domain/evidence.ts";
import type { OwnerTransactionChanges } from "../../domain/lots/owner-changes.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface TransactionChangeRow {
  signature: string;
  owner: string;
  slot: number;
  block_time: number;
  signers: string;
  lamports: string | null;
  tokens: string;
}

/** The stored text of a part's tokens: canonical JSON, raw amounts as decimal strings. */
export const tokensText = (p: OwnerTransactionChanges): string =>
  canonicalJson(p.tokens.map((t) => ({ mint: t.mint, decimals: t.decimals, preRaw: t.preRaw.toString(), postRaw: t.postRaw.toString() })));

export function transactionChangeFromRow(r: TransactionChangeRow): OwnerTransactionChanges {
  const tokens = JSON.parse(r.tokens) as { mint: string; decimals: number; preRaw: string; postRaw: string }[];
  return {
    signature: r.signature,
    owner: r.owner,
    slot: r.slot,
    at: r.block_time * 1000,
    signers: JSON.parse(r.signers) as string[],
    lamports: r.lamports === null ? null : BigInt(r.lamports),
    tokens: tokens.map((t) => ({ mint: t.mint, decimals: t.decimals, preRaw: BigInt(t.preRaw), postRaw: BigInt(t.postRaw) })),
  };
}

const columns = sql`SELECT signature, owner, slot, block_time, signers, lamports, tokens FROM transaction_changes`;

export const transactionChangeSql = statements("transaction_changes", {
  insert: query<{ signature: string; owner: string; slot: number; blockTime: number; signers: string; lamports: string | null; tokens: string }>(
    (p) =>
      sql`INSERT INTO transaction_changes (signature, owner, slot, block_time, signers, lamports, tokens)
     VALUES (${p.signature}, ${p.owner}, ${p.slot}, ${p.blockTime}, ${p.signers}, ${p.lamports}, ${p.tokens}) ON CONFLICT DO NOTHING`,
  ),
  ofOwners: query<{ owners: readonly string[] }, TransactionChangeRow>((p) => sql`${columns} WHERE owner IN ${inList(p.owners)} ORDER BY owner, signature`),
  /** The owners that have parts stored (verify). */
  owners: query<Record<never, never>, { owner: string }>(() => sql`SELECT DISTINCT owner FROM transaction_changes ORDER BY owner`),
});
