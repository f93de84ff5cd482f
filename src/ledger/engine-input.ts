// Loads what the pure engine needs from the stored observations: for the whole ledger (verify),
// or scoped to some wallets and the mints they touch (incremental booking). A wallet's books
// depend on every mint it ever held and on nothing of other wallets; a mint's context depends on
// its updates, state, instrument and issuer records only. So a scoped load gives, for the wallets
// and mints in scope, exactly what a whole-ledger load would.
import { listedByIssuerFeed, type InstrumentObs, type IssuerRecord, type IssuerRevisionObs, type MultiplierUpdateObs, type RecordSource } from "../domain/observations.ts";
import type { EngineInput, EngineWallet } from "../domain/types.ts";
import { groupBy } from "./group.ts";
import type { Sql } from "./sql/port.ts";

export interface EngineScope {
  /** Wallets to book. */
  owners: string[];
  /** Mints to load beyond the ones those wallets touch (a mint booked on its own). */
  mints?: string[];
}

// Lists travel as one JSON parameter: no limit on their length, one prepared statement each.
const IN_LIST = "(SELECT value FROM json_each(?1))";

interface AccountRow { address: string; owner: string; mint: string; raw_balance: string; slot: number }
interface ChangeRow {
  signature: string; token_account: string; owner: string; mint: string; slot: number; block_time: number; pre_raw: string; post_raw: string;
  owner_signed: number | null; by_permanent_delegate: number | null;
}

/** A stored multiplier update, as the columns below read it. */
export const UPDATE_COLUMNS = "signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority";
export interface UpdateRow { signature: string; ix_index: number; mint: string; slot: number; block_time: number; multiplier: string; effective_ts: number; authority: string }
export const updateFromRow = (r: UpdateRow): MultiplierUpdateObs => ({
  signature: r.signature, ixIndex: r.ix_index, mint: r.mint, slot: r.slot, blockTime: r.block_time, multiplier: Number(r.multiplier), effectiveTimestamp: r.effective_ts, authority: r.authority,
});

/**
 * Every wallet the ledger books: those a tenant follows, and those it holds observations of, which
 * a wallet no tenant follows any more keeps (removing a wallet erases nothing, and booking a mint
 * still books every wallet that held it; docs/following.md#removing-a-wallet).
 */
export const LEDGER_OWNERS = "SELECT owner FROM tenant_wallets UNION SELECT owner FROM token_accounts UNION SELECT owner FROM balance_changes";

/** The stored observations in scope (the whole ledger without one), as the engine's input. */
export async function loadEngineInput(db: Sql, now: Date, scope?: EngineScope): Promise<EngineInput> {
  const owners = scope ? scope.owners : (await db.all<{ owner: string }>(`${LEDGER_OWNERS} ORDER BY owner`)).map((r) => r.owner);
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

async function loadWallets(db: Sql, owners: string[]): Promise<EngineWallet[]> {
  const list = JSON.stringify(owners);
  const accounts = groupBy(await db.all<AccountRow>(`SELECT address, owner, mint, raw_balance, slot FROM token_accounts WHERE owner IN ${IN_LIST} ORDER BY address`, list), (r) => r.owner);
  const changes = groupBy(
    await db.all<ChangeRow>(
      `SELECT signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate FROM balance_changes
       WHERE owner IN ${IN_LIST} ORDER BY slot, signature`,
      list,
    ),
    (r) => r.owner,
  );
  const gaps = groupBy(await db.all<{ owner: string; address: string; reason: string }>(`SELECT owner, address, reason FROM wallet_gaps WHERE owner IN ${IN_LIST} ORDER BY address`, list), (r) => r.owner);
  return [...owners].sort().map((owner) => ({
    owner,
    accounts: (accounts.get(owner) ?? []).map((a) => ({ owner: a.owner, tokenAccount: a.address, mint: a.mint, rawBalance: BigInt(a.raw_balance), slot: a.slot })),
    balanceChanges: (changes.get(owner) ?? []).map((c) => ({
      owner: c.owner, tokenAccount: c.token_account, mint: c.mint, signature: c.signature, slot: c.slot, blockTime: c.block_time, preRaw: BigInt(c.pre_raw), postRaw: BigInt(c.post_raw),
      ...(c.owner_signed === null ? {} : { ownerSigned: c.owner_signed === 1 }),
      ...(c.by_permanent_delegate === null ? {} : { byPermanentDelegate: c.by_permanent_delegate === 1 }),
    })),
    gaps: (gaps.get(owner) ?? []).map((g) => `${g.address}: ${g.reason}`),
  }));
}

/** Everything mint-level: instruments, latest states, updates, issuer revisions, first sightings. */
async function loadMints(db: Sql, mints: string[] | null): Promise<Omit<EngineInput, "now" | "wallets">> {
  // Two statements per read: the whole ledger without a filter, or the JSON list of mints (an OR
  // of the two would keep SQLite from using the mint indexes).
  const where = (column: string, glue = "WHERE") => (mints === null ? "" : `${glue} ${column} IN ${IN_LIST}`);
  const params = mints === null ? [] : [JSON.stringify(mints)];
  const instruments = (await db.all<InstrumentObs & { uri: string | null }>(`SELECT mint, symbol, name, underlying, isin, decimals, source, uri FROM instruments ${where("mint")} ORDER BY mint`, ...params))
    .map(({ uri, ...i }) => (i.source === "token-metadata" ? { ...i, uri } : i));
  const mintStates = (await db.all<{ mint: string; slot: number; decimals: number; authority: string | null; multiplier: string; new_multiplier: string; new_multiplier_effective_ts: number; observed_at: number }>(
    `SELECT mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at FROM mint_states s
     WHERE slot = (SELECT max(slot) FROM mint_states WHERE mint = s.mint) ${where("mint", "AND")} ORDER BY mint`,
    ...params,
  ))
    .map((r) => ({ mint: r.mint, slot: r.slot, decimals: r.decimals, multiplierAuthority: r.authority, multiplier: Number(r.multiplier), newMultiplier: Number(r.new_multiplier), newMultiplierEffectiveTimestamp: r.new_multiplier_effective_ts, observedAt: r.observed_at }));
  const multiplierUpdates = (await db.all<UpdateRow>(`SELECT ${UPDATE_COLUMNS} FROM multiplier_updates ${where("mint")} ORDER BY mint, slot, signature, ix_index`, ...params)).map(updateFromRow);
  // The feed's revisions reach a mint through the symbol of an instrument the feed lists, an
  // operator's through the mint it names; a whole-ledger load also takes the ones that reach no
  // instrument (the engine names them as rejections).
  const columns = "id, payload, payload_sha256, ingested_at, edited, source, mint";
  const scoped = `SELECT ${columns} FROM issuer_revisions WHERE source = 'xstocks' AND symbol IN (SELECT value FROM json_each(?1))
     UNION SELECT ${columns} FROM issuer_revisions WHERE mint IN (SELECT value FROM json_each(?2)) ORDER BY id`;
  type RevisionRow = { payload: string; payload_sha256: string; ingested_at: string; edited: number; source: RecordSource; mint: string | null };
  const revisionRows = mints === null
    ? await db.all<RevisionRow>(`SELECT ${columns} FROM issuer_revisions ORDER BY id`)
    : await db.all<RevisionRow>(scoped, JSON.stringify(instruments.filter(listedByIssuerFeed).map((i) => i.symbol)), JSON.stringify(mints));
  const issuerRevisions = revisionRows.map((r): IssuerRevisionObs => ({
    record: JSON.parse(r.payload) as IssuerRecord, sha256: r.payload_sha256, ingestedAt: r.ingested_at, edited: r.edited === 1,
    ...(r.source === "operator" ? { source: r.source, mint: r.mint } : {}),
  }));
  const seen = await db.all<{ key: string; first_observed_active_at: string }>(
    mints === null
      ? "SELECT key, first_observed_active_at FROM transitions_seen"
      : `SELECT s.key, s.first_observed_active_at FROM multiplier_updates u JOIN transitions_seen s ON s.key = u.mint || ':' || u.signature || ':' || u.ix_index
         WHERE u.mint IN ${IN_LIST}`,
    ...params,
  );
  const firstObservedActive = Object.fromEntries(seen.map((r) => [r.key, r.first_observed_active_at]));
  return { instruments, mintStates, multiplierUpdates, issuerRevisions, firstObservedActive };
}
