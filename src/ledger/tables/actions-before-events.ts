// The actions of before each corporate action was stored once (SQLite's 0014, PostgreSQL's 0005):
// migration 0015/0006 renames the table to this name, and its data step (upgrades.ts) reads every
// row into the new shape and drops it, in the migration's transaction. It exists only then.
import type { EventRow } from "../action-rows.ts";
import { query, sql, statements } from "../sql/statement.ts";

/** The migration that moves these rows, per engine. */
export const storeOnceMigration = { sqlite: "0015_action_events", postgres: "0006_action_events" } as const;

/** A row of before: its canonical payload and the documents it was served as. */
export interface ActionBeforeRow {
  id: string;
  owner: string;
  mint: string;
  type: string;
  treatment: string;
  state: string;
  effective_at: string;
  usd: string | null;
  payload: string;
  summary: string;
  v1_entry: string | null;
  v1_kind: string | null;
  detail: string | null;
  payload_sha256: string;
  evidence_sha256: string;
  first_observed_active_at: string | null;
  updated_at: string;
}

export const actionsBeforeEventsSql = statements("actions_before_events", {
  /** The rows after `after`, in id order. */
  page: query<{ after: string; limit: number }, ActionBeforeRow>(
    (p) =>
      sql`SELECT id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, detail, payload_sha256, evidence_sha256,
         first_observed_active_at, updated_at FROM actions_before_events WHERE id > ${p.after} ORDER BY id LIMIT ${p.limit}`,
  ),
  drop: query(() => sql`DROP TABLE actions_before_events`),
  /** An event row, as the migration made the table (migration 0026 added the record's columns it now has). */
  insertEvent: query<EventRow, { id: number }>(
    (p) =>
      sql`INSERT INTO action_events (sha256, mint, transition_key, record, summary, detail, v1_entry) VALUES (${p.sha256}, ${p.mint}, ${p.transitionKey}, ${p.record}, ${p.summary}, ${p.detail}, ${p.v1}) RETURNING id`,
    { writtenFor: storeOnceMigration },
  ),
  /**
   * A wallet's row, as the migration made the table: with the event's columns and the time it was
   * written (migration 0026 moved them to the event's row and dropped the time). Placed in key
   * order later, by migration 0020.
   */
  insertAction: query<Omit<ActionBeforeRow, "payload" | "summary" | "v1_entry" | "detail"> & { wallet_values: string; event_id: number }>(
    (p) =>
      sql`INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, wallet_values, event_id, updated_at)
     VALUES (${p.id}, ${p.owner}, ${p.mint}, ${p.type}, ${p.treatment}, ${p.state}, ${p.effective_at}, ${p.usd}, ${p.v1_kind}, ${p.payload_sha256}, ${p.evidence_sha256},
       ${p.first_observed_active_at}, ${p.wallet_values}, ${p.event_id}, ${p.updated_at})`,
    { writtenFor: storeOnceMigration },
  ),
});
