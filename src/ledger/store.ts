// Writes observations. Every write is idempotent (INSERT … ON CONFLICT DO NOTHING on natural
// keys) and runs in one IMMEDIATE transaction, so a crash mid-sync leaves either all or none of
// a batch, and running the same batch twice records nothing new. The same transaction marks
// what the new observations touch as dirty (see dirty.ts): the wallets whose history changed and
// the mints whose multiplier history, state, issuer records or instrument changed.
import type { Database } from "bun:sqlite";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { BalanceChangeObs, InstrumentObs, IssuerRecord, MintStateObs, MultiplierUpdateObs, OperatorRecord, TokenAccountObs } from "../domain/observations.ts";
import type { WalkCursor } from "../sources/solana/signatures.ts";
import { markDirty } from "./dirty.ts";
import { sealRows } from "./seals.ts";

/** A walk cursor as stored: `scope` is a tenant id for token accounts, "*" for authorities. */
export interface StoredCursor { scope: string; address: string; cursor: WalkCursor }

export interface ObservationBatch {
  instruments?: InstrumentObs[];
  issuerRecords?: IssuerRecord[];
  /** Records an operator imported (source `operator`), each naming its mint. */
  operatorRecords?: OperatorRecord[];
  issuerRejections?: { source: string; payload: unknown; reason: string }[];
  mintStates?: MintStateObs[];
  multiplierUpdates?: MultiplierUpdateObs[];
  tokenAccounts?: TokenAccountObs[];
  balanceChanges?: BalanceChangeObs[];
  cursors?: StoredCursor[];
  /** Wallet transactions scanned for the wallet's token accounts (what they named is in this batch). */
  ownerScans?: { owner: string; signatures: string[] };
  gaps?: { owner: string; address: string; reason: string }[];
  /** Addresses whose gap is healed by this batch (history read in full). */
  clearedGaps?: { owner: string; address: string }[];
}

export interface StoreResult {
  issuerRevisionsAdded: number;
  editedRevisions: number;
  multiplierUpdatesAdded: number;
  balanceChangesAdded: number;
  mintStatesChanged: number;
  /** Wallets and mints this batch marked dirty. */
  dirtyWallets: number;
  dirtyMints: number;
}

export function storeObservations(sqlite: Database, batch: ObservationBatch, now = new Date()): StoreResult {
  const at = now.toISOString();
  const result: StoreResult = { issuerRevisionsAdded: 0, editedRevisions: 0, multiplierUpdatesAdded: 0, balanceChangesAdded: 0, mintStatesChanged: 0, dirtyWallets: 0, dirtyMints: 0 };
  const wallets = new Set<string>();
  const mints = new Set<string>();
  sqlite.transaction(() => {
    for (const mint of storeInstruments(sqlite, batch.instruments ?? [], at)) mints.add(mint);
    for (const [records, source] of [[batch.issuerRecords ?? [], "xstocks"], [batch.operatorRecords ?? [], "operator"]] as const) {
      const revisions = storeIssuerRecords(sqlite, records, source, at);
      result.issuerRevisionsAdded += revisions.added;
      result.editedRevisions += revisions.edited;
      for (const mint of revisions.mints) mints.add(mint);
    }
    storeRejections(sqlite, batch.issuerRejections ?? [], at);

    const states = storeMintStates(sqlite, batch.mintStates ?? []);
    result.mintStatesChanged = states.length;
    for (const mint of states) mints.add(mint);
    const updates = storeMultiplierUpdates(sqlite, batch.multiplierUpdates ?? []);
    result.multiplierUpdatesAdded = updates.length;
    for (const mint of updates) mints.add(mint);

    for (const owner of storeTokenAccounts(sqlite, batch.tokenAccounts ?? [])) wallets.add(owner);
    const changes = storeBalanceChanges(sqlite, batch.balanceChanges ?? []);
    result.balanceChangesAdded = changes.length;
    for (const owner of changes) wallets.add(owner);

    storeCursors(sqlite, batch.cursors ?? [], at);
    storeOwnerScans(sqlite, batch.ownerScans);
    for (const owner of storeGaps(sqlite, batch.gaps ?? [], batch.clearedGaps ?? [], at)) wallets.add(owner);

    result.dirtyWallets = markDirty(sqlite, "wallet", wallets, at);
    result.dirtyMints = markDirty(sqlite, "mint", mints, at);
    sealRows(sqlite); // last: seals the rows this transaction wrote
  }).immediate();
  return result;
}

/**
 * Upserts instruments; returns the mints whose row changed. The issuer feed's row replaces a
 * token-metadata one; a token-metadata row never replaces the feed's.
 */
function storeInstruments(sqlite: Database, instruments: InstrumentObs[], at: string): string[] {
  const upsert = sqlite.query(
    `INSERT INTO instruments (mint, symbol, name, underlying, isin, decimals, updated_at, source, uri) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, underlying = coalesce(excluded.underlying, underlying),
     isin = coalesce(excluded.isin, isin), decimals = coalesce(excluded.decimals, decimals), updated_at = excluded.updated_at,
     source = excluded.source, uri = excluded.uri
     WHERE (excluded.source = 'xstocks' OR instruments.source = 'token-metadata')
       AND (symbol IS NOT excluded.symbol OR name IS NOT excluded.name OR underlying IS NOT coalesce(excluded.underlying, underlying)
        OR isin IS NOT coalesce(excluded.isin, isin) OR decimals IS NOT coalesce(excluded.decimals, decimals)
        OR instruments.source IS NOT excluded.source OR uri IS NOT excluded.uri)`,
  );
  return instruments
    .filter((i) => upsert.run(i.mint, i.symbol, i.name, i.underlying, i.isin, i.decimals, at, i.source ?? "xstocks", i.uri ?? null).changes > 0)
    .map((i) => i.mint);
}

/**
 * Stores each revision not seen before, hashed (the record as given: an operator's with its
 * mint). The same (eventId, version) with other content is an edit made without a new version:
 * kept beside the first, flagged, never dropped. Returns the mints the new revisions speak of:
 * an operator record's own, the feed's through the feed's instrument list.
 */
function storeIssuerRecords(sqlite: Database, records: (IssuerRecord | OperatorRecord)[], source: "xstocks" | "operator", at: string) {
  const known = sqlite.query("SELECT payload_sha256 FROM issuer_revisions WHERE event_id = ? AND version = ?");
  const insert = sqlite.query(
    `INSERT INTO issuer_revisions (event_id, version, symbol, payload, payload_sha256, edited, ingested_at, source, mint)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const mintOf = sqlite.query("SELECT mint FROM instruments WHERE symbol = ? AND source = 'xstocks'");
  const out = { added: 0, edited: 0, mints: new Set<string>() };
  for (const r of records) {
    const payload = canonicalJson(r);
    const hash = sha256Hex(payload);
    const prior = known.all(r.eventId, r.version) as { payload_sha256: string }[];
    if (prior.some((p) => p.payload_sha256 === hash)) continue;
    const edited = prior.length > 0;
    const mint = source === "operator" ? (r as OperatorRecord).mint : null;
    insert.run(r.eventId, r.version, r.xstockSymbol, payload, hash, edited ? 1 : 0, at, source, mint);
    out.added++;
    if (edited) out.edited++;
    if (mint) out.mints.add(mint);
    else for (const m of mintOf.all(r.xstockSymbol) as { mint: string }[]) out.mints.add(m.mint);
  }
  return out;
}

function storeRejections(sqlite: Database, rejections: NonNullable<ObservationBatch["issuerRejections"]>, at: string): void {
  const insert = sqlite.query("INSERT INTO issuer_rejections (source, payload, reason, received_at) VALUES (?, ?, ?, ?)");
  for (const r of rejections) insert.run(r.source, canonicalJson(r.payload ?? null), r.reason, at);
}

/**
 * A mint state is stored when it differs from the latest one stored (the mint poll reads every
 * followed mint every few minutes; an unchanged state is not a new observation). Returns the
 * mints whose state changed.
 */
function storeMintStates(sqlite: Database, states: MintStateObs[]): string[] {
  const latest = sqlite.query("SELECT slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts FROM mint_states WHERE mint = ? ORDER BY slot DESC LIMIT 1");
  const insert = sqlite.query(
    `INSERT INTO mint_states (mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const changed: string[] = [];
  for (const s of states) {
    const prev = latest.get(s.mint) as { slot: number; decimals: number; authority: string | null; multiplier: string; new_multiplier: string; new_multiplier_effective_ts: number } | null;
    if (prev && prev.slot >= s.slot) continue;
    const same = prev && prev.decimals === s.decimals && prev.authority === s.multiplierAuthority && prev.multiplier === String(s.multiplier)
      && prev.new_multiplier === String(s.newMultiplier) && prev.new_multiplier_effective_ts === s.newMultiplierEffectiveTimestamp;
    if (same) continue;
    if (insert.run(s.mint, s.slot, s.decimals, s.multiplierAuthority, String(s.multiplier), String(s.newMultiplier), s.newMultiplierEffectiveTimestamp, s.observedAt).changes > 0) changed.push(s.mint);
  }
  return changed;
}

/** Returns the mint of every update stored for the first time. */
function storeMultiplierUpdates(sqlite: Database, updates: MultiplierUpdateObs[]): string[] {
  const insert = sqlite.query(
    "INSERT INTO multiplier_updates (signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  return updates.filter((u) => insert.run(u.signature, u.ixIndex, u.mint, u.slot, u.blockTime, String(u.multiplier), u.effectiveTimestamp, u.authority).changes > 0).map((u) => u.mint);
}

/** Upserts token accounts; returns the owners whose account is new or whose balance changed. */
function storeTokenAccounts(sqlite: Database, accounts: TokenAccountObs[]): string[] {
  const current = sqlite.query("SELECT raw_balance FROM token_accounts WHERE address = ?");
  const upsert = sqlite.query(
    `INSERT INTO token_accounts (address, owner, mint, raw_balance, slot) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(address) DO UPDATE SET raw_balance = excluded.raw_balance, slot = excluded.slot WHERE excluded.slot >= slot`,
  );
  const owners: string[] = [];
  for (const a of accounts) {
    const before = current.get(a.tokenAccount) as { raw_balance: string } | null;
    const applied = upsert.run(a.tokenAccount, a.owner, a.mint, a.rawBalance.toString(), a.slot).changes > 0;
    if (applied && before?.raw_balance !== a.rawBalance.toString()) owners.push(a.owner);
  }
  return owners;
}

/** Returns the owner of every balance change stored for the first time. */
function storeBalanceChanges(sqlite: Database, changes: BalanceChangeObs[]): string[] {
  const insert = sqlite.query(
    `INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);
  return changes
    .filter((b) => insert.run(b.signature, b.tokenAccount, b.owner, b.mint, b.slot, b.blockTime, b.preRaw.toString(), b.postRaw.toString(), flag(b.ownerSigned), flag(b.byPermanentDelegate)).changes > 0)
    .map((b) => b.owner);
}

function storeCursors(sqlite: Database, cursors: StoredCursor[], at: string): void {
  const upsert = sqlite.query(
    `INSERT INTO walk_cursors (scope, address, newest_signature, newest_slot, resume_before, resume_until, resume_newest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(scope, address) DO UPDATE SET newest_signature = excluded.newest_signature, newest_slot = excluded.newest_slot, resume_before = excluded.resume_before,
       resume_until = excluded.resume_until, resume_newest = excluded.resume_newest, updated_at = excluded.updated_at`,
  );
  for (const { scope, address, cursor } of cursors) {
    upsert.run(scope, address, cursor.newest, cursor.newestSlot ?? null, cursor.resume?.before ?? null, cursor.resume?.until ?? null, cursor.resume?.newest ?? null, at);
  }
}

function storeOwnerScans(sqlite: Database, scans: ObservationBatch["ownerScans"]): void {
  if (!scans?.signatures.length) return;
  sqlite.query("INSERT INTO owner_scans (owner, signature) SELECT ?1, value FROM json_each(?2) WHERE true ON CONFLICT DO NOTHING").run(scans.owner, JSON.stringify(scans.signatures));
}

/** Which of these wallet transactions an earlier sync scanned for the wallet's token accounts. */
export function scannedOf(sqlite: Database, owner: string) {
  const q = sqlite.query("SELECT signature FROM owner_scans WHERE owner = ?1 AND signature IN (SELECT value FROM json_each(?2))");
  return (signatures: string[]): Set<string> =>
    new Set(signatures.length ? (q.all(owner, JSON.stringify(signatures)) as { signature: string }[]).map((r) => r.signature) : []);
}

/** Records and heals named gaps; returns the owners whose gaps changed (a position's status reads them). */
function storeGaps(sqlite: Database, gaps: NonNullable<ObservationBatch["gaps"]>, cleared: NonNullable<ObservationBatch["clearedGaps"]>, at: string): string[] {
  const owners: string[] = [];
  const clear = sqlite.query("DELETE FROM wallet_gaps WHERE owner = ? AND address = ?");
  for (const g of cleared) if (clear.run(g.owner, g.address).changes > 0) owners.push(g.owner);
  const reason = sqlite.query("SELECT reason FROM wallet_gaps WHERE owner = ? AND address = ?");
  const upsert = sqlite.query("INSERT INTO wallet_gaps (owner, address, reason, recorded_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET reason = excluded.reason, recorded_at = excluded.recorded_at");
  for (const g of gaps) {
    const before = reason.get(g.owner, g.address) as { reason: string } | null;
    upsert.run(g.owner, g.address, g.reason, at);
    if (before?.reason !== g.reason) owners.push(g.owner);
  }
  return owners;
}

/** The stored walk cursors of `scope` for these addresses (absent: never walked in that scope). */
export function readCursors(sqlite: Database, scope: string, addresses: string[]): Record<string, WalkCursor> {
  const q = sqlite.query("SELECT newest_signature, newest_slot, resume_before, resume_until, resume_newest FROM walk_cursors WHERE scope = ? AND address = ?");
  const out: Record<string, WalkCursor> = {};
  for (const address of addresses) {
    const r = q.get(scope, address) as { newest_signature: string | null; newest_slot: number | null; resume_before: string | null; resume_until: string | null; resume_newest: string | null } | null;
    if (!r) continue;
    out[address] = {
      newest: r.newest_signature,
      ...(r.newest_slot === null ? {} : { newestSlot: r.newest_slot }),
      resume: r.resume_before && r.resume_newest ? { before: r.resume_before, until: r.resume_until, newest: r.resume_newest } : null,
    };
  }
  return out;
}

export type FeedOutcome = { ok: true; degraded?: string | null } | { ok: false; error: string };

export function markFeed(sqlite: Database, name: "issuer" | "mint_poll", outcome: FeedOutcome, now = new Date()): void {
  const at = now.toISOString();
  if (outcome.ok) {
    sqlite.query(
      `INSERT INTO feed_status (name, last_success_at, degraded, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET last_success_at = excluded.last_success_at, degraded = excluded.degraded, updated_at = excluded.updated_at`,
    ).run(name, at, outcome.degraded ?? null, at);
  } else {
    sqlite.query("INSERT INTO feed_status (name, last_error_at, last_error, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET last_error_at = excluded.last_error_at, last_error = excluded.last_error, updated_at = excluded.updated_at").run(name, at, outcome.error, at);
  }
}
