// Token accounts: owner, mint and last balance, as the chain recorded them.
import type { TokenAccountObs } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface TokenAccountRow {
  address: string;
  owner: string;
  mint: string;
  raw_balance: string;
  slot: number;
}

export const tokenAccountFromRow = (a: TokenAccountRow): TokenAccountObs => ({ owner: a.owner, tokenAccount: a.address, mint: a.mint, rawBalance: BigInt(a.raw_balance), slot: a.slot });

export const tokenAccountSql = statements("token_accounts", {
  balanceOf: query<{ address: string }, Pick<TokenAccountRow, "raw_balance">>((p) => sql`SELECT raw_balance FROM token_accounts WHERE address = ${p.address}`),
  /** A newer observation (by slot) replaces the balance. */
  upsert: query<{ address: string; owner: string; mint: string; rawBalance: string; slot: number }>(
    (p) =>
      sql`INSERT INTO token_accounts (address, owner, mint, raw_balance, slot) VALUES (${p.address}, ${p.owner}, ${p.mint}, ${p.rawBalance}, ${p.slot})
     ON CONFLICT(address) DO UPDATE SET raw_balance = excluded.raw_balance, slot = excluded.slot WHERE excluded.slot >= token_accounts.slot`,
  ),
  ofOwners: query<{ owners: readonly string[] }, TokenAccountRow>((p) => sql`SELECT address, owner, mint, raw_balance, slot FROM token_accounts WHERE owner IN ${inList(p.owners)} ORDER BY address`),
  ofOwner: query<{ owner: string }, Pick<TokenAccountRow, "address" | "mint">>((p) => sql`SELECT address, mint FROM token_accounts WHERE owner = ${p.owner}`),
  /** The mints some followed wallet holds now. */
  heldMints: query<Record<never, never>, { mint: string }>(
    () => sql`SELECT DISTINCT a.mint FROM token_accounts a WHERE a.raw_balance <> '0' AND a.owner IN (SELECT owner FROM tenant_wallets) ORDER BY a.mint`,
  ),
});
