// The wallets the ledger books: those a tenant follows, and those it holds observations of, which
// a wallet no tenant follows any more keeps (removing a wallet erases nothing, and booking a mint
// still books every wallet that held it; docs/following.md#removing-a-wallet).
import { inList, query, sql, statements } from "../sql/statement.ts";

const everyOwner = sql`SELECT owner FROM tenant_wallets UNION SELECT owner FROM token_accounts UNION SELECT owner FROM balance_changes`;

export const ownerSql = statements("owners", {
  all: query<Record<never, never>, { owner: string }>(() => sql`${everyOwner} ORDER BY owner`),
  /** Whether the ledger follows or holds any wallet at all. */
  any: query<Record<never, never>, { one: number }>(
    () => sql`SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM tenant_wallets) OR EXISTS (SELECT 1 FROM token_accounts) OR EXISTS (SELECT 1 FROM balance_changes)`,
  ),
  /** Every wallet that holds or ever held one of these mints. */
  holdersOf: query<{ mints: readonly string[] }, { owner: string }>(
    (p) => sql`SELECT owner FROM token_accounts WHERE mint IN ${inList(p.mints)} UNION SELECT owner FROM balance_changes WHERE mint IN ${inList(p.mints)}`,
  ),
  /** Every mint the ledger has observed. */
  allMints: query<Record<never, never>, { mint: string }>(
    () => sql`SELECT mint FROM token_accounts UNION SELECT mint FROM balance_changes UNION SELECT mint FROM multiplier_updates UNION SELECT mint FROM instruments`,
  ),
  /** Owners waiting to be booked: marked dirty themselves, or holding a mint that is. */
  pending: query<Record<never, never>, { owner: string }>(
    () => sql`SELECT owner FROM dirty_wallets UNION SELECT owner FROM token_accounts WHERE mint IN (SELECT mint FROM dirty_mints)
     UNION SELECT owner FROM balance_changes WHERE mint IN (SELECT mint FROM dirty_mints)`,
  ),
});
