// The writers of derived rows: one action (payload, hash, indexed columns and the read models
// projected from it) and one journal entry. Booking and the test harness both write through
// these, so every row is canonical and hashed the same way wherever it came from.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";
import type { ActionRecord, JournalBooking } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { actionDetailBase, actionListedAt, actionSummary, v1Entry } from "./projections.ts";

/**
 * Writes one action: its canonical payload and hash, the indexed columns, and the read models
 * projected from it. A row whose payload did not change is left as it is. Callers that already
 * hold the canonical payload and its hash (booking compares them first) pass them in.
 */
const upsertAction = `INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, updated_at, detail)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
     ON CONFLICT(id) DO UPDATE SET type = ?4, treatment = ?5, state = ?6, effective_at = ?7, usd = ?8, payload = ?9, summary = ?10, v1_entry = ?11,
       v1_kind = ?12, payload_sha256 = ?13, evidence_sha256 = ?14, first_observed_active_at = ?15, updated_at = ?16, detail = ?17
       WHERE actions.payload_sha256 IS DISTINCT FROM ?13 OR actions.detail IS NULL`;

export async function writeAction(tx: Sql, a: ActionRecord | ActionRow, at: string): Promise<void> {
  const row = "payloadSha256" in a ? a : actionRow(a);
  await tx.run(upsertAction, ...row.values, at, row.detail);
}

/** Everything an action's row holds, serialised (booking builds these outside its transaction). */
export interface ActionRow { id: string; payloadSha256: string; values: (string | null)[]; detail: string }

export function actionRow(a: ActionRecord, payload = canonicalJson(a), hash = sha256Hex(payload)): ActionRow {
  const v1 = v1Entry(a);
  return {
    id: a.id,
    payloadSha256: hash,
    values: [a.id, a.owner, a.mint, a.type, a.treatment, a.lifecycle.state, actionListedAt(a), a.usd, payload,
      JSON.stringify(actionSummary(a)), v1 ? JSON.stringify(v1) : null, v1?.kind ?? null, hash, a.evidenceSha256, a.timestamps.firstObservedActiveAt],
    detail: JSON.stringify(actionDetailBase(a)),
  };
}

export interface JournalEntryMeta { entryType: "recognition" | "reversal"; reversesId: number | null; changeReason: string | null; at: string }

const insertJournal = `INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta,
       income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;

/** Appends one journal entry (a reversal passes its booking already negated); returns its id. */
export async function appendJournal(tx: Sql, b: JournalBooking, m: JournalEntryMeta): Promise<number> {
  const row = await tx.get<{ id: number }>(insertJournal, b.owner, b.actionId, m.entryType, m.reversesId, b.mint, b.symbol, b.type, b.treatment, b.kind, b.unitsDelta,
    b.principalUnitsDelta, b.incomeUnits, b.usd, b.factor, b.effectiveAt ?? "", m.changeReason, b.evidenceSha256, canonicalJson(b), m.at);
  return row!.id;
}

/**
 * Re-sums each wallet's income from its journal rows (exact decimals). Reversals carry negated
 * amounts, so the plain sum is what stands; unvalued events are the standing income
 * recognitions without USD.
 */
export async function refreshIncomeTotals(tx: Sql, owners: string[], now = new Date()): Promise<void> {
  for (const owner of owners) {
    const usd = new Map<string, Rat>();
    for (const r of await tx.all<{ mint: string; usd: string | null }>("SELECT mint, usd FROM journal WHERE owner = ? AND treatment = 'income'", owner)) {
      usd.set(r.mint, r.usd === null ? (usd.get(r.mint) ?? ZERO) : add(usd.get(r.mint) ?? ZERO, parseDecimal(r.usd)));
    }
    const unvalued = await tx.all<{ mint: string; n: number }>(
      `SELECT mint, count(*) AS n FROM journal j WHERE owner = ? AND treatment = 'income' AND entry_type = 'recognition' AND usd IS NULL
       AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id) GROUP BY mint`,
      owner,
    );
    const open = new Map(unvalued.map((r) => [r.mint, r.n]));
    await tx.run("DELETE FROM income_totals WHERE owner = ?", owner);
    for (const [mint, total] of usd) {
      await tx.run("INSERT INTO income_totals (owner, mint, usd, unvalued_events, updated_at) VALUES (?, ?, ?, ?, ?)", owner, mint, formatExact(total), open.get(mint) ?? 0, now.toISOString());
    }
  }
}
