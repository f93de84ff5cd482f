// The writers of derived rows: actions (with the events they show) and journal entries. Booking
// and the test harness both write through these, so every row is canonical and hashed the same
// way wherever it came from.
import type { ActionRecord, JournalBooking } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import type { Query } from "./sql/statement.ts";
import { actionRow, type ActionRow, type EventRow } from "./action-rows.ts";
import { entryColumns, storedPayload } from "./journal-payload.ts";
import { journalSeals, sealRows } from "./seals.ts";
import { actionEventSql } from "./tables/action-events.ts";
import { actionSql } from "./tables/actions.ts";
import { journalSql, storedAmounts } from "./tables/journal.ts";

export { actionRow, type ActionRow };

/**
 * The id of an event's row within one transaction: found by its hash, else written by `insert`
 * (today's statement, or a migration's data step's for the table as it stood then), and
 * remembered, so each event row is written once, by the first action that needs it.
 */
export function eventRowIds(tx: Sql, insert: Query<EventRow, { id: number }> = actionEventSql.insert): (e: EventRow) => Promise<number> {
  const ids = new Map<string, number>();
  return async (e) => {
    let id = ids.get(e.sha256) ?? (await tx.get(actionEventSql.idOf, { sha256: e.sha256 }))?.id;
    if (id === undefined) id = (await tx.get(insert, e))!.id;
    ids.set(e.sha256, id);
    return id;
  };
}

/**
 * Writes actions within one transaction, each with the event it shows (action-rows.ts), each
 * event row once (`eventRowIds`); an event row no action shows any more is deleted by `finish`,
 * which the transaction calls last.
 */
export function actionWriter(tx: Sql) {
  const released = new Set<number>();
  const eventId = eventRowIds(tx);
  return {
    /**
     * Writes one action unless its stored row has the same payload hash. `shown` is the event
     * the stored row shows, when the caller read it (null: no stored row).
     */
    async write(row: ActionRow, shown?: number | null): Promise<void> {
      const before = shown !== undefined ? shown : ((await tx.get(actionSql.eventOf, { id: row.id }))?.event_id ?? null);
      const id = await eventId(row.event);
      const values = { ...row.columns, eventId: id };
      // A stored row is rewritten in place where it can be; a new one (no stored row) is inserted at once.
      const written = (before !== null && (await tx.run(actionSql.updateInPlace, values)).changes > 0) || (await tx.run(actionSql.upsert, values)).changes > 0;
      if (!written)
        released.add(id); // inserted for a row that did not change: maybe no action shows it
      else if (before !== null && before !== id) released.add(before);
    },
    async remove(id: string, shown: number): Promise<void> {
      await tx.run(actionSql.delete, { id });
      released.add(shown);
    },
    /** Deletes the event rows that lost their last action. */
    async finish(): Promise<void> {
      for (const id of released) await tx.run(actionEventSql.deleteUnshown, { id });
      released.clear();
    },
  };
}

/** Writes one action and the event it shows (the test harness writes rows as booking does). */
export async function writeAction(tx: Sql, a: ActionRecord): Promise<void> {
  const writer = actionWriter(tx);
  await writer.write(actionRow(a));
  await writer.finish();
}

export interface JournalEntryMeta {
  entryType: "recognition" | "reversal";
  reversesId: number | null;
  changeReason: string | null;
  at: string;
}

/**
 * Appends one journal entry (a reversal passes its booking already negated); returns its id. The
 * payload holds the booking's fields the columns do not (journal-payload.ts).
 */
export async function appendJournal(tx: Sql, b: JournalBooking, m: JournalEntryMeta): Promise<number> {
  const columns = entryColumns(b);
  const row = await tx.get(journalSql.insert, {
    ...storedAmounts(columns),
    entry_type: m.entryType,
    reverses_id: m.reversesId,
    change_reason: m.changeReason,
    payload: storedPayload(b, columns),
    at: m.at,
  });
  // Sealed now, while it is the last row of the journal's last page: a chunk's entries sealed
  // together at its end each grew by their seal on pages already full of them, and every such
  // page split in two half-full ones (docs/storage.md#sealed-as-written).
  await sealRows(tx, journalSeals);
  return row!.id;
}
