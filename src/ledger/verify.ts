// `ca-ledger verify`: recomputes from the stored rows everything the ledger claims about itself.
// Each check is a plain function over the database returning a named result, so the CLI prints
// them and tests can name the one that failed. All checks read inside one read transaction: a
// running server may keep writing, and the snapshot is one consistent view of every table.
import { actionEvidencePayload, runEngine } from "../domain/engine.ts";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { sameFigures } from "../domain/journal.ts";
import { add, eq, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";
import { computeCensus } from "../domain/taxonomy.ts";
import type { ActionRecord, CensusInstance, JournalBooking, PositionRecord, YieldRecord } from "../domain/types.ts";
import { storedCensusInstances } from "./booking.ts";
import { loadEngineInput } from "./engine-input.ts";
import { groupBy } from "../domain/group.ts";
import { bookingOf } from "./journal-payload.ts";
import { eventSha256, splice, storedValues } from "./action-rows.ts";
import { actionDetailBase, actionListedAt, actionSummary, v1Entry } from "./projections.ts";
import { positionsOf, renderPortfolios } from "./portfolio-render.ts";
import { brokenSeals, sealedRowCount } from "./seals.ts";
import { markedKeys } from "./dirty.ts";
import { integrityProblems } from "./sql/dialect.ts";
import type { Sql } from "./sql/port.ts";
import { actionEventSql } from "./tables/action-events.ts";
import { actionDocument, actionFromRow, actionSql, type ActionWithEventRow } from "./tables/actions.ts";
import { censusSql } from "./tables/census.ts";
import { issuerRevisionSql } from "./tables/issuer-revisions.ts";
import { journalSql } from "./tables/journal.ts";
import { lineageSql } from "./tables/lineage.ts";
import { mintScheduleSql } from "./tables/mint-schedule.ts";
import { ownerSql } from "./tables/owners.ts";
import { portfolioSql } from "./tables/portfolios.ts";
import { yieldSql } from "./tables/yields.ts";
import { yieldsTextLike } from "./yields-payload.ts";
import { checkCostBasisDeclarations, checkTransactionChanges } from "./verify-lots.ts";

export interface CheckResult {
  name: string;
  ok: boolean;
  /** How many rows (or items) the check looked at. */
  checked: number;
  /** One sentence per mismatch; capped (see maxProblems), `problemCount` has the full number. */
  problems: string[];
  problemCount: number;
}

export interface VerifyReport {
  ok: boolean;
  checks: CheckResult[];
  replayedAt: string;
}

const maxProblems = 20;

class Check {
  checked = 0;
  problems: string[] = [];
  problemCount = 0;
  constructor(readonly name: string) {}
  fail(message: string): void {
    this.problemCount++;
    if (this.problems.length < maxProblems) this.problems.push(message);
  }
  result(): CheckResult {
    return { name: this.name, ok: this.problemCount === 0, checked: this.checked, problems: this.problems, problemCount: this.problemCount };
  }
}

// ---- the checks ------------------------------------------------------------------------------

export async function checkIntegrity(db: Sql): Promise<CheckResult> {
  const c = new Check("integrity_check");
  c.checked = 1;
  for (const problem of await integrityProblems(db)) c.fail(problem);
  return c.result();
}

export async function checkIssuerRevisionHashes(db: Sql): Promise<CheckResult> {
  const c = new Check("issuer_revisions.payload_sha256");
  for await (const r of db.iterate(issuerRevisionSql.hashes)) {
    c.checked++;
    if (sha256Hex(r.payload) !== r.payload_sha256) c.fail(`issuer revision ${r.id}: payload hashes to ${sha256Hex(r.payload)}, stored ${r.payload_sha256}`);
  }
  return c.result();
}

/** What the lots are derived from (verify-lots.ts): the operator's declarations, and the transactions' stored parts. */
export async function checkLotObservations(db: Sql): Promise<CheckResult[]> {
  const declarations = new Check("cost_basis_declarations.payload_sha256");
  declarations.checked = await checkCostBasisDeclarations(db, (m) => declarations.fail(m));
  const parts = new Check("transaction changes agree with balance changes");
  parts.checked = await checkTransactionChanges(db, (m) => parts.fail(m));
  return [declarations.result(), parts.result()];
}

/** Rows nothing derives (observations, the journal, the dataset label) against their seals. */
export async function checkSeals(db: Sql): Promise<CheckResult> {
  const c = new Check("sealed rows match their seals");
  c.checked = await sealedRowCount(db);
  for await (const b of brokenSeals(db)) c.fail(`${b.table} row ${b.key}: ${b.problem}`);
  return c.result();
}

const storedActionRows = (db: Sql) => db.iterate(actionSql.withEvents);

/** The action record an action's rows stand for, or why it cannot be read back. */
function readBack(r: ActionWithEventRow): ActionRecord | string {
  if (r.record === null) return `its event row ${r.event_id} is missing`;
  try {
    return actionFromRow({ ...r, record: r.record });
  } catch {
    return "its event's record or its wallet values are not JSON";
  }
}

/**
 * Each action's payload (its event's record with the wallet's values put back, docs/storage.md)
 * hashes to its payload_sha256, and its evidence to its evidence_sha256; each event row's content
 * hashes to the SHA-256 it is keyed by, names the mint and transition of its record, and is shown
 * by some action.
 */
export async function checkActionHashes(db: Sql): Promise<CheckResult[]> {
  const payload = new Check("actions.payload_sha256");
  const evidence = new Check("actions.evidence_sha256");
  for await (const r of storedActionRows(db)) {
    payload.checked++;
    evidence.checked++;
    const a = readBack(r);
    if (typeof a === "string") {
      payload.fail(`action ${r.id}: ${a}`);
      evidence.fail(`action ${r.id}: ${a}`);
      continue;
    }
    const hash = sha256Hex(canonicalJson(a));
    if (hash !== r.payload_sha256) payload.fail(`action ${r.id}: payload hashes to ${hash}, stored ${r.payload_sha256}`);
    const recomputed = sha256Hex(canonicalJson(actionEvidencePayload(a)));
    if (recomputed !== r.evidence_sha256) evidence.fail(`action ${r.id}: evidence hashes to ${recomputed}, stored ${r.evidence_sha256}`);
  }
  return [payload.result(), evidence.result(), await checkActionEvents(db)];
}

async function checkActionEvents(db: Sql): Promise<CheckResult> {
  const c = new Check("action_events.sha256");
  const rows = db.iterate(actionEventSql.withShown);
  for await (const e of rows) {
    c.checked++;
    const hash = eventSha256(e.record, e.summary, e.detail, e.v1_entry);
    if (hash !== e.sha256) c.fail(`action event ${e.id}: its content hashes to ${hash}, stored ${e.sha256}`);
    let named: { mint?: unknown; transitionKey?: unknown } = {};
    try {
      named = JSON.parse(e.record);
    } catch {
      c.fail(`action event ${e.id}: its record is not JSON`);
    }
    if (named.mint !== e.mint || (named.transitionKey ?? null) !== e.transition_key) c.fail(`action event ${e.id}: its mint or transition differs from its record's`);
    if (Number(e.shown) === 0) c.fail(`action event ${e.id}: stored, but no action shows it`);
  }
  return c.result();
}

type JournalRow = Awaited<ReturnType<typeof readJournal>>[number];

const AMOUNT_COLUMNS = [
  ["units_delta", "unitsDelta"],
  ["principal_units_delta", "principalUnitsDelta"],
  ["income_units", "incomeUnits"],
  ["usd", "usd"],
] as const;

const sameAmount = (a: string | null, b: string | null): boolean => (a === null || b === null ? a === b : eq(parseDecimal(a), parseDecimal(b)));
const negated = (a: string | null): Rat | null => (a === null ? null : { ...parseDecimal(a), n: -parseDecimal(a).n });
const isNegationOf = (a: string | null, b: string | null): boolean => {
  if (a === null || b === null) return a === b;
  const nb = negated(b)!;
  return eq(parseDecimal(a), nb);
};

function readJournal(db: Sql) {
  return db.all(journalSql.all);
}

/**
 * Journal invariants (docs/journal.md#invariants): rows agree with their own payload; every reversal reverses an
 * earlier recognition of the same owner × action, at most once, with the negated amounts; at most
 * one recognition stands per owner × action.
 */
export function checkJournal(rows: JournalRow[]): CheckResult[] {
  const rowsMatch = new Check("journal rows match their payload");
  const reversals = new Check("journal reversals");
  const standing = new Check("journal standing recognitions");
  const byId = new Map(rows.map((r) => [r.id, r]));
  const reversalLinks: { target: number; by: number }[] = [];

  for (const r of rows) {
    rowsMatch.checked++;
    let b: JournalBooking;
    try {
      b = bookingOf(r);
    } catch {
      rowsMatch.fail(`journal ${r.id}: payload is not JSON`);
      continue;
    }
    if (b.owner !== r.owner || b.actionId !== r.action_id || b.treatment !== r.treatment || b.type !== r.type || b.evidenceSha256 !== r.evidence_sha256) {
      rowsMatch.fail(`journal ${r.id}: owner, action, type, treatment or evidence column differs from its payload`);
    }
    for (const [col, field] of AMOUNT_COLUMNS) {
      if (!sameAmount(r[col], b[field])) rowsMatch.fail(`journal ${r.id}: ${col} ${r[col]} differs from payload ${field} ${b[field]}`);
    }

    if (r.entry_type === "recognition") {
      if (r.reverses_id !== null) reversals.fail(`journal ${r.id}: a recognition that names reverses_id ${r.reverses_id}`);
      continue;
    }
    reversals.checked++;
    if (r.entry_type !== "reversal") {
      reversals.fail(`journal ${r.id}: unknown entry type ${r.entry_type}`);
      continue;
    }
    const target = r.reverses_id === null ? undefined : byId.get(r.reverses_id);
    if (!target) {
      reversals.fail(`journal ${r.id}: reverses ${r.reverses_id ?? "nothing"}, which is not in the journal`);
      continue;
    }
    if (target.entry_type !== "recognition") reversals.fail(`journal ${r.id}: reverses ${target.id}, which is a ${target.entry_type}`);
    if (target.id >= r.id) reversals.fail(`journal ${r.id}: reverses a later entry ${target.id}`);
    if (target.owner !== r.owner || target.action_id !== r.action_id) reversals.fail(`journal ${r.id}: reverses ${target.id} of another owner or action`);
    for (const [col] of AMOUNT_COLUMNS) {
      if (!isNegationOf(r[col], target[col])) reversals.fail(`journal ${r.id}: ${col} ${r[col]} is not the negation of ${target[col]} in ${target.id}`);
    }
    reversalLinks.push({ target: target.id, by: r.id });
  }
  const reversedBy = groupBy(reversalLinks, (x) => x.target);
  for (const [target, by] of reversedBy) if (by.length > 1) reversals.fail(`journal ${target}: reversed ${by.length} times (${by.map((x) => x.by).join(", ")})`);

  const standingRows = rows.filter((r) => r.entry_type === "recognition" && !reversedBy.has(r.id));
  standing.checked = standingRows.length;
  for (const [key, list] of groupBy(standingRows, (r) => `${r.owner} ${r.action_id}`)) {
    if (list.length > 1) standing.fail(`${key}: ${list.length} standing recognitions (${list.map((r) => r.id).join(", ")})`);
  }
  return [rowsMatch.result(), reversals.result(), standing.result()];
}

/**
 * Income = journal: per owner, the plain sum of the journal's income USD (reversals carry negated
 * amounts, so the sum is what stands) equals the income v1 shows from the current actions.
 */
export async function checkIncome(db: Sql, rows: JournalRow[]): Promise<CheckResult> {
  const c = new Check("income equals journal");
  const journalSum = new Map<string, Rat>();
  for (const r of rows) {
    if (r.treatment !== "income" || r.usd === null) continue;
    journalSum.set(r.owner, add(journalSum.get(r.owner) ?? ZERO, parseDecimal(r.usd)));
  }
  const actionSum = new Map<string, Rat>();
  for await (const r of db.iterate(actionSql.v1Income)) {
    // v1 shows USD rounded for people; the exact amount it stands for is under `exact`.
    const entry = JSON.parse(actionDocument(r)) as { usd: string | null; exact?: { usd: string | null } };
    const usd = entry.exact ? entry.exact.usd : entry.usd;
    if (usd !== null) actionSum.set(r.owner, add(actionSum.get(r.owner) ?? ZERO, parseDecimal(usd)));
  }
  for (const owner of new Set([...journalSum.keys(), ...actionSum.keys()])) {
    c.checked++;
    const j = journalSum.get(owner) ?? ZERO,
      a = actionSum.get(owner) ?? ZERO;
    if (!eq(j, a)) c.fail(`${owner}: journal income ${formatExact(j)} USD, actions show ${formatExact(a)} USD`);
  }
  return c.result();
}

/**
 * The read models the API serves are derived state: each action's list item, v1 entry, v1 kind
 * and detail (its event's templates, spliced with its wallet's values) are projections of its
 * payload, and each portfolio is rendered from the engine's positions, the journal's income and
 * the wallet's actions.
 * Recompute them all and compare, so a stale or tampered cache cannot go unnoticed.
 */
export async function checkReadModels(db: Sql, derived: WalletDerivations = walletDerivations(db)): Promise<CheckResult> {
  const c = new Check("read models match their sources");
  for await (const r of storedActionRows(db)) {
    c.checked++;
    const a = readBack(r);
    if (typeof a === "string") {
      c.fail(`action ${r.id}: ${a}`);
      continue;
    }
    const v1 = v1Entry(a);
    const columns = [r.id, r.owner, r.mint, r.type, r.treatment, r.state, r.effective_at, r.usd, r.first_observed_active_at, r.v1_kind];
    const fromPayload = [a.id, a.owner, a.mint, a.type, a.treatment, a.lifecycle.state, actionListedAt(a), a.usd, a.timestamps.firstObservedActiveAt, v1?.kind ?? null];
    if (columns.some((v, i) => v !== fromPayload[i])) c.fail(`action ${r.id}: its indexed columns differ from its payload`);
    // What the API serves: the event's templates with the wallet's values spliced in.
    const values = storedValues(r);
    const same = (template: string | null, projected: unknown) => template !== null && sameJson(splice(template, values), projected);
    if (!same(r.summary, actionSummary(a))) c.fail(`action ${r.id}: the served list item is not the projection of its payload`);
    if (v1 ? !same(r.v1_entry, v1) : r.v1_entry !== null) c.fail(`action ${r.id}: the served v1 entry is not the projection of its payload`);
    if (!same(r.detail, actionDetailBase(a))) c.fail(`action ${r.id}: the served detail is not the projection of its payload`);
  }

  await comparePortfolios(db, c, await derived());
  return c.result();
}

// Wallets derived, and their stored portfolios read and rendered again, at a time.
const WALLETS_PER_DERIVATION = 500;

/** The engine's positions and yields of the settled wallets, each at its last booking time. */
interface Derived {
  /** Wallets waiting for their booking (left out: what is stored predates their observations). */
  waiting: Set<string>;
  /** The others, grouped by booking time, a few hundred at a time. */
  groups: { at: Date; owners: string[]; positions: PositionRecord[]; yields: YieldRecord[] }[];
}
export type WalletDerivations = () => Promise<Derived>;

/**
 * The engine run once per verify over the settled wallets, for both checks that compare with it:
 * the portfolios (read models) and the yields (derived tables). Only the positions and yields are
 * kept, so the two checks hold a few KB a wallet between them instead of running it twice.
 */
export function walletDerivations(db: Sql): WalletDerivations {
  let derived: Promise<Derived> | null = null;
  return () =>
    (derived ??= (async () => {
      const waiting = await pendingOwners(db);
      const ownersAt = groupBy(
        (await db.all(yieldSql.bookedAt)).filter((r) => !waiting.has(r.owner)),
        (r) => r.updated_at,
      );
      const groups: Derived["groups"] = [];
      for (const [at, group] of ownersAt) {
        for (let i = 0; i < group.length; i += WALLETS_PER_DERIVATION) {
          const owners = group.slice(i, i + WALLETS_PER_DERIVATION).map((r) => r.owner);
          const out = runEngine(await loadEngineInput(db, new Date(at), { owners }));
          groups.push({ at: new Date(at), owners, positions: out.positions, yields: out.yields });
        }
      }
      return { waiting, groups };
    })());
}

/**
 * Each stored portfolio is, byte for byte, the rendering of the positions the engine derives for
 * the wallet at its booking time, its income summed from the journal and its actions (those are
 * checked against the engine and the journal on their own). A wallet waiting for its booking is
 * left out; one with no stored portfolio was never booked, and is rendered per request as holding
 * nothing, so none is missing.
 */
async function comparePortfolios(db: Sql, c: Check, { waiting, groups }: Derived): Promise<void> {
  const checked = new Set<string>();
  for (const { owners, positions } of groups) {
    const stored = await db.all(portfolioSql.ofOwners, { owners });
    const rendered = await renderPortfolios(db, positionsOf(owners, positions));
    for (const r of stored) {
      c.checked++;
      if (rendered.get(r.owner) !== r.body) c.fail(`portfolio of ${r.owner}: the stored rendering is not the rendering of its positions, income totals and actions`);
    }
    for (const o of owners) checked.add(o);
  }
  for (const { owner } of await db.all(portfolioSql.owners)) {
    if (!checked.has(owner) && !waiting.has(owner)) c.fail(`portfolio of ${owner}: stored, but the wallet has no booking time`);
  }
}

/**
 * No drift: the engine, run in memory over the stored observations at the time of the last
 * replay, derives exactly the stored actions and standing bookings. The last replay's time is
 * used (not the wall clock) because a scheduled change that activated since then is not drift.
 */
export async function checkReplay(db: Sql, journalRows: JournalRow[], replayedAt: Date): Promise<CheckResult> {
  const c = new Check("replay matches stored bookings");
  const out = runEngine(await loadEngineInput(db, replayedAt));
  // Wallets still marked dirty wait for their booking (a running server books them shortly): what
  // is stored for them is what was booked before their newest observations.
  const waiting = await pendingOwners(db);
  const settled = <T extends { owner: string }>(xs: T[]) => xs.filter((x) => !waiting.has(x.owner));

  const stored = new Map((await db.all(actionSql.ownerHashes)).filter((r) => !waiting.has(r.owner)).map((r) => [r.id, r.payload_sha256]));
  for (const a of settled(out.actions)) {
    c.checked++;
    const hash = stored.get(a.id);
    if (hash === undefined) c.fail(`action ${a.id}: the engine derives it, the ledger does not hold it`);
    else if (hash !== sha256Hex(canonicalJson(a))) c.fail(`action ${a.id}: the stored payload differs from the engine's`);
    stored.delete(a.id);
  }
  for (const id of stored.keys()) c.fail(`action ${id}: stored, but the engine no longer derives it`);

  const reversed = new Set(journalRows.filter((r) => r.entry_type === "reversal").map((r) => r.reverses_id));
  const standing = new Map<string, JournalBooking>();
  for (const r of settled(journalRows)) if (r.entry_type === "recognition" && !reversed.has(r.id)) standing.set(`${r.owner} ${r.action_id}`, bookingOf(r));
  for (const b of settled(out.bookings)) {
    c.checked++;
    const key = `${b.owner} ${b.actionId}`;
    const s = standing.get(key);
    if (!s) c.fail(`booking ${key}: the engine books it, the journal has no standing recognition`);
    // Figures only: a revision that changes none is not booked again, so the standing entry may cite older evidence.
    else if (!sameFigures(s, b)) c.fail(`booking ${key}: the standing recognition differs from the engine's booking`);
    standing.delete(key);
  }
  for (const key of standing.keys()) c.fail(`booking ${key}: stands in the journal, but the engine books nothing`);
  return c.result();
}

/**
 * The tables booking writes from the engine's records hold exactly, byte for byte, what the
 * engine derives from the stored observations at the time each was booked: booking writes
 * `JSON.stringify` of the records (a yields row: their encoding, yields-payload.ts), so the same
 * records give the same bytes. Booking is
 * incremental, so each mint is re-derived at its own booking time (lineage and census instances,
 * stamped in `mint_schedule`) and each wallet at its own (its yields, stamped in `yields`; the
 * engine's run over the wallets is shared with the portfolios' check); what is still marked dirty
 * waits for its booking and is left out. The taxonomy is the
 * census of the stored instances.
 */
export async function checkDerivedTables(db: Sql, derived: WalletDerivations = walletDerivations(db)): Promise<CheckResult> {
  const c = new Check("derived tables match the engine");
  const compare = (table: string, stored: Map<string, string>, want: Map<string, string>) => {
    for (const [k, bytes] of stored) {
      c.checked++;
      const bytesWanted = want.get(k);
      if (bytesWanted === undefined) c.fail(`${table} ${k}: stored, but the engine derives no such row`);
      else if (bytes !== bytesWanted) c.fail(`${table} ${k}: the stored row is not what the engine derives`);
    }
    for (const k of want.keys()) if (!stored.has(k)) c.fail(`${table} ${k}: the engine derives it, the ledger does not hold it`);
  };
  const keyed = (rows: { k: string; v: string }[]) => new Map(rows.map((r) => [r.k, r.v]));
  const instanceRow = (i: CensusInstance) => JSON.stringify([i.mint, i.type, i.eventId, i.version, i.reconciled]);

  const dirtyMints = await markedKeys(db, "mint");
  const mintsAt = groupBy(
    (await db.all(mintScheduleSql.bookedAt)).filter((r) => !dirtyMints.has(r.mint)),
    (r) => r.updated_at,
  );
  const checkedMints = new Set<string>();
  for (const [at, group] of mintsAt) {
    const mints = group.map((r) => r.mint);
    const out = runEngine(await loadEngineInput(db, new Date(at), { owners: [], mints }));
    const inGroup = new Set(mints);
    compare("lineage", keyed(await db.all(lineageSql.keyedOfMints, { mints })), new Map(out.lineage.filter((l) => inGroup.has(l.mint)).map((l) => [l.mint, JSON.stringify(l)])));
    compare(
      "census_instances",
      new Map((await storedCensusInstances(db, mints)).map((i) => [i.transitionKey, instanceRow(i)])),
      new Map(out.censusInstances.filter((i) => inGroup.has(i.mint)).map((i) => [i.transitionKey, instanceRow(i)])),
    );
    for (const m of mints) checkedMints.add(m);
  }
  for (const { mint } of await db.all(lineageSql.mints)) {
    if (!checkedMints.has(mint) && !dirtyMints.has(mint)) c.fail(`lineage ${mint}: stored, but the mint has no booking time`);
  }
  // A type with no stored row is served as its empty census (a ledger never booked has none).
  const census = keyed(await db.all(censusSql.keyedTypes));
  for (const empty of computeCensus([])) if (!census.has(empty.type)) census.set(empty.type, JSON.stringify(empty));
  compare("taxonomy_census", census, new Map(computeCensus(await storedCensusInstances(db)).map((e) => [e.type, JSON.stringify(e)])));

  for (const { owners, yields: derivedYields } of (await derived()).groups) {
    const yields = groupBy(derivedYields, (y) => y.owner);
    const storedYields = keyed(await db.all(yieldSql.keyedOfOwners, { owners }));
    compare("yields", storedYields, new Map(owners.map((o) => [o, yieldsTextLike(storedYields.get(o) ?? "", yields.get(o) ?? [])])));
  }
  return c.result();
}

/**
 * Stored JSON equals a projection: the same value (compared canonically, since the payload a
 * projection is rebuilt from has sorted keys) and stored exactly as `JSON.stringify` writes it,
 * so a changed byte that parses to the same value (an escape's hex case, `1e5` for `1E5`) fails too.
 */
function sameJson(stored: string, projected: unknown): boolean {
  try {
    const parsed = JSON.parse(stored);
    return JSON.stringify(parsed) === stored && canonicalJson(parsed) === canonicalJson(projected);
  } catch {
    return false;
  }
}

/** Owners waiting to be booked: marked dirty themselves, or holding a mint that is. */
async function pendingOwners(db: Sql): Promise<Set<string>> {
  return new Set((await db.all(ownerSql.pending)).map((r) => r.owner));
}

/** When the ledger was last booked: every booking rewrites the booked wallets' yields rows. */
export async function lastReplayAt(db: Sql): Promise<Date | null> {
  const r = (await db.get(yieldSql.lastBookedAt))!;
  return r.at ? new Date(r.at) : null;
}

/** A check that cannot even read its rows (a corrupt page) fails under its own name. */
async function guarded(names: string[], run: () => Promise<CheckResult | CheckResult[]>): Promise<CheckResult[]> {
  try {
    const r = await run();
    return Array.isArray(r) ? r : [r];
  } catch (e) {
    return names.map((name) => ({ name, ok: false, checked: 0, problems: [`could not be checked: ${(e as Error).message}`], problemCount: 1 }));
  }
}

export async function verifyLedger(db: Sql, now = new Date()): Promise<VerifyReport> {
  let replayedAt = now;
  const run = async (tx: Sql): Promise<CheckResult[]> => {
    const checks: CheckResult[] = [];
    checks.push(...(await guarded(["integrity_check"], () => checkIntegrity(tx))));
    checks.push(...(await guarded(["issuer_revisions.payload_sha256"], () => checkIssuerRevisionHashes(tx))));
    checks.push(...(await guarded(["sealed rows match their seals"], () => checkSeals(tx))));
    checks.push(...(await guarded(["cost_basis_declarations.payload_sha256", "transaction changes agree with balance changes"], () => checkLotObservations(tx))));
    checks.push(...(await guarded(["actions.payload_sha256", "actions.evidence_sha256", "action_events.sha256"], () => checkActionHashes(tx))));
    let journalRows: JournalRow[] = [];
    const derived = walletDerivations(tx); // the engine over the settled wallets, once for two checks
    const journalNames = ["journal rows match their payload", "journal reversals", "journal standing recognitions"];
    const journalChecks = await guarded(journalNames, async () => checkJournal((journalRows = await readJournal(tx))));
    checks.push(...journalChecks);
    const journalRead = journalChecks.every((c) => c.checked > 0 || c.ok);
    const afterJournal = (check: () => Promise<CheckResult>) => async () => {
      if (!journalRead) throw new Error("the journal could not be read");
      return check();
    };
    checks.push(
      ...(await guarded(
        ["income equals journal"],
        afterJournal(() => checkIncome(tx, journalRows)),
      )),
    );
    checks.push(
      ...(await guarded(
        ["read models match their sources"],
        afterJournal(() => checkReadModels(tx, derived)),
      )),
    );
    checks.push(
      ...(await guarded(
        ["replay matches stored bookings"],
        afterJournal(async () => {
          replayedAt = (await lastReplayAt(tx)) ?? now;
          return checkReplay(tx, journalRows, replayedAt);
        }),
      )),
    );
    checks.push(...(await guarded(["derived tables match the engine"], () => checkDerivedTables(tx, derived))));
    return checks;
  };
  // One snapshot for every check. Ending a read transaction can only fail on a corrupt file,
  // which a check has already named.
  let checks: CheckResult[] = [];
  try {
    await db.read(async (tx) => void (checks = await run(tx)));
  } catch (e) {
    if (!checks.length) throw e;
  }
  return { ok: checks.every((c) => c.ok), checks, replayedAt: replayedAt.toISOString() };
}
