// Writes observations. Every write is idempotent (INSERT … ON CONFLICT DO NOTHING on natural
// keys) and runs in one IMMEDIATE transaction, so a crash mid-sync leaves either all or none of
// a batch, and running the same batch twice records nothing new. The same transaction marks
// what the new observations touch as dirty (see dirty.ts): the wallets whose history changed and
// the mints whose multiplier history, state, issuer records or instrument changed.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { BalanceChangeObs, InstrumentObs, IssuerRecord, MintStateObs, MultiplierUpdateObs, OperatorRecord, TokenAccountObs } from "../domain/observations.ts";
import type { WalkCursor } from "../sources/solana/signatures.ts";
import { markDirty } from "./dirty.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";

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

export async function storeObservations(db: Sql, batch: ObservationBatch, now = new Date()): Promise<StoreResult> {
  const at = now.toISOString();
  const result: StoreResult = { issuerRevisionsAdded: 0, editedRevisions: 0, multiplierUpdatesAdded: 0, balanceChangesAdded: 0, mintStatesChanged: 0, dirtyWallets: 0, dirtyMints: 0 };
  const wallets = new Set<string>();
  const mints = new Set<string>();
  await db.write(async (tx) => {
    for (const mint of await storeInstruments(tx, batch.instruments ?? [], at)) mints.add(mint);
    for (const [records, source] of [[batch.issuerRecords ?? [], "xstocks"], [batch.operatorRecords ?? [], "operator"]] as const) {
      const revisions = await storeIssuerRecords(tx, records, source, at);
      result.issuerRevisionsAdded += revisions.added;
      result.editedRevisions += revisions.edited;
      for (const mint of revisions.mints) mints.add(mint);
    }
    await storeRejections(tx, batch.issuerRejections ?? [], at);

    const states = await storeMintStates(tx, batch.mintStates ?? []);
    result.mintStatesChanged = states.length;
    for (const mint of states) mints.add(mint);
    const updates = await storeMultiplierUpdates(tx, batch.multiplierUpdates ?? []);
    result.multiplierUpdatesAdded = updates.length;
    for (const mint of updates) mints.add(mint);

    for (const owner of await storeTokenAccounts(tx, batch.tokenAccounts ?? [])) wallets.add(owner);
    const changes = await storeBalanceChanges(tx, batch.balanceChanges ?? []);
    result.balanceChangesAdded = changes.length;
    for (const owner of changes) wallets.add(owner);

    await storeCursors(tx, batch.cursors ?? [], at);
    await storeOwnerScans(tx, batch.ownerScans);
    for (const owner of await storeGaps(tx, batch.gaps ?? [], batch.clearedGaps ?? [], at)) wallets.add(owner);

    result.dirtyWallets = await markDirty(tx, "wallet", wallets, at);
    result.dirtyMints = await markDirty(tx, "mint", mints, at);
    await sealRows(tx); // last: seals the rows this transaction wrote
  });
  return result;
}

/**
 * Upserts instruments; returns the mints whose row changed. The issuer feed's row replaces a
 * token-metadata one; a token-metadata row never replaces the feed's.
 */
async function storeInstruments(tx: Sql, instruments: InstrumentObs[], at: string): Promise<string[]> {
  const upsert = `INSERT INTO instruments (mint, symbol, name, underlying, isin, decimals, updated_at, source, uri) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, underlying = coalesce(excluded.underlying, instruments.underlying),
     isin = coalesce(excluded.isin, instruments.isin), decimals = coalesce(excluded.decimals, instruments.decimals), updated_at = excluded.updated_at,
     source = excluded.source, uri = excluded.uri
     WHERE (excluded.source = 'xstocks' OR instruments.source = 'token-metadata')
       AND (instruments.symbol IS DISTINCT FROM excluded.symbol OR instruments.name IS DISTINCT FROM excluded.name
        OR instruments.underlying IS DISTINCT FROM coalesce(excluded.underlying, instruments.underlying)
        OR instruments.isin IS DISTINCT FROM coalesce(excluded.isin, instruments.isin) OR instruments.decimals IS DISTINCT FROM coalesce(excluded.decimals, instruments.decimals)
        OR instruments.source IS DISTINCT FROM excluded.source OR instruments.uri IS DISTINCT FROM excluded.uri)`;
  const changed: string[] = [];
  for (const i of instruments) {
    if ((await tx.run(upsert, i.mint, i.symbol, i.name, i.underlying, i.isin, i.decimals, at, i.source ?? "xstocks", i.uri ?? null)).changes > 0) changed.push(i.mint);
  }
  return changed;
}

/**
 * Stores each revision not seen before, hashed (the record as given: an operator's with its
 * mint). The same (eventId, version) with other content is an edit made without a new version:
 * kept beside the first, flagged, never dropped. Returns the mints the new revisions speak of:
 * an operator record's own, the feed's through the feed's instrument list.
 */
async function storeIssuerRecords(tx: Sql, records: (IssuerRecord | OperatorRecord)[], source: "xstocks" | "operator", at: string) {
  const insert = `INSERT INTO issuer_revisions (event_id, version, symbol, payload, payload_sha256, edited, ingested_at, source, mint)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
  const out = { added: 0, edited: 0, mints: new Set<string>() };
  for (const r of records) {
    const payload = canonicalJson(r);
    const hash = sha256Hex(payload);
    const prior = await tx.all<{ payload_sha256: string }>("SELECT payload_sha256 FROM issuer_revisions WHERE event_id = ? AND version = ?", r.eventId, r.version);
    if (prior.some((p) => p.payload_sha256 === hash)) continue;
    const edited = prior.length > 0;
    const mint = source === "operator" ? (r as OperatorRecord).mint : null;
    await tx.run(insert, r.eventId, r.version, r.xstockSymbol, payload, hash, edited ? 1 : 0, at, source, mint);
    out.added++;
    if (edited) out.edited++;
    if (mint) out.mints.add(mint);
    else for (const m of await tx.all<{ mint: string }>("SELECT mint FROM instruments WHERE symbol = ? AND source = 'xstocks'", r.xstockSymbol)) out.mints.add(m.mint);
  }
  return out;
}

/** The longest rejected row kept whole, as canonical JSON (a real row is under 1 KiB). */
export const MAX_REJECTION_PAYLOAD = 16 * 1024;

/**
 * A rejected row is kept as received, up to MAX_REJECTION_PAYLOAD: a longer one (a row padded with
 * megabytes under a key the record does not have) keeps its start, its length and the SHA-256 of
 * the whole, so a feed cannot fill the ledger through its refused rows.
 */
async function storeRejections(tx: Sql, rejections: NonNullable<ObservationBatch["issuerRejections"]>, at: string): Promise<void> {
  for (const r of rejections) {
    const whole = canonicalJson(r.payload ?? null);
    const payload = whole.length <= MAX_REJECTION_PAYLOAD ? whole
      : canonicalJson({ truncated: true, length: whole.length, sha256: sha256Hex(whole), head: whole.slice(0, MAX_REJECTION_PAYLOAD) });
    await tx.run("INSERT INTO issuer_rejections (source, payload, reason, received_at) VALUES (?, ?, ?, ?)", r.source, payload, r.reason, at);
  }
}

/**
 * A mint state is stored when it differs from the latest one stored (the mint poll reads every
 * followed mint every few minutes; an unchanged state is not a new observation). Returns the
 * mints whose state changed.
 */
async function storeMintStates(tx: Sql, states: MintStateObs[]): Promise<string[]> {
  const latest = "SELECT slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts FROM mint_states WHERE mint = ? ORDER BY slot DESC LIMIT 1";
  const insert = `INSERT INTO mint_states (mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
  const changed: string[] = [];
  for (const s of states) {
    const prev = await tx.get<{ slot: number; decimals: number; authority: string | null; multiplier: string; new_multiplier: string; new_multiplier_effective_ts: number }>(latest, s.mint);
    if (prev && prev.slot >= s.slot) continue;
    const same = prev && prev.decimals === s.decimals && prev.authority === s.multiplierAuthority && prev.multiplier === String(s.multiplier)
      && prev.new_multiplier === String(s.newMultiplier) && prev.new_multiplier_effective_ts === s.newMultiplierEffectiveTimestamp;
    if (same) continue;
    if ((await tx.run(insert, s.mint, s.slot, s.decimals, s.multiplierAuthority, String(s.multiplier), String(s.newMultiplier), s.newMultiplierEffectiveTimestamp, s.observedAt)).changes > 0) changed.push(s.mint);
  }
  return changed;
}

/** Returns the mint of every update stored for the first time. */
async function storeMultiplierUpdates(tx: Sql, updates: MultiplierUpdateObs[]): Promise<string[]> {
  const insert = "INSERT INTO multiplier_updates (signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING";
  const added: string[] = [];
  for (const u of updates) {
    if ((await tx.run(insert, u.signature, u.ixIndex, u.mint, u.slot, u.blockTime, String(u.multiplier), u.effectiveTimestamp, u.authority)).changes > 0) added.push(u.mint);
  }
  return added;
}

/** Upserts token accounts; returns the owners whose account is new or whose balance changed. */
async function storeTokenAccounts(tx: Sql, accounts: TokenAccountObs[]): Promise<string[]> {
  const upsert = `INSERT INTO token_accounts (address, owner, mint, raw_balance, slot) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(address) DO UPDATE SET raw_balance = excluded.raw_balance, slot = excluded.slot WHERE excluded.slot >= token_accounts.slot`;
  const owners: string[] = [];
  for (const a of accounts) {
    const before = await tx.get<{ raw_balance: string }>("SELECT raw_balance FROM token_accounts WHERE address = ?", a.tokenAccount);
    const applied = (await tx.run(upsert, a.tokenAccount, a.owner, a.mint, a.rawBalance.toString(), a.slot)).changes > 0;
    if (applied && before?.raw_balance !== a.rawBalance.toString()) owners.push(a.owner);
  }
  return owners;
}

/** Returns the owner of every balance change stored for the first time. */
async function storeBalanceChanges(tx: Sql, changes: BalanceChangeObs[]): Promise<string[]> {
  const insert = `INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
  const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);
  const owners: string[] = [];
  for (const b of changes) {
    const stored = await tx.run(insert, b.signature, b.tokenAccount, b.owner, b.mint, b.slot, b.blockTime, b.preRaw.toString(), b.postRaw.toString(), flag(b.ownerSigned), flag(b.byPermanentDelegate));
    if (stored.changes > 0) owners.push(b.owner);
  }
  return owners;
}

async function storeCursors(tx: Sql, cursors: StoredCursor[], at: string): Promise<void> {
  const upsert = `INSERT INTO walk_cursors (scope, address, newest_signature, newest_slot, resume_before, resume_until, resume_newest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(scope, address) DO UPDATE SET newest_signature = excluded.newest_signature, newest_slot = excluded.newest_slot, resume_before = excluded.resume_before,
       resume_until = excluded.resume_until, resume_newest = excluded.resume_newest, updated_at = excluded.updated_at`;
  for (const { scope, address, cursor } of cursors) {
    await tx.run(upsert, scope, address, cursor.newest, cursor.newestSlot ?? null, cursor.resume?.before ?? null, cursor.resume?.until ?? null, cursor.resume?.newest ?? null, at);
  }
}

async function storeOwnerScans(tx: Sql, scans: ObservationBatch["ownerScans"]): Promise<void> {
  if (!scans?.signatures.length) return;
  await tx.run("INSERT INTO owner_scans (owner, signature) SELECT ?1, value FROM json_each(?2) WHERE true ON CONFLICT DO NOTHING", scans.owner, JSON.stringify(scans.signatures));
}

/** Which of these wallet transactions an earlier sync scanned for the wallet's token accounts. */
export function scannedOf(db: Sql, owner: string) {
  return async (signatures: string[]): Promise<Set<string>> => {
    if (!signatures.length) return new Set();
    const rows = await db.all<{ signature: string }>("SELECT signature FROM owner_scans WHERE owner = ?1 AND signature IN (SELECT value FROM json_each(?2))", owner, JSON.stringify(signatures));
    return new Set(rows.map((r) => r.signature));
  };
}

/** Records and heals named gaps; returns the owners whose gaps changed (a position's status reads them). */
async function storeGaps(tx: Sql, gaps: NonNullable<ObservationBatch["gaps"]>, cleared: NonNullable<ObservationBatch["clearedGaps"]>, at: string): Promise<string[]> {
  const owners: string[] = [];
  for (const g of cleared) if ((await tx.run("DELETE FROM wallet_gaps WHERE owner = ? AND address = ?", g.owner, g.address)).changes > 0) owners.push(g.owner);
  const upsert = "INSERT INTO wallet_gaps (owner, address, reason, recorded_at) VALUES (?, ?, ?, ?) ON CONFLICT(owner, address) DO UPDATE SET reason = excluded.reason, recorded_at = excluded.recorded_at";
  for (const g of gaps) {
    const before = await tx.get<{ reason: string }>("SELECT reason FROM wallet_gaps WHERE owner = ? AND address = ?", g.owner, g.address);
    await tx.run(upsert, g.owner, g.address, g.reason, at);
    if (before?.reason !== g.reason) owners.push(g.owner);
  }
  return owners;
}

/** The stored walk cursors of `scope` for these addresses (absent: never walked in that scope). */
export async function readCursors(db: Sql, scope: string, addresses: string[]): Promise<Record<string, WalkCursor>> {
  const q = "SELECT newest_signature, newest_slot, resume_before, resume_until, resume_newest FROM walk_cursors WHERE scope = ? AND address = ?";
  const out: Record<string, WalkCursor> = {};
  for (const address of addresses) {
    const r = await db.get<{ newest_signature: string | null; newest_slot: number | null; resume_before: string | null; resume_until: string | null; resume_newest: string | null }>(q, scope, address);
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

export async function markFeed(db: Sql, name: "issuer" | "mint_poll", outcome: FeedOutcome, now = new Date()): Promise<void> {
  const at = now.toISOString();
  if (outcome.ok) {
    await db.run(
      `INSERT INTO feed_status (name, last_success_at, degraded, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET last_success_at = excluded.last_success_at, degraded = excluded.degraded, updated_at = excluded.updated_at`,
      name, at, outcome.degraded ?? null, at,
    );
  } else {
    await db.run(
      "INSERT INTO feed_status (name, last_error_at, last_error, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET last_error_at = excluded.last_error_at, last_error = excluded.last_error, updated_at = excluded.updated_at",
      name, at, outcome.error, at,
    );
  }
}
