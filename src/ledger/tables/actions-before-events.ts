// The actions of before each corporate action was stored once (SQLite's 0014, PostgreSQL's 0005):
// migration 0015/0006 renames the table to this name, and its data step (upgrades.ts) reads every
// row into the new shape and drops it, in the migration's transaction. It exists only then.
import { query, sql, statements } from "../sql/statement.ts";

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
});
