// The writers of derived rows: actions (with the events they show) and journal entries. Booking
// and the test harness both write through these, so every row is canonical and hashed the same
// way wherever it came from.
import { canonicalJson } from "../domain/evidence.ts";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../domain/numbers.ts";
import type { ActionRecord, JournalBooking } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { actionRow, type ActionRow, type EventRow } from "./action-rows.ts";

export { actionRow, type ActionRow };

// A row whose payload did not change is left as it is (its event row with it).
const upsertAction = `INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at,
       wallet_values, event_id, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
     ON CONFLICT(id) DO UPDATE SET type = ?4, treatment = ?5, state = ?6, effective_at = ?7, usd = ?8, v1_kind = ?9, payload_sha256 = ?10, evidence_sha256 = ?11,
       first_observed_active_at = ?12, wallet_values = ?13, event_id = ?14, updated_at = ?15
       WHERE actions.payload_sha256 IS DISTINCT FROM ?10`;

/**
 * Writes actions within one transaction, each with the event it shows (action-rows.ts): an event
 * row is written once, by the first action that needs it, and found by its hash after that; an
 * event row no action shows any more is deleted by `finish`, which the transaction calls last.
 */
export function actionWriter(tx: Sql) {
  const eventIds = new Map<string, number>();
  const released = new Set<number>();
  const eventId = async (e: EventRow): Promise<number> => {
    let id = eventIds.get(e.sha256) ?? (await tx.get<{ id: number }>("SELECT id FROM action_events WHERE sha256 = ?", e.sha256))?.id;
    if (id === undefined) {
      id = (await tx.get<{ id: number }>(
        "INSERT INTO action_events (sha256, mint, transition_key, record, summary, detail, v1_entry) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        e.sha256, e.mint, e.transitionKey, e.record, e.summary, e.detail, e.v1,
      ))!.id;
    }
    eventIds.set(e.sha256, id);
    return id;
  };
  return {
    /**
     * Writes one action unless its stored row has the same payload hash. `shown` is the event
     * the stored row shows, when the caller read it (null: no stored row).
     */
    async write(row: ActionRow, at: string, shown?: number | null): Promise<void> {
      const before = shown !== undefined ? shown : ((await tx.get<{ event_id: number }>("SELECT event_id FROM actions WHERE id = ?", row.id))?.event_id ?? null);
      const id = await eventId(row.event);
      const written = (await tx.run(upsertAction, ...row.columns, id, at)).changes > 0;
      if (!written) released.add(id); // inserted for a row that did not change: maybe no action shows it
      else if (before !== null && before !== id) released.add(before);
    },
    async remove(id: string, shown: number): Promise<void> {
      await tx.run("DELETE FROM actions WHERE id = ?", id);
      released.add(shown);
    },
    /** Deletes the event rows that lost their last action. */
    async finish(): Promise<void> {
      for (const id of released) await tx.run("DELETE FROM action_events WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM actions WHERE event_id = ?1)", id);
      released.clear();
    },
  };
}

/** Writes one action and the event it shows (the test harness writes rows as booking does). */
export async function writeAction(tx: Sql, a: ActionRecord, at: string): Promise<void> {
  const writer = actionWriter(tx);
  await writer.write(actionRow(a), at);
  await writer.finish();
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
