// What the ledger holds: live data (`mainnet`) or the demo's (`synthetic`); one row, written once.
import type { DatasetLabel } from "../../../schemas/common.ts";
import { query, sql, statements } from "../sql/statement.ts";

export const datasetLabelSql = statements("dataset_label", {
  read: query<Record<never, never>, DatasetLabel>(() => sql`SELECT kind, description FROM dataset_label WHERE id = 1`),
  /** Written once: a later label changes nothing. */
  write: query<{ kind: DatasetLabel["kind"]; description: string | null; at: string }>(
    (p) => sql`INSERT INTO dataset_label (id, kind, description, created_at) VALUES (1, ${p.kind}, ${p.description}, ${p.at}) ON CONFLICT(id) DO NOTHING`,
  ),
});
