// Balance changes of token accounts, each with its transaction and who signed it.
import type { BalanceChangeObs } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface BalanceChangeRow {
  signature: string;
  token_account: string;
  owner: string;
  mint: string;
  slot: number;
  block_time: number;
  pre_raw: string;
  post_raw: string;
  owner_signed: number | null;
  by_permanent_delegate: number | null;
}

export const balanceChangeFromRow = (c: BalanceChangeRow): BalanceChangeObs => ({
  owner: c.owner,
  tokenAccount: c.token_account,
  mint: c.mint,
  signature: c.signature,
  slot: c.slot,
  blockTime: c.block_time,
  preRaw: BigInt(c.pre_raw),
  postRaw: BigInt(c.post_raw),
  ...(c.owner_signed === null ? {} : { ownerSigned: c.owner_signed === 1 }),
  ...(c.by_permanent_delegate === null ? {} : { byPermanentDelegate: c.by_permanent_delegate === 1 }),
});

const changeColumns = sql`SELECT signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate FROM balance_changes`;

export const balanceChangeSql = statements("balance_changes", {
  insert: query<{
    signature: string;
    tokenAccount: string;
    owner: string;
    mint: string;
    slot: number;
    blockTime: number;
    preRaw: string;
    postRaw: string;
    ownerSigned: boolean | null;
    byPermanentDelegate: boolean | null;
  }>(
    (p) => sql`INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate)
     VALUES (${p.signature}, ${p.tokenAccount}, ${p.owner}, ${p.mint}, ${p.slot}, ${p.blockTime}, ${p.preRaw}, ${p.postRaw}, ${p.ownerSigned}, ${p.byPermanentDelegate}) ON CONFLICT DO NOTHING`,
  ),
  ofOwners: query<{ owners: readonly string[] }, BalanceChangeRow>(
    (p) => sql`${changeColumns}
       WHERE owner IN ${inList(p.owners)} ORDER BY slot, signature`,
  ),
  /** The other wallets that took part in a transaction of these wallets (the lots' linked wallets). */
  sharingWith: query<{ owners: readonly string[] }, Pick<BalanceChangeRow, "owner">>(
    (p) => sql`SELECT DISTINCT o.owner FROM balance_changes b JOIN balance_changes o ON o.signature = b.signature
     WHERE b.owner IN ${inList(p.owners)} AND o.owner NOT IN ${inList(p.owners)}`,
  ),
  /** Changes of one token account already stored, among these signatures. */
  ofAccount: query<{ tokenAccount: string; signatures: readonly string[] }, BalanceChangeRow>(
    (p) => sql`${changeColumns}
     WHERE token_account = ${p.tokenAccount} AND signature IN ${inList(p.signatures)}`,
  ),
});
