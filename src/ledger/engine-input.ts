// Loads what the pure engine needs from the stored observations: for the whole ledger (verify),
// or scoped to some wallets and the mints they touch (incremental booking). A wallet's books
// depend on every mint it ever held and on nothing of other wallets; a mint's context depends on
// its updates, state, instrument and issuer records only. So a scoped load gives, for the wallets
// and mints in scope, exactly what a whole-ledger load would.
import { listedByIssuerFeed } from "../domain/observations.ts";
import type { EngineInput, EngineWallet } from "../domain/types.ts";
import { groupBy } from "../domain/group.ts";
import type { Sql } from "./sql/port.ts";
import { balanceChangeFromRow, balanceChangeSql } from "./tables/balance-changes.ts";
import { instrumentFromRow, instrumentSql } from "./tables/instruments.ts";
import { issuerRevisionSql, revisionFromRow } from "./tables/issuer-revisions.ts";
import { mintStateFromRow, mintStateSql } from "./tables/mint-states.ts";
import { multiplierUpdateSql, updateFromRow } from "./tables/multiplier-updates.ts";
import { ownerSql } from "./tables/owners.ts";
import { tokenAccountFromRow, tokenAccountSql } from "./tables/token-accounts.ts";
import { transitionSeenSql } from "./tables/transitions-seen.ts";
import { walletGapSql } from "./tables/wallet-gaps.ts";

export interface EngineScope {
  /** Wallets to book. */
  owners: string[];
  /** Mints to load beyond the ones those wallets touch (a mint booked on its own). */
  mints?: string[];
}

/** The stored observations in scope (the whole ledger without one), as the engine's input. */
export async function loadEngineInput(db: Sql, now: Date, scope?: EngineScope): Promise<EngineInput> {
  const owners = scope ? scope.owners : (await db.all(ownerSql.all)).map((r) => r.owner);
  const wallets = await loadWallets(db, owners);
  let mints: string[] | null = null;
  if (scope) {
    const set = new Set(scope.mints ?? []);
    for (const w of wallets) {
      for (const a of w.accounts) set.add(a.mint);
      for (const c of w.balanceChanges) set.add(c.mint);
    }
    mints = [...set].sort();
  }
  return { now: Math.floor(now.getTime() / 1000), ...(await loadMints(db, mints)), wallets };
}

// Lists travel as one JSON parameter: no limit on their length, one prepared statement each.
async function loadWallets(db: Sql, owners: string[]): Promise<EngineWallet[]> {
  const accounts = groupBy(await db.all(tokenAccountSql.ofOwners, { owners }), (r) => r.owner);
  const changes = groupBy(await db.all(balanceChangeSql.ofOwners, { owners }), (r) => r.owner);
  const gaps = groupBy(await db.all(walletGapSql.ofOwners, { owners }), (r) => r.owner);
  return [...owners].sort().map((owner) => ({
    owner,
    accounts: (accounts.get(owner) ?? []).map(tokenAccountFromRow),
    balanceChanges: (changes.get(owner) ?? []).map(balanceChangeFromRow),
    gaps: (gaps.get(owner) ?? []).map((g) => `${g.address}: ${g.reason}`),
  }));
}

/** Everything mint-level: instruments, latest states, updates, issuer revisions, first sightings. */
async function loadMints(db: Sql, mints: string[] | null): Promise<Omit<EngineInput, "now" | "wallets">> {
  // Two statements per read: the whole ledger without a filter, or the list of mints (an OR of
  // the two would keep SQLite from using the mint indexes).
  const instruments = (await (mints === null ? db.all(instrumentSql.forEngine) : db.all(instrumentSql.forEngineOf, { mints }))).map(instrumentFromRow);
  const mintStates = (await (mints === null ? db.all(mintStateSql.forEngine) : db.all(mintStateSql.forEngineOf, { mints }))).map(mintStateFromRow);
  const multiplierUpdates = (await (mints === null ? db.all(multiplierUpdateSql.forEngine) : db.all(multiplierUpdateSql.forEngineOf, { mints }))).map(updateFromRow);
  // The feed's revisions reach a mint through the symbol of an instrument the feed lists, an
  // operator's through the mint it names; a whole-ledger load also takes the ones that reach no
  // instrument (the engine names them as rejections).
  const revisionRows =
    mints === null ? await db.all(issuerRevisionSql.forEngine) : await db.all(issuerRevisionSql.forEngineOf, { feedSymbols: instruments.filter(listedByIssuerFeed).map((i) => i.symbol), mints });
  const issuerRevisions = revisionRows.map(revisionFromRow);
  const seen = await (mints === null ? db.all(transitionSeenSql.all) : db.all(transitionSeenSql.ofMints, { mints }));
  const firstObservedActive = Object.fromEntries(seen.map((r) => [r.key, r.first_observed_active_at]));
  return { instruments, mintStates, multiplierUpdates, issuerRevisions, firstObservedActive };
}
