// The `transaction_changes` observations (docs/lots.md#what-the-sync-stores): one owner's part of
// a transaction in which its balance of a followed Scaled UI mint changed, as the sync read it.
// Written with the sync's other observations (store.ts), once per signature × owner, never
// changed; read back by the lots' derivation (read/lot-inputs.ts).
import type { OwnerTransactionChanges } from "../domain/lots/owner-changes.ts";
import type { Sql } from "./sql/port.ts";
import { tokensText, transactionChangeFromRow, transactionChangeSql } from "./tables/transaction-changes.ts";

/** Stores each part not stored yet (the first sync that fetched the transaction wrote it); returns how many were new. */
export async function storeTransactionChanges(tx: Sql, parts: readonly OwnerTransactionChanges[]): Promise<number> {
  let added = 0;
  for (const p of parts) {
    const r = await tx.run(transactionChangeSql.insert, {
      signature: p.signature,
      owner: p.owner,
      slot: p.slot,
      blockTime: Math.floor(p.at / 1000),
      signers: JSON.stringify(p.signers),
      lamports: p.lamports === null ? null : p.lamports.toString(),
      tokens: tokensText(p),
    });
    added += r.changes;
  }
  return added;
}

/** Every stored part of these owners' transactions. */
export async function readTransactionChanges(tx: Sql, owners: readonly string[]): Promise<OwnerTransactionChanges[]> {
  return (await tx.all(transactionChangeSql.ofOwners, { owners })).map(transactionChangeFromRow);
}
