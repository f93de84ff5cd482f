// Replay: load every stored observation, run the pure engine, and write what it derives. The
// journal only ever grows: a booking that changed gets a reversal of the standing entry and a
// new recognition; an unchanged one gets nothing, so replaying twice appends nothing.
import type { Database } from "bun:sqlite";
import { diffJournal, runEngine } from "../domain/engine.ts";
import { reversalOf } from "../domain/journal.ts";
import { buildTransitions } from "../domain/timeline.ts";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { IssuerRecord } from "../domain/observations.ts";
import type { ActionRecord, EngineInput, EngineOutput, JournalBooking } from "../domain/types.ts";
import { groupBy } from "./group.ts";
import { actionDetailBase, actionListedAt, actionSummary, v1Entry } from "./projections.ts";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";

export function loadEngineInput(sqlite: Database, now: Date): EngineInput {
  const instruments = (sqlite.query("SELECT mint, symbol, name, underlying, isin, decimals FROM instruments").all() as {
    mint: string; symbol: string; name: string | null; underlying: string | null; isin: string | null; decimals: number | null;
  }[]).map((r) => ({ ...r }));
  const mintStates = (sqlite.query(
    `SELECT mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at FROM mint_states s
     WHERE slot = (SELECT max(slot) FROM mint_states WHERE mint = s.mint)`,
  ).all() as { mint: string; slot: number; decimals: number; authority: string | null; multiplier: string; new_multiplier: string; new_multiplier_effective_ts: number; observed_at: number }[])
    .map((r) => ({ mint: r.mint, slot: r.slot, decimals: r.decimals, multiplierAuthority: r.authority, multiplier: Number(r.multiplier), newMultiplier: Number(r.new_multiplier), newMultiplierEffectiveTimestamp: r.new_multiplier_effective_ts, observedAt: r.observed_at }));
  const multiplierUpdates = (sqlite.query("SELECT signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority FROM multiplier_updates").all() as {
    signature: string; ix_index: number; mint: string; slot: number; block_time: number; multiplier: string; effective_ts: number; authority: string;
  }[]).map((r) => ({ signature: r.signature, ixIndex: r.ix_index, mint: r.mint, slot: r.slot, blockTime: r.block_time, multiplier: Number(r.multiplier), effectiveTimestamp: r.effective_ts, authority: r.authority }));
  const issuerRevisions = (sqlite.query("SELECT payload, payload_sha256, ingested_at, edited FROM issuer_revisions ORDER BY id").all() as {
    payload: string; payload_sha256: string; ingested_at: string; edited: number;
  }[]).map((r) => ({ record: JSON.parse(r.payload) as IssuerRecord, sha256: r.payload_sha256, ingestedAt: r.ingested_at, edited: r.edited === 1 }));

  const owners = (sqlite.query("SELECT DISTINCT owner FROM tenant_wallets ORDER BY owner").all() as { owner: string }[]).map((r) => r.owner);
  const accounts = sqlite.query("SELECT address, owner, mint, raw_balance, slot FROM token_accounts WHERE owner = ?");
  const changes = sqlite.query("SELECT signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw, owner_signed, by_permanent_delegate FROM balance_changes WHERE owner = ? ORDER BY slot, signature");
  const gaps = sqlite.query("SELECT address, reason FROM wallet_gaps WHERE owner = ?");
  const wallets = owners.map((owner) => ({
    owner,
    accounts: (accounts.all(owner) as { address: string; owner: string; mint: string; raw_balance: string; slot: number }[]).map((a) => ({ owner: a.owner, tokenAccount: a.address, mint: a.mint, rawBalance: BigInt(a.raw_balance), slot: a.slot })),
    balanceChanges: (changes.all(owner) as { signature: string; token_account: string; owner: string; mint: string; slot: number; block_time: number; pre_raw: string; post_raw: string; owner_signed: number | null; by_permanent_delegate: number | null }[])
      .map((c) => ({
        owner: c.owner, tokenAccount: c.token_account, mint: c.mint, signature: c.signature, slot: c.slot, blockTime: c.block_time, preRaw: BigInt(c.pre_raw), postRaw: BigInt(c.post_raw),
        ...(c.owner_signed === null ? {} : { ownerSigned: c.owner_signed === 1 }),
        ...(c.by_permanent_delegate === null ? {} : { byPermanentDelegate: c.by_permanent_delegate === 1 }),
      })),
    gaps: (gaps.all(owner) as { address: string; reason: string }[]).map((g) => `${g.address}: ${g.reason}`),
  }));
  const firstObservedActive = Object.fromEntries((sqlite.query("SELECT key, first_observed_active_at FROM transitions_seen").all() as { key: string; first_observed_active_at: string }[]).map((r) => [r.key, r.first_observed_active_at]));
  return { now: Math.floor(now.getTime() / 1000), instruments, mintStates, multiplierUpdates, issuerRevisions, wallets, firstObservedActive };
}

export interface ReplayResult { actions: number; recognitions: number; reversals: number }

/** Runs the engine over the whole ledger and writes its output in one transaction. */
export function replayLedger(sqlite: Database, now = new Date()): ReplayResult {
  let result: ReplayResult = { actions: 0, recognitions: 0, reversals: 0 };
  sqlite.transaction(() => {
    const input = loadEngineInput(sqlite, now);
    // The first sighting of a transition in force is itself an observation (one of the six
    // timestamps): record it, and hand it to the engine, before booking. The timeline alone
    // says which transitions are in force; the engine runs once.
    const seen = sqlite.query("INSERT INTO transitions_seen (key, first_observed_active_at) VALUES (?, ?) ON CONFLICT DO NOTHING");
    const firstObserved = (input.firstObservedActive ??= {});
    for (const t of buildTransitions(input.multiplierUpdates, input.now)) {
      if (t.state !== "activated" || firstObserved[t.key]) continue;
      seen.run(t.key, now.toISOString());
      firstObserved[t.key] = now.toISOString();
    }
    result = writeEngineOutput(sqlite, runEngine(input), now);
    sqlite.query("DELETE FROM ledger_state WHERE key = 'replay_pending'").run();
  }).immediate();
  return result;
}

/**
 * Writes one action: its canonical payload and hash, the indexed columns, and the read models
 * projected from it. A row whose payload did not change is left as it is.
 */
export function actionWriter(sqlite: Database) {
  const upsert = sqlite.query(
    `INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, updated_at, detail)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
     ON CONFLICT(id) DO UPDATE SET type = ?4, treatment = ?5, state = ?6, effective_at = ?7, usd = ?8, payload = ?9, summary = ?10, v1_entry = ?11,
       v1_kind = ?12, payload_sha256 = ?13, evidence_sha256 = ?14, first_observed_active_at = ?15, updated_at = ?16, detail = ?17
       WHERE payload_sha256 IS NOT ?13 OR detail IS NULL`,
  );
  return (a: ActionRecord, at: string): void => {
    const payload = canonicalJson(a);
    const v1 = v1Entry(a);
    upsert.run(a.id, a.owner, a.mint, a.type, a.treatment, a.lifecycle.state, actionListedAt(a), a.usd, payload,
      JSON.stringify(actionSummary(a)), v1 ? JSON.stringify(v1) : null, v1?.kind ?? null, sha256Hex(payload), a.evidenceSha256, a.timestamps.firstObservedActiveAt, at, JSON.stringify(actionDetailBase(a)));
  };
}

export interface JournalEntryMeta { entryType: "recognition" | "reversal"; reversesId: number | null; changeReason: string | null; at: string }

/** Appends one journal entry (a reversal passes its booking already negated); returns its id. */
export function journalAppender(sqlite: Database) {
  const insert = sqlite.query(
    `INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta,
       income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (b: JournalBooking, m: JournalEntryMeta): number =>
    Number(insert.run(b.owner, b.actionId, m.entryType, m.reversesId, b.mint, b.symbol, b.type, b.treatment, b.kind, b.unitsDelta, b.principalUnitsDelta,
      b.incomeUnits, b.usd, b.factor, b.effectiveAt ?? "", m.changeReason, b.evidenceSha256, canonicalJson(b), m.at).lastInsertRowid);
}

export function writeEngineOutput(sqlite: Database, out: EngineOutput, now: Date): ReplayResult {
  const at = now.toISOString();
  const owners = new Set(out.positions.map((p) => p.owner).concat(out.actions.map((a) => a.owner)));
  for (const o of sqlite.query("SELECT DISTINCT owner FROM tenant_wallets").all() as { owner: string }[]) owners.add(o.owner);

  const writeAction = actionWriter(sqlite);
  const liveIds = new Map<string, Set<string>>();
  for (const a of out.actions) {
    writeAction(a, at);
    let ids = liveIds.get(a.owner);
    if (!ids) liveIds.set(a.owner, (ids = new Set()));
    ids.add(a.id);
  }
  const existing = sqlite.query("SELECT id FROM actions WHERE owner = ?");
  const drop = sqlite.query("DELETE FROM actions WHERE id = ?");
  for (const owner of owners) {
    const ids = liveIds.get(owner) ?? new Set();
    for (const r of existing.all(owner) as { id: string }[]) if (!ids.has(r.id)) drop.run(r.id);
  }

  // Journal: diff the standing recognitions against what the engine wants now.
  const standing = sqlite.query(
    `SELECT j.id, j.payload FROM journal j WHERE j.owner = ? AND j.entry_type = 'recognition'
     AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id)`,
  );
  const append = journalAppender(sqlite);
  const wantedByOwner = groupBy(out.bookings, (b) => b.owner);
  let recognitions = 0, reversals = 0;
  for (const owner of owners) {
    const rows = standing.all(owner) as { id: number; payload: string }[];
    const standingBookings = rows.map((r) => JSON.parse(r.payload) as JournalBooking);
    const idByAction = new Map(standingBookings.map((b, i) => [b.actionId, rows[i]!.id]));
    const diff = diffJournal(standingBookings, wantedByOwner.get(owner) ?? []);
    for (const { booking: b, changeReason } of diff.reversals) {
      append(reversalOf(b), { entryType: "reversal", reversesId: idByAction.get(b.actionId) ?? null, changeReason, at });
      reversals++;
    }
    for (const { booking: b, changeReason } of diff.recognitions) {
      append(b, { entryType: "recognition", reversesId: null, changeReason, at });
      recognitions++;
    }
  }

  refreshIncomeTotals(sqlite, [...owners], now);

  const delPositions = sqlite.query("DELETE FROM positions WHERE owner = ?");
  const insPosition = sqlite.query("INSERT INTO positions (owner, mint, payload, updated_at) VALUES (?, ?, ?, ?)");
  for (const owner of owners) delPositions.run(owner);
  for (const p of out.positions) insPosition.run(p.owner, p.mint, JSON.stringify(p), at);

  const yieldsByOwner = groupBy(out.yields, (y) => y.owner);
  const upYield = sqlite.query("INSERT INTO yields (owner, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(owner) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at");
  for (const owner of owners) upYield.run(owner, JSON.stringify(yieldsByOwner.get(owner) ?? []), at);

  const upLineage = sqlite.query("INSERT INTO lineage (mint, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(mint) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at");
  for (const l of out.lineage) upLineage.run(l.mint, JSON.stringify(l), at);
  const upCensus = sqlite.query("INSERT INTO taxonomy_census (type, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(type) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at");
  for (const c of out.census) upCensus.run(c.type, JSON.stringify(c), at);

  return { actions: out.actions.length, recognitions, reversals };
}

/**
 * Re-sums each wallet's income from its journal rows (exact decimals). Reversals carry negated
 * amounts, so the plain sum is what stands; unvalued events are the standing income
 * recognitions without USD.
 */
export function refreshIncomeTotals(sqlite: Database, owners: string[], now = new Date()): void {
  const valued = sqlite.query("SELECT mint, usd FROM journal WHERE owner = ? AND treatment = 'income'");
  const unvalued = sqlite.query(
    `SELECT mint, count(*) AS n FROM journal j WHERE owner = ? AND treatment = 'income' AND entry_type = 'recognition' AND usd IS NULL
     AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id) GROUP BY mint`,
  );
  const clear = sqlite.query("DELETE FROM income_totals WHERE owner = ?");
  const put = sqlite.query("INSERT INTO income_totals (owner, mint, usd, unvalued_events, updated_at) VALUES (?, ?, ?, ?, ?)");
  for (const owner of owners) {
    const usd = new Map<string, Rat>();
    for (const r of valued.all(owner) as { mint: string; usd: string | null }[]) {
      usd.set(r.mint, r.usd === null ? (usd.get(r.mint) ?? ZERO) : add(usd.get(r.mint) ?? ZERO, parseDecimal(r.usd)));
    }
    const open = new Map((unvalued.all(owner) as { mint: string; n: number }[]).map((r) => [r.mint, r.n]));
    clear.run(owner);
    for (const [mint, total] of usd) put.run(owner, mint, formatExact(total), open.get(mint) ?? 0, now.toISOString());
  }
}

/** After an upgrade that added income_totals, fill it once from the journal. */
export function ensureIncomeTotals(sqlite: Database): void {
  const missing = sqlite.query("SELECT DISTINCT owner FROM journal WHERE owner NOT IN (SELECT owner FROM income_totals)").all() as { owner: string }[];
  if (missing.length) sqlite.transaction(() => refreshIncomeTotals(sqlite, missing.map((r) => r.owner))).immediate();
}
