// Incremental booking: books what the dirty sets name, a bounded chunk at a time.
//
// A round first books dirty mints on their own (lineage, census, when the mint next changes by the
// clock), which marks every wallet that ever held them dirty; then it books dirty wallets in chunks
// of a few hundred. Each chunk loads only its wallets and the mints they touch, runs the pure
// engine outside any transaction, then writes in one short IMMEDIATE transaction: actions whose
// payload hash changed, the journal diff against the standing entries, yields, the portfolio
// rendered from the engine's positions and the journal, and the clearing of the marks it booked. A wallet
// whose mark was bumped after the chunk read it is not written (newer observations arrived): the
// next chunk books it again.
import { diffJournal, runEngine } from "../domain/engine.ts";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { reversalOf } from "../domain/journal.ts";
import { computeCensus } from "../domain/taxonomy.ts";
import { buildTransitions } from "../domain/timeline.ts";
import type { CensusInstance, EngineInput, EngineOutput, JournalBooking } from "../domain/types.ts";
import { clearDirty, markDirty, markEverythingDirty, readDirty, stillMarked, type DirtyKind, type DirtyMark } from "./dirty.ts";
import { loadEngineInput } from "./engine-input.ts";
import { groupBy } from "../domain/group.ts";
import { bookingOf } from "./journal-payload.ts";
import { bookingEventsBefore, writeBookingEvents } from "./change-events.ts";
import { positionsOf, storePortfolios } from "./portfolio-render.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql } from "./tables/actions.ts";
import { censusInstanceFromRow, censusSql } from "./tables/census.ts";
import { journalSql } from "./tables/journal.ts";
import { lineageSql } from "./tables/lineage.ts";
import { mintScheduleSql } from "./tables/mint-schedule.ts";
import { ownerSql } from "./tables/owners.ts";
import { transitionSeenSql } from "./tables/transitions-seen.ts";
import { unbookedRevisionSql } from "./tables/unbooked-revisions.ts";
import { yieldSql } from "./tables/yields.ts";
import { encodeYields } from "./yields-payload.ts";
import { actionRow, actionWriter, appendJournal, type ActionRow } from "./writers.ts";

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
  /** Events written to the outbox (one per changed action and tenant told). */
  events: number;
}

/** A chunk the engine or the database failed on: which marks it held, and why. */
export class ChunkFailed extends Error {
  constructor(
    readonly kind: DirtyKind,
    readonly marks: DirtyMark[],
    readonly cause: unknown,
  ) {
    super(`booking ${marks.length} ${kind}(s) failed: ${(cause as Error)?.message ?? cause}`);
    this.name = "ChunkFailed";
  }
}

// Marks read per chunk beyond the chunk's size, so that servers sharing one database each find
// marks no other is booking (see claimDue).
const CANDIDATES_PER_MARK = 4;

/**
 * Books one chunk of what is dirty (mints first, then wallets) and returns what it did; null when
 * nothing is due, `busy` when every due mark is being booked by another server right now.
 */
export async function bookNextChunk(db: Sql, now: Date, opts: BookingOptions = {}): Promise<ChunkResult | null | "busy"> {
  let busy = false;
  for (const [kind, size] of [
    ["mint", opts.mintsPerChunk ?? 100],
    ["wallet", opts.walletsPerChunk ?? WALLETS_PER_CHUNK],
  ] as const) {
    const due = await readDirty(db, kind, size * CANDIDATES_PER_MARK, now);
    if (!due.length) continue;
    const claim = await claimDue(db, kind, due, size);
    if (!claim.marks.length) {
      busy = true;
      continue;
    }
    try {
      return await bookMarks(db, kind, claim.marks, now);
    } finally {
      await claim.release();
    }
  }
  return busy ? "busy" : null;
}

/**
 * The first `size` of the due marks that no other server is booking: each server sharing the
 * database books its own (the claim ends with the chunk, or with the process).
 */
async function claimDue(db: Sql, kind: DirtyKind, due: DirtyMark[], size: number) {
  const claim = await db.claimKeys(
    `dirty_${kind}`,
    due.map((m) => m.key),
    size,
  );
  const mine = new Set(claim.keys);
  return { marks: due.filter((m) => mine.has(m.key)), release: claim.release };
}

/** Books exactly these marks (one chunk); a failure names them. */
export async function bookMarks(db: Sql, kind: DirtyKind, marks: DirtyMark[], now: Date): Promise<ChunkResult> {
  try {
    return kind === "mint" ? await bookMints(db, marks, now) : await bookWallets(db, marks, now);
  } catch (e) {
    throw new ChunkFailed(kind, marks, e);
  }
}

/** Books until nothing is dirty (tests, the demo load, `ca-ledger sync`). */
export async function bookEverythingDirty(db: Sql, now = new Date(), opts: BookingOptions = {}): Promise<ChunkResult[]> {
  await markDueClockChanges(db, now);
  const done: ChunkResult[] = [];
  for (;;) {
    const chunk = await bookNextChunk(db, now, opts);
    if (chunk === null) break;
    if (chunk === "busy") await Bun.sleep(BUSY_WAIT_MS);
    else done.push(chunk);
  }
  return done;
}

/** How long to wait when every due mark is another server's, before looking again. */
export const BUSY_WAIT_MS = 50;

export interface BookingTotals {
  chunks: number;
  booked: number;
  actionsWritten: number;
  actionsUnchanged: number;
  recognitions: number;
  reversals: number;
}

/** Re-books the whole ledger from its observations (upgrades, `verify` repair, tests). */
export async function rebookEverything(db: Sql, now = new Date(), opts: BookingOptions = {}): Promise<BookingTotals> {
  await db.write((tx) => markEverythingDirty(tx, now.toISOString()));
  return totalsOf(await bookEverythingDirty(db, now, opts));
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
export async function markDueClockChanges(db: Sql, now: Date): Promise<number> {
  const due = await db.all(mintScheduleSql.due, { now: Math.floor(now.getTime() / 1000) });
  if (!due.length) return 0;
  await db.write((tx) =>
    markDirty(
      tx,
      "mint",
      due.map((r) => r.mint),
      now.toISOString(),
    ),
  );
  return due.length;
}

// ---- mints --------------------------------------------------------------------------------

/**
 * A mint's own outputs (lineage, census instances, next clock change) and the spread of its mark
 * to every wallet that ever held it, in one transaction.
 */
async function bookMints(db: Sql, marks: DirtyMark[], now: Date): Promise<ChunkResult> {
  const at = now.toISOString();
  const mints = marks.map((m) => m.key);
  const input = await loadEngineInput(db, now, { owners: [], mints });
  const sightings = newSightings(input, at);
  const out = runEngine(input);
  const result = emptyResult("mints");
  await db.write(async (tx) => {
    const current = await stillMarked(tx, "mint", marks);
    if (!current.length) return;
    const keep = new Set(current.map((m) => m.key));
    if (
      !(await recordSightings(
        tx,
        sightings.filter((s) => keep.has(s.mint)),
      ))
    )
      return;
    await writeLineage(
      tx,
      out.lineage.filter((l) => keep.has(l.mint)),
      at,
    );
    await writeCensus(
      tx,
      [...keep],
      out.censusInstances.filter((c) => keep.has(c.mint)),
      at,
    );
    await writeSchedule(
      tx,
      out.clockChanges.filter((c) => keep.has(c.mint)),
      at,
    );
    const holders = await tx.all(ownerSql.holdersOf, { mints: [...keep] });
    await markDirty(
      tx,
      "wallet",
      holders.map((h) => h.owner),
      at,
    );
    await clearDirty(tx, "mint", current);
    result.booked = current.length;
  });
  result.deferred = marks.length - result.booked;
  return result;
}

async function writeLineage(tx: Sql, lineage: EngineOutput["lineage"], at: string): Promise<void> {
  for (const l of lineage) await tx.run(lineageSql.upsert, { mint: l.mint, payload: JSON.stringify(l), at });
}

/** Replaces the mints' census instances and re-sums the taxonomy from every mint's. */
async function writeCensus(tx: Sql, mints: string[], instances: CensusInstance[], at: string): Promise<void> {
  await tx.run(censusSql.deleteOfMints, { mints });
  for (const c of instances) await tx.run(censusSql.insert, { transitionKey: c.transitionKey, mint: c.mint, type: c.type, eventId: c.eventId, version: c.version, reconciled: c.reconciled });
  const all = await storedCensusInstances(tx);
  for (const entry of computeCensus(all)) await tx.run(censusSql.upsertType, { type: entry.type, payload: JSON.stringify(entry), at });
}

/** The stored census instances (of some mints, or all), in the order the taxonomy is summed in. */
export async function storedCensusInstances(db: Sql, mints?: string[]): Promise<CensusInstance[]> {
  return (await (mints ? db.all(censusSql.instancesOf, { mints }) : db.all(censusSql.instances))).map(censusInstanceFromRow);
}

async function writeSchedule(tx: Sql, changes: EngineOutput["clockChanges"], at: string): Promise<void> {
  for (const c of changes) await tx.run(mintScheduleSql.upsert, { mint: c.mint, next: c.at, at });
}

// ---- wallets ------------------------------------------------------------------------------

async function bookWallets(db: Sql, marks: DirtyMark[], now: Date): Promise<ChunkResult> {
  const at = now.toISOString();
  const input = await loadEngineInput(db, now, { owners: marks.map((m) => m.key) });
  const sightings = newSightings(input, at);
  const out = runEngine(input);
  const result = emptyResult("wallets");
  // Serialised before the transaction, so it holds the write lock only to write.
  const rows = await changedActionRows(
    db,
    marks.map((m) => m.key),
    out.actions,
    result,
  );
  await db.write(async (tx) => {
    const current = await stillMarked(tx, "wallet", marks);
    if (!current.length) return;
    const owners = current.map((m) => m.key);
    const keep = new Set(owners);
    if (!(await recordSightings(tx, sightings))) return;
    const told = await bookingEventsBefore(tx, { owners, actions: out.actions.filter((a) => keep.has(a.owner)), gone: rows.gone.filter((g) => keep.has(g.owner)) });
    await writeActions(tx, keep, rows, result);
    const restated = await appendJournalDiff(
      tx,
      owners,
      out.bookings.filter((b) => keep.has(b.owner)),
      at,
      result,
    );
    await noteUnbookedRevisions(tx, out.actions, restated, at);
    await writeYields(tx, keep, out, at);
    await storePortfolios(tx, positionsOf(owners, out.positions), at); // last of the read models: the journal and actions above are read
    result.events = await writeBookingEvents(tx, told, now); // the outbox, with the change (docs/events.md)
    await clearDirty(tx, "wallet", current);
    await sealRows(tx); // last: seals the journal entries this chunk appended
    result.booked = current.length;
  });
  result.deferred = marks.length - result.booked;
  return result;
}

interface ActionChanges {
  rows: (ActionRow & { shown: number | null })[];
  gone: { id: string; owner: string; event_id: number }[];
}

/**
 * What changes among these wallets' actions: a payload whose hash is unchanged is skipped before
 * its rows are serialised (most actions of a re-booked wallet do not change); one the engine no
 * longer derives goes (its journal keeps the history).
 */
async function changedActionRows(db: Sql, owners: string[], actions: EngineOutput["actions"], result: ChunkResult): Promise<ActionChanges> {
  const storedRows = await db.all(actionSql.hashesOfOwners, { owners });
  const stored = new Map(storedRows.map((r) => [r.id, r]));
  const rows: ActionChanges["rows"] = [];
  // One copy of each event's text for the chunk: the wallets holding it share it until written.
  const events = new Map<string, ActionRow["event"]>();
  for (const a of actions) {
    const payload = canonicalJson(a);
    const hash = sha256Hex(payload);
    const before = stored.get(a.id);
    if (before?.payload_sha256 === hash) result.actionsUnchanged++;
    else {
      const row = actionRow(a, payload, hash);
      row.event = events.get(row.event.sha256) ?? (events.set(row.event.sha256, row.event), row.event);
      rows.push({ ...row, shown: before?.event_id ?? null });
    }
    stored.delete(a.id);
  }
  return { rows, gone: [...stored.values()] };
}

/** The changed actions of these wallets, each event row written once; events left unshown go. */
async function writeActions(tx: Sql, owners: Set<string>, changes: ActionChanges, result: ChunkResult): Promise<void> {
  const writer = actionWriter(tx);
  for (const row of changes.rows) {
    if (!owners.has(row.owner)) continue;
    await writer.write(row, row.shown);
    result.actionsWritten++;
  }
  for (const g of changes.gone) if (owners.has(g.owner)) await writer.remove(g.id, g.event_id);
  await writer.finish();
}

/**
 * The journal diff of each wallet against its standing recognitions, appended. Returns the
 * actions whose evidence changed while their figures did not (nothing appended for them).
 */
async function appendJournalDiff(tx: Sql, owners: string[], bookings: JournalBooking[], at: string, result: ChunkResult): Promise<Set<string>> {
  const restatedActions = new Set<string>();
  const wanted = groupBy(bookings, (b) => b.owner);
  for (const owner of owners) {
    const rows = await tx.all(journalSql.standing, { owner });
    const standingBookings = rows.map(bookingOf);
    const idByAction = new Map(standingBookings.map((b, i) => [b.actionId, rows[i]!.id]));
    const diff = diffJournal(standingBookings, wanted.get(owner) ?? []);
    for (const { booking, changeReason } of diff.reversals) {
      await appendJournal(tx, reversalOf(booking), { entryType: "reversal", reversesId: idByAction.get(booking.actionId) ?? null, changeReason, at });
      result.reversals++;
    }
    for (const { booking, changeReason } of diff.recognitions) {
      await appendJournal(tx, booking, { entryType: "recognition", reversesId: null, changeReason, at });
      result.recognitions++;
    }
    for (const b of diff.restated) restatedActions.add(b.actionId);
  }
  return restatedActions;
}

/**
 * The issuer revisions those actions now cite, noted as having changed no booking (once each):
 * the ops check `issuer_feed_churn` counts a record revised again and again for nothing. Only
 * the event and the revision's hash are kept, never the wallet.
 */
async function noteUnbookedRevisions(tx: Sql, actions: EngineOutput["actions"], restatedIds: Set<string>, at: string): Promise<void> {
  const noted = new Set<string>();
  for (const a of actions) {
    if (!a.matched || !restatedIds.has(a.id) || noted.has(a.matched.sha256)) continue;
    noted.add(a.matched.sha256);
    await tx.run(unbookedRevisionSql.insert, { eventId: a.matched.eventId, sha256: a.matched.sha256, at });
  }
}

/** The wallets' yields: written at every booking, the row's `updated_at` being when the wallet was last booked. */
async function writeYields(tx: Sql, owners: Set<string>, out: EngineOutput, at: string): Promise<void> {
  const yields = groupBy(out.yields, (y) => y.owner);
  for (const owner of owners) await tx.run(yieldSql.upsert, { owner, payload: encodeYields(yields.get(owner) ?? []), at });
}

// ---- shared -------------------------------------------------------------------------------

interface Sighting {
  key: string;
  mint: string;
  at: string;
}

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
async function recordSightings(tx: Sql, sightings: Sighting[]): Promise<boolean> {
  let all = true;
  for (const s of sightings) if ((await tx.run(transitionSeenSql.insert, { key: s.key, at: s.at })).changes === 0) all = false;
  return all;
}

function emptyResult(kind: ChunkResult["kind"]): ChunkResult {
  return { kind, booked: 0, deferred: 0, actionsWritten: 0, actionsUnchanged: 0, recognitions: 0, reversals: 0, events: 0 };
}
