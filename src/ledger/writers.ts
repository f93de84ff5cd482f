// The writers of derived rows: one action (payload, hash, indexed columns and the read models
// projected from it) and one journal entry. Booking and the test harness both write through
// these, so every row is canonical and hashed the same way wherever it came from.
import type { Database } from "bun:sqlite";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";
import type { ActionRecord, JournalBooking } from "../domain/types.ts";
import { actionDetailBase, actionListedAt, actionSummary, storedAction, v1Entry, type StoredAction } from "./projections.ts";

/**
 * Writes one action: its canonical payload and hash, the indexed columns, and the read models
 * projected from it. A row whose payload did not change is left as it is. Callers that already
 * hold the canonical payload and its hash (booking compares them first) pass them in.
 */
export function actionWriter(sqlite: Database) {
  const upsert = sqlite.query(
    `INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, updated_at, detail)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
     ON CONFLICT(id) DO UPDATE SET type = ?4, treatment = ?5, state = ?6, effective_at = ?7, usd = ?8, payload = ?9, summary = ?10, v1_entry = ?11,
       v1_kind = ?12, payload_sha256 = ?13, evidence_sha256 = ?14, first_observed_active_at = ?15, updated_at = ?16, detail = ?17
       WHERE payload_sha256 IS NOT ?13 OR detail IS NULL`,
  );
  return (a: ActionRecord | StoredAction | ActionRow, at: string): void => {
    const row = "payloadSha256" in a ? a : actionRow(a);
    upsert.run(...row.values, at, row.detail);
  };
}

/** Everything an action's row holds, serialised (booking builds these outside its transaction). */
export interface ActionRow { id: string; payloadSha256: string; values: (string | null)[]; detail: string }

export function actionRow(a: ActionRecord | StoredAction, stored = storedAction(a), payload = canonicalJson(stored), hash = sha256Hex(payload)): ActionRow {
  const v1 = v1Entry(stored);
  return {
    id: a.id,
    payloadSha256: hash,
    values: [a.id, a.owner, a.mint, a.type, a.treatment, a.lifecycle.state, actionListedAt(a), a.usd, payload,
      JSON.stringify(actionSummary(stored)), v1 ? JSON.stringify(v1) : null, v1?.kind ?? null, hash, a.evidenceSha256, a.timestamps.firstObservedActiveAt],
    detail: JSON.stringify(actionDetailBase(stored)),
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

function negate(s: string | null): string | null {
  if (s === null) return null;
  if (/^-?0(\.0+)?$/.test(s)) return s.replace(/^-/, "");
  return s.startsWith("-") ? s.slice(1) : "-" + s;
}

/** A reversal carries the standing entry's amounts negated, so a plain sum of the journal stands. */
export function negateBooking(b: JournalBooking): JournalBooking {
  return { ...b, unitsDelta: negate(b.unitsDelta)!, principalUnitsDelta: negate(b.principalUnitsDelta)!, incomeUnits: negate(b.incomeUnits)!, usd: negate(b.usd) };
}
