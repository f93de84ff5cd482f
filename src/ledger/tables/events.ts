// The outbox's events (docs/events.md#the-outbox-the-worker-needs): one row per event a tenant's
// subscribers are sent, numbered in commit order; append-only (triggers refuse UPDATE and DELETE).
import { query, sql, statements } from "../sql/statement.ts";

export const eventSql = statements("events", {
  insert: query<{ tenantId: number; type: string; owner: string | null; body: string; at: string }, { seq: number | string }>(
    (p) => sql`INSERT INTO events (tenant_id, type, owner, body, created_at) VALUES (${p.tenantId}, ${p.type}, ${p.owner}, ${p.body}, ${p.at}) RETURNING seq`,
  ),
  /** The tenant's events after a number, oldest first (pings, sent to one subscription only, left out): the live stream. */
  afterOfTenant: query<{ tenantId: number; after: number; limit: number }, { seq: number | string; type: string; body: string }>(
    (p) => sql`SELECT seq, type, body FROM events WHERE tenant_id = ${p.tenantId} AND seq > ${p.after} AND type <> 'ping' ORDER BY seq LIMIT ${p.limit}`,
  ),
  newestOfTenant: query<{ tenantId: number }, { seq: number | string | null }>((p) => sql`SELECT max(seq) AS seq FROM events WHERE tenant_id = ${p.tenantId}`),
});
