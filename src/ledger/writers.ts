// The writers of derived rows: one action (payload, hash, indexed columns and the read models
// projected from it) and one journal entry. Booking and the test harness both write through
// these, so every row is canonical and hashed the same way wherever it came from.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";
import type { ActionRecord, JournalBooking } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql, type ActionWrite } from "./tables/actions.ts";
import { incomeTotalSql } from "./tables/income-totals.ts";
import { journalSql } from "./tables/journal.ts";
import { actionDetailBase, actionListedAt, actionSummary, v1Entry } from "./projections.ts";

/**
 * Writes one action: its canonical payload and hash, the indexed columns, and the read models
 * projected from it. A row whose payload did not change is left as it is. Callers that already
 * hold the canonical payload and its hash (booking compares them first) pass them in.
 */
export async function writeAction(tx: Sql, a: ActionRecord | ActionRow, at: string): Promise<void> {
  const row = "payloadSha256" in a ? a : actionRow(a);
  await tx.run(actionSql.upsert, { ...row, at });
}

/** Everything an action's row holds, serialised (booking builds these outside its transaction). */
export type ActionRow = ActionWrite;

export function actionRow(a: ActionRecord, payload = canonicalJson(a), hash = sha256Hex(payload)): ActionRow {
  const v1 = v1Entry(a);
  return {
    id: a.id, owner: a.owner, mint: a.mint, type: a.type, treatment: a.treatment, state: a.lifecycle.state, effectiveAt: actionListedAt(a), usd: a.usd, payload,
    summary: JSON.stringify(actionSummary(a)), v1Entry: v1 ? JSON.stringify(v1) : null, v1Kind: v1?.kind ?? null, payloadSha256: hash, evidenceSha256: a.evidenceSha256,
    firstObservedActiveAt: a.timestamps.firstObservedActiveAt, detail: JSON.stringify(actionDetailBase(a)),
  };
}

export interface JournalEntryMeta { entryType: "recognition" | "reversal"; reversesId: number | null; changeReason: string | null; at: string }

/** Appends one journal entry (a reversal passes its booking already negated); returns its id. */
export async function appendJournal(tx: Sql, b: JournalBooking, m: JournalEntryMeta): Promise<number> {
  const row = await tx.get(journalSql.insert, {
    owner: b.owner, actionId: b.actionId, entryType: m.entryType, reversesId: m.reversesId, mint: b.mint, symbol: b.symbol, type: b.type, treatment: b.treatment,
    kind: b.kind, unitsDelta: b.unitsDelta, principalUnitsDelta: b.principalUnitsDelta, incomeUnits: b.incomeUnits, usd: b.usd, factor: b.factor,
    effectiveAt: b.effectiveAt ?? "", changeReason: m.changeReason, evidenceSha256: b.evidenceSha256, payload: canonicalJson(b), at: m.at,
  });
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
    for (const r of await tx.all(journalSql.incomeOf, { owner })) {
      usd.set(r.mint, r.usd === null ? (usd.get(r.mint) ?? ZERO) : add(usd.get(r.mint) ?? ZERO, parseDecimal(r.usd)));
    }
    const open = new Map((await tx.all(journalSql.unvaluedOf, { owner })).map((r) => [r.mint, r.n]));
    await tx.run(incomeTotalSql.deleteOfOwner, { owner });
    for (const [mint, total] of usd) {
      await tx.run(incomeTotalSql.insert, { owner, mint, usd: formatExact(total), unvalued: open.get(mint) ?? 0, at: now.toISOString() });
    }
  }
}
