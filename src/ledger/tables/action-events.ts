// What every wallet holding a corporate action shows alike, stored once (docs/storage.md): the
// action record less the wallet's fields and the served documents as templates, keyed by the
// SHA-256 of that content. The rows are built and read back by action-rows.ts.
import { inList, query, sql, statements } from "../sql/statement.ts";
import type { EventRow } from "../action-rows.ts";

/** An `action_events` row as stored. */
export interface ActionEventRow {
  id: number;
  sha256: string;
  mint: string;
  transition_key: string | null;
  type: string | null;
  treatment: string | null;
  state: string | null;
  first_observed_active_at: string | null;
  record: string;
  summary: string;
  detail: string;
  v1_entry: string | null;
}

export const actionEventSql = statements("action_events", {
  idOf: query<{ sha256: string }, { id: number }>((p) => sql`SELECT id FROM action_events WHERE sha256 = ${p.sha256}`),
  insert: query<EventRow, { id: number }>(
    (p) =>
      sql`INSERT INTO action_events (sha256, mint, transition_key, type, treatment, state, first_observed_active_at, record, summary, detail, v1_entry)
     VALUES (${p.sha256}, ${p.mint}, ${p.transitionKey}, ${p.type}, ${p.treatment}, ${p.state}, ${p.firstObservedActiveAt}, ${p.record}, ${p.summary}, ${p.detail}, ${p.v1}) RETURNING id`,
  ),
  /** The records of these events, by key. */
  recordsOf: query<{ sha256s: readonly string[] }, Pick<ActionEventRow, "sha256" | "record">>((p) => sql`SELECT sha256, record FROM action_events WHERE sha256 IN ${inList(p.sha256s)}`),
  /** Deletes an event row once no action shows it. */
  deleteUnshown: query<{ id: number }>((p) => sql`DELETE FROM action_events WHERE id = ${p.id} AND NOT EXISTS (SELECT 1 FROM actions WHERE event_id = ${p.id})`),
  /** Every event row and how many actions show it (verify). */
  withShown: query<Record<never, never>, ActionEventRow & { shown: number }>(
    () =>
      sql`SELECT e.id, e.sha256, e.mint, e.transition_key, e.type, e.treatment, e.state, e.first_observed_active_at, e.record, e.summary, e.detail, e.v1_entry, (SELECT count(*) FROM actions a WHERE a.event_id = e.id) AS shown
     FROM action_events e ORDER BY e.id`,
  ),
});
