// Incremental booking: books what the dirty sets name, a bounded chunk at a time.
//
// A round first books dirty mints on their own (lineage, census, when the mint next changes by the
// clock), which marks every wallet that ever held them dirty; then it books dirty wallets in chunks
// of a few hundred. Each chunk loads only its wallets and the mints they touch, runs the pure
// engine outside any transaction, then writes in one short IMMEDIATE transaction: actions whose
// payload hash changed, the journal diff against the standing entries, positions, yields, income
// totals, and the clearing of the marks it booked. A wallet whose mark was bumped after the chunk
// read it is not written (newer observations arrived): the next chunk books it again.
import type { Database } from "bun:sqlite";
import { diffJournal, runEngine } from "../domain/engine.ts";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { computeCensus } from "../domain/taxonomy.ts";
import { buildTransitions } from "../domain/timeline.ts";
import type { CensusInstance, EngineInput, EngineOutput, JournalBooking } from "../domain/types.ts";
import { clearDirty, markDirty, markEverythingDirty, readDirty, type DirtyKind, type DirtyMark } from "./dirty.ts";
import { loadEngineInput } from "./engine-input.ts";
import { storedAction } from "./projections.ts";
import { groupBy } from "./group.ts";
import { sealRows } from "./seals.ts";
import { actionRow, actionWriter, journalAppender, negateBooking, refreshIncomeTotals, type ActionRow } from "./writers.ts";

// Wallets per write transaction. A few hundred keep each transaction short (other writers wait for
// at most one chunk) while amortising its fixed cost; the crash test makes it tiny so kills land
// between chunks, as it shortens the job lease.
const WALLETS_PER_CHUNK = Number(process.env.CA_LEDGER_BOOKING_CHUNK_WALLETS ?? 200);

export interface BookingOptions {
  /** Wallets per chunk: each chunk is one write transaction (default 200). */
  walletsPerChunk?: number;
  /** Mints per chunk (default 100). */
  mintsPerChunk?: number;
}

export interface ChunkResult {
  kind: "mints" | "wallets";
  /** Marks booked (cleared). */
  booked: number;
  /** Marks left for a later chunk because newer observations bumped them meanwhile. */
  deferred: number;
  actionsWritten: number;
  actionsUnchanged: number;
  recognitions: number;
  reversals: number;
}

const IN_LIST = "(SELECT value FROM json_each(?1))";

/** A chunk the engine or the database failed on: which marks it held, and why. */
export class ChunkFailed extends Error {
  constructor(readonly kind: DirtyKind, readonly marks: DirtyMark[], readonly cause: unknown) {
    super(`booking ${marks.length} ${kind}(s) failed: ${(cause as Error)?.message ?? cause}`);
    this.name = "ChunkFailed";
  }
}

/**
 * Books one chunk of what is dirty (mints first, then wallets) and returns what it did, or null
 * when nothing is dirty. Synchronous; callers that must stay responsive yield between chunks.
 */
export function bookNextChunk(sqlite: Database, now: Date, opts: BookingOptions = {}): ChunkResult | null {
  const mints = readDirty(sqlite, "mint", opts.mintsPerChunk ?? 100, now);
  if (mints.length) return bookMarks(sqlite, "mint", mints, now);
  const wallets = readDirty(sqlite, "wallet", opts.walletsPerChunk ?? WALLETS_PER_CHUNK, now);
  if (wallets.length) return bookMarks(sqlite, "wallet", wallets, now);
  return null;
}

/** Books exactly these marks (one chunk); a failure names them. */
export function bookMarks(sqlite: Database, kind: DirtyKind, marks: DirtyMark[], now: Date): ChunkResult {
  try {
    return kind === "mint" ? bookMints(sqlite, marks, now) : bookWallets(sqlite, marks, now);
  } catch (e) {
    throw new ChunkFailed(kind, marks, e);
  }
}

/** Books until nothing is dirty (tests, the demo load, `ca-ledger sync`). */
export function bookEverythingDirty(sqlite: Database, now = new Date(), opts: BookingOptions = {}): ChunkResult[] {
  markDueClockChanges(sqlite, now);
  const done: ChunkResult[] = [];
  for (let chunk = bookNextChunk(sqlite, now, opts); chunk; chunk = bookNextChunk(sqlite, now, opts)) done.push(chunk);
  return done;
}

export interface BookingTotals { chunks: number; booked: number; actionsWritten: number; actionsUnchanged: number; recognitions: number; reversals: number }

/** Re-books the whole ledger from its observations (upgrades, `verify` repair, tests). */
export function rebookEverything(sqlite: Database, now = new Date(), opts: BookingOptions = {}): BookingTotals {
  sqlite.transaction(() => markEverythingDirty(sqlite, now.toISOString())).immediate();
  return totalsOf(bookEverythingDirty(sqlite, now, opts));
}

export function totalsOf(chunks: ChunkResult[]): BookingTotals {
  const t: BookingTotals = { chunks: chunks.length, booked: 0, actionsWritten: 0, actionsUnchanged: 0, recognitions: 0, reversals: 0 };
  for (const c of chunks) {
    t.booked += c.booked;
    t.actionsWritten += c.actionsWritten;
    t.actionsUnchanged += c.actionsUnchanged;
    t.recognitions += c.recognitions;
    t.reversals += c.reversals;
  }
  return t;
}

/** Marks the mints whose books change by the clock alone by `now` (a schedule took force). */
export function markDueClockChanges(sqlite: Database, now: Date): number {
  const due = sqlite.query("SELECT mint FROM mint_schedule WHERE next_activation_ts IS NOT NULL AND next_activation_ts <= ?").all(Math.floor(now.getTime() / 1000)) as { mint: string }[];
  if (!due.length) return 0;
  sqlite.transaction(() => markDirty(sqlite, "mint", due.map((r) => r.mint), now.toISOString())).immediate();
  return due.length;
}

// ---- mints --------------------------------------------------------------------------------

/**
 * A mint's own outputs (lineage, census instances, next clock change) and the spread of its mark
 * to every wallet that ever held it, in one transaction.
 */
function bookMints(sqlite: Database, marks: DirtyMark[], now: Date): ChunkResult {
  const at = now.toISOString();
  const mints = marks.map((m) => m.key);
  const input = loadEngineInput(sqlite, now, { owners: [], mints });
  const sightings = newSightings(input, at);
  const out = runEngine(input);
  const result = emptyResult("mints");
  sqlite.transaction(() => {
    const current = stillMarked(sqlite, "dirty_mints", "mint", marks);
    if (!current.length) return;
    const keep = new Set(current.map((m) => m.key));
    if (!recordSightings(sqlite, sightings.filter((s) => keep.has(s.mint)))) return;
    writeLineage(sqlite, out.lineage.filter((l) => keep.has(l.mint)), at);
    writeCensus(sqlite, [...keep], out.censusInstances.filter((c) => keep.has(c.mint)), at);
    writeSchedule(sqlite, out.clockChanges.filter((c) => keep.has(c.mint)), at);
    const holders = sqlite.query(`SELECT owner FROM token_accounts WHERE mint IN ${IN_LIST} UNION SELECT owner FROM balance_changes WHERE mint IN ${IN_LIST}`)
      .all(JSON.stringify([...keep])) as { owner: string }[];
    markDirty(sqlite, "wallet", holders.map((h) => h.owner), at);
    clearDirty(sqlite, "mint", current);
    result.booked = current.length;
  }).immediate();
  result.deferred = marks.length - result.booked;
  return result;
}

function writeLineage(sqlite: Database, lineage: EngineOutput["lineage"], at: string): void {
  const up = sqlite.query("INSERT INTO lineage (mint, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(mint) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at");
  for (const l of lineage) up.run(l.mint, JSON.stringify(l), at);
}

/** Replaces the mints' census instances and re-sums the taxonomy from every mint's. */
function writeCensus(sqlite: Database, mints: string[], instances: CensusInstance[], at: string): void {
  sqlite.query(`DELETE FROM census_instances WHERE mint IN ${IN_LIST}`).run(JSON.stringify(mints));
  const ins = sqlite.query("INSERT INTO census_instances (transition_key, mint, type, event_id, version, reconciled) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  for (const c of instances) ins.run(c.transitionKey, c.mint, c.type, c.eventId, c.version, c.reconciled ? 1 : 0);
  const all = storedCensusInstances(sqlite);
  const up = sqlite.query("INSERT INTO taxonomy_census (type, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(type) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at WHERE payload IS NOT excluded.payload");
  for (const entry of computeCensus(all)) up.run(entry.type, JSON.stringify(entry), at);
}

/** The stored census instances (of some mints, or all), in the order the taxonomy is summed in. */
export function storedCensusInstances(sqlite: Database, mints?: string[]): CensusInstance[] {
  const where = mints ? `WHERE mint IN ${IN_LIST}` : "";
  return (sqlite.query(`SELECT transition_key, mint, type, event_id, version, reconciled FROM census_instances ${where} ORDER BY mint, transition_key`).all(...(mints ? [JSON.stringify(mints)] : [])) as {
    transition_key: string; mint: string; type: CensusInstance["type"]; event_id: string; version: number; reconciled: number;
  }[]).map((r) => ({ transitionKey: r.transition_key, mint: r.mint, type: r.type, eventId: r.event_id, version: r.version, reconciled: r.reconciled === 1 }));
}

function writeSchedule(sqlite: Database, changes: EngineOutput["clockChanges"], at: string): void {
  const up = sqlite.query("INSERT INTO mint_schedule (mint, next_activation_ts, updated_at) VALUES (?, ?, ?) ON CONFLICT(mint) DO UPDATE SET next_activation_ts = excluded.next_activation_ts, updated_at = excluded.updated_at");
  for (const c of changes) up.run(c.mint, c.at, at);
}

// ---- wallets ------------------------------------------------------------------------------

function bookWallets(sqlite: Database, marks: DirtyMark[], now: Date): ChunkResult {
  const at = now.toISOString();
  const input = loadEngineInput(sqlite, now, { owners: marks.map((m) => m.key) });
  const sightings = newSightings(input, at);
  const out = runEngine(input);
  const result = emptyResult("wallets");
  // Serialised before the transaction, so it holds the write lock only to write.
  const rows = changedActionRows(sqlite, marks.map((m) => m.key), out.actions, result);
  sqlite.transaction(() => {
    const current = stillMarked(sqlite, "dirty_wallets", "owner", marks);
    if (!current.length) return;
    const owners = current.map((m) => m.key);
    const keep = new Set(owners);
    if (!recordSightings(sqlite, sightings)) return;
    writeActions(sqlite, keep, rows, at, result);
    appendJournalDiff(sqlite, owners, out.bookings.filter((b) => keep.has(b.owner)), at, result);
    refreshIncomeTotals(sqlite, owners, now);
    writePositions(sqlite, keep, out, at);
    clearDirty(sqlite, "wallet", current);
    sealRows(sqlite); // last: seals the journal entries this chunk appended
    result.booked = current.length;
  }).immediate();
  result.deferred = marks.length - result.booked;
  return result;
}

interface ActionChanges { rows: (ActionRow & { owner: string })[]; gone: { id: string; owner: string }[] }

/**
 * What changes among these wallets' actions: a payload whose hash is unchanged is skipped before
 * any read model is serialised (most actions of a re-booked wallet do not change); one the engine
 * no longer derives goes (its journal keeps the history).
 */
function changedActionRows(sqlite: Database, owners: string[], actions: EngineOutput["actions"], result: ChunkResult): ActionChanges {
  const stored = new Map((sqlite.query(`SELECT id, owner, payload_sha256 FROM actions WHERE owner IN ${IN_LIST}`).all(JSON.stringify(owners)) as { id: string; owner: string; payload_sha256: string }[]).map((r) => [r.id, r]));
  const rows: ActionChanges["rows"] = [];
  for (const a of actions) {
    const form = storedAction(a);
    const payload = canonicalJson(form);
    const hash = sha256Hex(payload);
    if (stored.get(a.id)?.payload_sha256 === hash) result.actionsUnchanged++;
    else rows.push({ ...actionRow(a, form, payload, hash), owner: a.owner });
    stored.delete(a.id);
  }
  return { rows, gone: [...stored.values()] };
}

function writeActions(sqlite: Database, owners: Set<string>, changes: ActionChanges, at: string, result: ChunkResult): void {
  const write = actionWriter(sqlite);
  for (const row of changes.rows) {
    if (!owners.has(row.owner)) continue;
    write(row, at);
    result.actionsWritten++;
  }
  const drop = sqlite.query("DELETE FROM actions WHERE id = ?");
  for (const g of changes.gone) if (owners.has(g.owner)) drop.run(g.id);
}

/** The journal diff of each wallet against its standing recognitions, appended. */
function appendJournalDiff(sqlite: Database, owners: string[], bookings: JournalBooking[], at: string, result: ChunkResult): void {
  const standing = sqlite.query(
    `SELECT j.id, j.payload FROM journal j WHERE j.owner = ? AND j.entry_type = 'recognition'
     AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id)`,
  );
  const append = journalAppender(sqlite);
  const wanted = groupBy(bookings, (b) => b.owner);
  for (const owner of owners) {
    const rows = standing.all(owner) as { id: number; payload: string }[];
    const standingBookings = rows.map((r) => JSON.parse(r.payload) as JournalBooking);
    const idByAction = new Map(standingBookings.map((b, i) => [b.actionId, rows[i]!.id]));
    const diff = diffJournal(standingBookings, wanted.get(owner) ?? []);
    for (const { booking, changeReason } of diff.reversals) {
      append(negateBooking(booking), { entryType: "reversal", reversesId: idByAction.get(booking.actionId) ?? null, changeReason, at });
      result.reversals++;
    }
    for (const { booking, changeReason } of diff.recognitions) {
      append(booking, { entryType: "recognition", reversesId: null, changeReason, at });
      result.recognitions++;
    }
  }
}

function writePositions(sqlite: Database, owners: Set<string>, out: EngineOutput, at: string): void {
  sqlite.query(`DELETE FROM positions WHERE owner IN ${IN_LIST}`).run(JSON.stringify([...owners]));
  const insPosition = sqlite.query("INSERT INTO positions (owner, mint, payload, updated_at) VALUES (?, ?, ?, ?)");
  for (const p of out.positions) if (owners.has(p.owner)) insPosition.run(p.owner, p.mint, JSON.stringify(p), at);
  const yields = groupBy(out.yields, (y) => y.owner);
  const upYield = sqlite.query("INSERT INTO yields (owner, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(owner) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at");
  for (const owner of owners) upYield.run(owner, JSON.stringify(yields.get(owner) ?? []), at);
}

// ---- shared -------------------------------------------------------------------------------

/** The marks as they are now, keeping only those whose seq is still the one read. */
function stillMarked(sqlite: Database, table: string, column: string, marks: DirtyMark[]): DirtyMark[] {
  const now = new Map((sqlite.query(`SELECT ${column} AS key, seq FROM ${table} WHERE ${column} IN ${IN_LIST}`).all(JSON.stringify(marks.map((m) => m.key))) as DirtyMark[]).map((m) => [m.key, m.seq]));
  return marks.filter((m) => now.get(m.key) === m.seq);
}

interface Sighting { key: string; mint: string; at: string }

/**
 * The first time a transition is seen in force is itself an observation (one of an action's six
 * timestamps): taken from the timeline before the engine runs, handed to it, and recorded with
 * the booking. The timeline alone says which transitions are in force.
 */
function newSightings(input: EngineInput, at: string): Sighting[] {
  const seen = (input.firstObservedActive ??= {});
  const out: Sighting[] = [];
  for (const t of buildTransitions(input.multiplierUpdates, input.now)) {
    if (t.state !== "activated" || seen[t.key]) continue;
    seen[t.key] = at;
    out.push({ key: t.key, mint: t.mint, at });
  }
  return out;
}

/**
 * Records the sightings; false when another process recorded one first (with its own time, which
 * this chunk's engine output does not carry): the chunk then writes nothing and is booked again.
 */
function recordSightings(sqlite: Database, sightings: Sighting[]): boolean {
  const ins = sqlite.query("INSERT INTO transitions_seen (key, first_observed_active_at) VALUES (?, ?) ON CONFLICT DO NOTHING");
  let all = true;
  for (const s of sightings) if (ins.run(s.key, s.at).changes === 0) all = false;
  return all;
}

function emptyResult(kind: ChunkResult["kind"]): ChunkResult {
  return { kind, booked: 0, deferred: 0, actionsWritten: 0, actionsUnchanged: 0, recognitions: 0, reversals: 0 };
}
