// Writes observations. Every write is idempotent (INSERT … ON CONFLICT DO NOTHING on natural
// keys) and runs in one IMMEDIATE transaction, so a crash mid-sync leaves either all or none of
// a batch, and running the same batch twice records nothing new.
import type { Database } from "bun:sqlite";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { sealRows } from "./seals.ts";
import type { BalanceChangeObs, InstrumentObs, IssuerRecord, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../domain/observations.ts";

export interface ObservationBatch {
  instruments?: InstrumentObs[];
  issuerRecords?: IssuerRecord[];
  issuerRejections?: { source: string; payload: unknown; reason: string }[];
  mintStates?: MintStateObs[];
  multiplierUpdates?: MultiplierUpdateObs[];
  tokenAccounts?: TokenAccountObs[];
  balanceChanges?: BalanceChangeObs[];
  cursors?: Record<string, string | null>;
  gaps?: { owner: string; address: string; reason: string }[];
  /** Addresses whose gap is healed by this batch (history read in full). */
  clearedGaps?: { owner: string; address: string }[];
}

export interface StoreResult { issuerRevisionsAdded: number; editedRevisions: number; multiplierUpdatesAdded: number; balanceChangesAdded: number; instrumentsChanged: number }

export function storeObservations(sqlite: Database, batch: ObservationBatch, now = new Date()): StoreResult {
  const at = now.toISOString();
  const result: StoreResult = { issuerRevisionsAdded: 0, editedRevisions: 0, multiplierUpdatesAdded: 0, balanceChangesAdded: 0, instrumentsChanged: 0 };
  sqlite.transaction(() => {
    const inst = sqlite.query(
      `INSERT INTO instruments (mint, symbol, name, underlying, isin, decimals, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, underlying = coalesce(excluded.underlying, underlying),
       isin = coalesce(excluded.isin, isin), decimals = coalesce(excluded.decimals, decimals), updated_at = excluded.updated_at
       WHERE symbol IS NOT excluded.symbol OR name IS NOT excluded.name OR underlying IS NOT coalesce(excluded.underlying, underlying)
          OR isin IS NOT coalesce(excluded.isin, isin) OR decimals IS NOT coalesce(excluded.decimals, decimals)`,
    );
    // An instrument's symbol, underlying and ISIN feed the lineage: a changed row needs a replay.
    for (const i of batch.instruments ?? []) result.instrumentsChanged += inst.run(i.mint, i.symbol, i.name, i.underlying, i.isin, i.decimals, at).changes;

    const known = sqlite.query("SELECT payload_sha256 FROM issuer_revisions WHERE event_id = ? AND version = ?");
    const rev = sqlite.query(
      "INSERT INTO issuer_revisions (event_id, version, symbol, payload, payload_sha256, edited, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    for (const r of batch.issuerRecords ?? []) {
      const payload = canonicalJson(r);
      const hash = sha256Hex(payload);
      const prior = known.all(r.eventId, r.version) as { payload_sha256: string }[];
      if (prior.some((p) => p.payload_sha256 === hash)) continue;
      // The same (eventId, version) with other content: the issuer edited a record without a new
      // version. Keep both, flag the new one; never drop either.
      const edited = prior.length > 0;
      rev.run(r.eventId, r.version, r.xstockSymbol, payload, hash, edited ? 1 : 0, at);
      result.issuerRevisionsAdded++;
      if (edited) result.editedRevisions++;
    }
    const rej = sqlite.query("INSERT INTO issuer_rejections (source, payload, reason, received_at) VALUES (?, ?, ?, ?)");
    for (const r of batch.issuerRejections ?? []) rej.run(r.source, canonicalJson(r.payload ?? null), r.reason, at);

    const ms = sqlite.query(
      `INSERT INTO mint_states (mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    for (const s of batch.mintStates ?? []) ms.run(s.mint, s.slot, s.decimals, s.multiplierAuthority, String(s.multiplier), String(s.newMultiplier), s.newMultiplierEffectiveTimestamp, s.observedAt);

    const mu = sqlite.query(
      "INSERT INTO multiplier_updates (signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    for (const u of batch.multiplierUpdates ?? []) {
      result.multiplierUpdatesAdded += mu.run(u.signature, u.ixIndex, u.mint, u.slot, u.blockTime, String(u.multiplier), u.effectiveTimestamp, u.authority).changes;
    }

    const ta = sqlite.query(
      `INSERT INTO token_accounts (address, owner, mint, raw_balance, slot) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(address) DO UPDATE SET raw_balance = excluded.raw_balance, slot = excluded.slot WHERE excluded.slot >= slot`,
    );
    for (const a of batch.tokenAccounts ?? []) ta.run(a.tokenAccount, a.owner, a.mint, a.rawBalance.toString(), a.slot);

    const bc = sqlite.query(
      `INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    for (const b of batch.balanceChanges ?? []) {
      const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);
      result.balanceChangesAdded += bc.run(b.signature, b.tokenAccount, b.owner, b.mint, b.slot, b.blockTime, b.preRaw.toString(), b.postRaw.toString(), flag(b.ownerSigned), flag(b.byPermanentDelegate)).changes;
    }

    const cur = sqlite.query("INSERT INTO sync_cursors (address, newest_signature, updated_at) VALUES (?, ?, ?) ON CONFLICT(address) DO UPDATE SET newest_signature = excluded.newest_signature, updated_at = excluded.updated_at");
    for (const [address, sig] of Object.entries(batch.cursors ?? {})) cur.run(address, sig, at);

    const clear = sqlite.query("DELETE FROM wallet_gaps WHERE owner = ? AND address = ?");
    for (const g of batch.clearedGaps ?? []) clear.run(g.owner, g.address);
    if (result.issuerRevisionsAdded || result.instrumentsChanged || result.multiplierUpdatesAdded || result.balanceChangesAdded || (batch.mintStates?.length ?? 0) || (batch.tokenAccounts?.length ?? 0)) {
      markReplayPending(sqlite, at);
    }
    const gap = sqlite.query("INSERT INTO wallet_gaps (owner, address, reason, recorded_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET reason = excluded.reason, recorded_at = excluded.recorded_at");
    for (const g of batch.gaps ?? []) gap.run(g.owner, g.address, g.reason, at);
    sealRows(sqlite); // last: seals the rows this transaction wrote
  }).immediate();
  return result;
}

export function readCursors(sqlite: Database, addresses?: string[]): Record<string, string | null> {
  const rows = sqlite.query("SELECT address, newest_signature FROM sync_cursors").all() as { address: string; newest_signature: string | null }[];
  const wanted = addresses ? new Set(addresses) : null;
  return Object.fromEntries(rows.filter((r) => !wanted || wanted.has(r.address)).map((r) => [r.address, r.newest_signature]));
}

export function markFeed(sqlite: Database, name: "issuer" | "mint_poll", outcome: { ok: true } | { ok: false; error: string }, now = new Date()): void {
  const at = now.toISOString();
  if (outcome.ok) {
    sqlite.query("INSERT INTO feed_status (name, last_success_at, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET last_success_at = excluded.last_success_at, updated_at = excluded.updated_at").run(name, at, at);
  } else {
    sqlite.query("INSERT INTO feed_status (name, last_error_at, last_error, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET last_error_at = excluded.last_error_at, last_error = excluded.last_error, updated_at = excluded.updated_at").run(name, at, outcome.error, at);
  }
}

/** Notes, inside the caller's transaction, that stored observations wait for a replay. */
export function markReplayPending(sqlite: Database, at: string): void {
  sqlite.query("INSERT INTO ledger_state (key, value) VALUES ('replay_pending', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(at);
}

export function replayPending(sqlite: Database): boolean {
  return sqlite.query("SELECT 1 FROM ledger_state WHERE key = 'replay_pending'").get() !== null;
}
