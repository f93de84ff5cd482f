// Writes observations, and reads back what a sync needs of them (cursors, what it already has).
// Every write is idempotent (INSERT … ON CONFLICT DO NOTHING on natural
// keys) and runs in one IMMEDIATE transaction, so a crash mid-sync leaves either all or none of
// a batch, and running the same batch twice records nothing new. The same transaction marks
// what the new observations touch as dirty (see dirty.ts): the wallets whose history changed and
// the mints whose multiplier history, state, issuer records or instrument changed.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { BalanceChangeObs, InstrumentObs, IssuerRecord, MintStateObs, MultiplierUpdateObs, OperatorRecord, TokenAccountObs } from "../domain/observations.ts";
import type { WalkCursor } from "../sources/solana/signatures.ts";
import { markDirty } from "./dirty.ts";
import type { OwnerTransactionChanges } from "../domain/lots/owner-changes.ts";
import { storeTransactionChanges } from "./transaction-changes.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";
import { balanceChangeFromRow, balanceChangeSql } from "./tables/balance-changes.ts";
import { feedStatusSql } from "./tables/feed-status.ts";
import { instrumentSql } from "./tables/instruments.ts";
import { issuerRejectionSql } from "./tables/issuer-rejections.ts";
import { issuerRevisionSql } from "./tables/issuer-revisions.ts";
import { mintStateSql } from "./tables/mint-states.ts";
import { multiplierUpdateSql, updateFromRow } from "./tables/multiplier-updates.ts";
import { ownerScanSql } from "./tables/owner-scans.ts";
import { tokenAccountSql } from "./tables/token-accounts.ts";
import { cursorFromRow, walkCursorSql } from "./tables/walk-cursors.ts";
import { walletGapSql } from "./tables/wallet-gaps.ts";

/** A walk cursor as stored: `scope` is a tenant id for token accounts, "*" for authorities. */
export interface StoredCursor {
  scope: string;
  address: string;
  cursor: WalkCursor;
}

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
  /** The owner's part of each transaction in which its balance of a Scaled UI mint changed (docs/lots.md#what-the-sync-stores). */
  transactionChanges?: OwnerTransactionChanges[];
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
    for (const [records, source] of [
      [batch.issuerRecords ?? [], "xstocks"],
      [batch.operatorRecords ?? [], "operator"],
    ] as const) {
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
    // Read by the lots' derivation only (per request): nothing booked depends on them, so nothing is marked.
    await storeTransactionChanges(tx, batch.transactionChanges ?? []);

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
  const changed: string[] = [];
  for (const i of instruments) {
    const row = { mint: i.mint, symbol: i.symbol, name: i.name, underlying: i.underlying, isin: i.isin, decimals: i.decimals, at, source: i.source ?? "xstocks", uri: i.uri ?? null };
    if ((await tx.run(instrumentSql.upsert, row)).changes > 0) changed.push(i.mint);
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
  const out = { added: 0, edited: 0, mints: new Set<string>() };
  for (const r of records) {
    const payload = canonicalJson(r);
    const hash = sha256Hex(payload);
    const prior = await tx.all(issuerRevisionSql.hashesOf, { eventId: r.eventId, version: r.version });
    if (prior.some((p) => p.payload_sha256 === hash)) continue;
    const edited = prior.length > 0;
    const mint = source === "operator" ? (r as OperatorRecord).mint : null;
    await tx.run(issuerRevisionSql.insert, { eventId: r.eventId, version: r.version, symbol: r.xstockSymbol, payload, sha256: hash, edited, at, source, mint });
    out.added++;
    if (edited) out.edited++;
    if (mint) out.mints.add(mint);
    else for (const m of await tx.all(instrumentSql.feedMintsOfSymbol, { symbol: r.xstockSymbol })) out.mints.add(m.mint);
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
    const payload = whole.length <= MAX_REJECTION_PAYLOAD ? whole : canonicalJson({ truncated: true, length: whole.length, sha256: sha256Hex(whole), head: whole.slice(0, MAX_REJECTION_PAYLOAD) });
    await tx.run(issuerRejectionSql.insert, { source: r.source, payload, reason: r.reason, at });
  }
}

/**
 * A mint state is stored when it differs from the latest one stored (the mint poll reads every
 * followed mint every few minutes; an unchanged state is not a new observation). Returns the
 * mints whose state changed.
 */
async function storeMintStates(tx: Sql, states: MintStateObs[]): Promise<string[]> {
  const changed: string[] = [];
  for (const s of states) {
    const prev = await tx.get(mintStateSql.latest, { mint: s.mint });
    if (prev && prev.slot >= s.slot) continue;
    const same =
      prev &&
      prev.decimals === s.decimals &&
      prev.authority === s.multiplierAuthority &&
      prev.multiplier === String(s.multiplier) &&
      prev.new_multiplier === String(s.newMultiplier) &&
      prev.new_multiplier_effective_ts === s.newMultiplierEffectiveTimestamp;
    if (same) continue;
    const row = {
      mint: s.mint,
      slot: s.slot,
      decimals: s.decimals,
      authority: s.multiplierAuthority,
      multiplier: String(s.multiplier),
      newMultiplier: String(s.newMultiplier),
      effectiveTs: s.newMultiplierEffectiveTimestamp,
      observedAt: s.observedAt,
    };
    if ((await tx.run(mintStateSql.insert, row)).changes > 0) changed.push(s.mint);
  }
  return changed;
}

/** Returns the mint of every update stored for the first time. */
async function storeMultiplierUpdates(tx: Sql, updates: MultiplierUpdateObs[]): Promise<string[]> {
  const added: string[] = [];
  for (const u of updates) {
    const row = {
      signature: u.signature,
      ixIndex: u.ixIndex,
      mint: u.mint,
      slot: u.slot,
      blockTime: u.blockTime,
      multiplier: String(u.multiplier),
      effectiveTs: u.effectiveTimestamp,
      authority: u.authority,
    };
    if ((await tx.run(multiplierUpdateSql.insert, row)).changes > 0) added.push(u.mint);
  }
  return added;
}

/** Upserts token accounts; returns the owners whose account is new or whose balance changed. */
async function storeTokenAccounts(tx: Sql, accounts: TokenAccountObs[]): Promise<string[]> {
  const owners: string[] = [];
  for (const a of accounts) {
    const before = await tx.get(tokenAccountSql.balanceOf, { address: a.tokenAccount });
    const applied = (await tx.run(tokenAccountSql.upsert, { address: a.tokenAccount, owner: a.owner, mint: a.mint, rawBalance: a.rawBalance.toString(), slot: a.slot })).changes > 0;
    if (applied && before?.raw_balance !== a.rawBalance.toString()) owners.push(a.owner);
  }
  return owners;
}

/** Returns the owner of every balance change stored for the first time. */
async function storeBalanceChanges(tx: Sql, changes: BalanceChangeObs[]): Promise<string[]> {
  const owners: string[] = [];
  for (const b of changes) {
    const stored = await tx.run(balanceChangeSql.insert, {
      signature: b.signature,
      tokenAccount: b.tokenAccount,
      owner: b.owner,
      mint: b.mint,
      slot: b.slot,
      blockTime: b.blockTime,
      preRaw: b.preRaw.toString(),
      postRaw: b.postRaw.toString(),
      ownerSigned: b.ownerSigned ?? null,
      byPermanentDelegate: b.byPermanentDelegate ?? null,
    });
    if (stored.changes > 0) owners.push(b.owner);
  }
  return owners;
}

async function storeCursors(tx: Sql, cursors: StoredCursor[], at: string): Promise<void> {
  for (const { scope, address, cursor } of cursors) {
    await tx.run(walkCursorSql.upsert, {
      scope,
      address,
      newest: cursor.newest,
      newestSlot: cursor.newestSlot ?? null,
      before: cursor.resume?.before ?? null,
      until: cursor.resume?.until ?? null,
      resumeNewest: cursor.resume?.newest ?? null,
      at,
    });
  }
}

async function storeOwnerScans(tx: Sql, scans: ObservationBatch["ownerScans"]): Promise<void> {
  if (!scans?.signatures.length) return;
  await tx.run(ownerScanSql.insert, { owner: scans.owner, signatures: scans.signatures });
}

/** Which of these wallet transactions an earlier sync scanned for the wallet's token accounts. */
export function scannedOf(db: Sql, owner: string) {
  return async (signatures: string[]): Promise<Set<string>> => {
    if (!signatures.length) return new Set();
    const rows = await db.all(ownerScanSql.scanned, { owner, signatures });
    return new Set(rows.map((r) => r.signature));
  };
}

/** Records and heals named gaps; returns the owners whose gaps changed (a position's status reads them). */
async function storeGaps(tx: Sql, gaps: NonNullable<ObservationBatch["gaps"]>, cleared: NonNullable<ObservationBatch["clearedGaps"]>, at: string): Promise<string[]> {
  const owners: string[] = [];
  for (const g of cleared) if ((await tx.run(walletGapSql.delete, { owner: g.owner, address: g.address })).changes > 0) owners.push(g.owner);
  for (const g of gaps) {
    const before = await tx.get(walletGapSql.reason, { owner: g.owner, address: g.address });
    await tx.run(walletGapSql.upsert, { owner: g.owner, address: g.address, reason: g.reason, at });
    if (before?.reason !== g.reason) owners.push(g.owner);
  }
  return owners;
}

/** Multiplier updates stored for these mints, oldest first: each mint is checked against its whole known history. */
export function storedUpdatesOf(db: Sql) {
  return async (mints: string[]): Promise<MultiplierUpdateObs[]> => (await db.all(multiplierUpdateSql.historyOf, { mints })).map(updateFromRow);
}

/** Balance changes already stored, so a second tenant's first sync does not fetch them again. */
export function storedChangesOf(db: Sql) {
  return async (tokenAccount: string, signatures: string[]): Promise<Map<string, BalanceChangeObs[]>> => {
    const out = new Map<string, BalanceChangeObs[]>();
    if (!signatures.length) return out;
    for (const row of await db.all(balanceChangeSql.ofAccount, { tokenAccount, signatures })) {
      const change = balanceChangeFromRow(row);
      out.set(change.signature, [...(out.get(change.signature) ?? []), change]);
    }
    return out;
  };
}

/** A wallet's known token accounts. */
export async function tokenAccountsOf(db: Sql, owner: string): Promise<{ tokenAccount: string; mint: string }[]> {
  return (await db.all(tokenAccountSql.ofOwner, { owner })).map((r) => ({ tokenAccount: r.address, mint: r.mint }));
}

/** The mints some followed wallet holds now (the mint poll reads their state). */
export async function heldMints(db: Sql): Promise<string[]> {
  return (await db.all(tokenAccountSql.heldMints)).map((r) => r.mint);
}

/** The addresses walked in `scope` (a cursor is stored for each). */
export async function walkedAddresses(db: Sql, scope: string): Promise<string[]> {
  return (await db.all(walkCursorSql.addressesOf, { scope })).map((r) => r.address);
}

/** The stored walk cursors of `scope` for these addresses (absent: never walked in that scope). */
export async function readCursors(db: Sql, scope: string, addresses: string[]): Promise<Record<string, WalkCursor>> {
  const out: Record<string, WalkCursor> = {};
  for (const address of addresses) {
    const r = await db.get(walkCursorSql.read, { scope, address });
    if (r) out[address] = cursorFromRow(r);
  }
  return out;
}

export type FeedOutcome = { ok: true; degraded?: string | null } | { ok: false; error: string };

export async function markFeed(db: Sql, name: "issuer" | "mint_poll", outcome: FeedOutcome, now = new Date()): Promise<void> {
  const at = now.toISOString();
  if (outcome.ok) await db.run(feedStatusSql.succeeded, { name, at, degraded: outcome.degraded ?? null });
  else await db.run(feedStatusSql.failed, { name, at, error: outcome.error });
}
