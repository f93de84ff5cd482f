// The `transaction_changes` observations (docs/lots.md#what-the-sync-stores): one owner's part of
// a transaction in which its balance of a followed Scaled UI mint changed, as the sync read it.
// Written with the sync's other observations (store.ts), once per signature × owner, never
// changed; read back by the lots' derivation (read/lot-inputs.ts).
import { canonicalJson } from "../domain/evidence.ts";
import type { OwnerTransactionChanges } from "../domain/lots/owner-changes.ts";
import type { Sql } from "./sql/port.ts";

interface Row { signature: string; owner: string; slot: number; block_time: number; signers: string; lamports: string | null; tokens: string }

/** The stored text of a part's tokens: canonical JSON, raw amounts as decimal strings. */
export const tokensText = (p: OwnerTransactionChanges): string =>
  canonicalJson(p.tokens.map((t) => ({ mint: t.mint, decimals: t.decimals, preRaw: t.preRaw.toString(), postRaw: t.postRaw.toString() })));

/** Stores each part not stored yet (the first sync that fetched the transaction wrote it); returns how many were new. */
export async function storeTransactionChanges(tx: Sql, parts: readonly OwnerTransactionChanges[]): Promise<number> {
  const insert = `INSERT INTO transaction_changes (signature, owner, slot, block_time, signers, lamports, tokens) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
  let added = 0;
  for (const p of parts) {
    const r = await tx.run(insert, p.signature, p.owner, p.slot, Math.floor(p.at / 1000), JSON.stringify(p.signers), p.lamports === null ? null : p.lamports.toString(), tokensText(p));
    added += r.changes;
  }
  return added;
}

/** Every stored part of these owners' transactions. */
export async function readTransactionChanges(tx: Sql, owners: readonly string[]): Promise<OwnerTransactionChanges[]> {
  const rows = await tx.all<Row>(
    `SELECT signature, owner, slot, block_time, signers, lamports, tokens FROM transaction_changes WHERE owner IN (SELECT value FROM json_each(?1)) ORDER BY owner, signature`,
    JSON.stringify(owners),
  );
  return rows.map(partFromRow);
}

export function partFromRow(r: Row): OwnerTransactionChanges {
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
