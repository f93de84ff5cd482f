// The outbox's events (docs/events.md#the-outbox-the-worker-needs): one row per event a tenant's
// subscribers are sent, numbered in commit order; append-only (triggers refuse UPDATE and DELETE).
// An event about an action is stored as its wallet's values and the template its chunk's events
// share (docs/events.md#what-the-outbox-stores): `eventBodyOf` is the one mapping of a stored body.
import { spliceJoined } from "../action-rows.ts";
import { query, sql, statements } from "../sql/statement.ts";

/** A stored event's body as read: the whole text, or the wallet's values and their template. */
export interface StoredBody {
  body: string;
  template: string | null;
}

/** The body an event is sent with. */
export const eventBodyOf = (r: StoredBody): string => (r.template === null ? r.body : spliceJoined(r.template, r.body));

/** An event's template (`t`), joined to the event (`e`) by the reads that send it. */
export const templateOfEvent = sql`LEFT JOIN event_templates t ON t.id = e.template_id`;

export const eventSql = statements("events", {
  insert: query<{ tenantId: number; type: string; owner: string | null; body: string; templateId: number | null; at: string }, { seq: number | string }>(
    (p) => sql`INSERT INTO events (tenant_id, type, owner, body, template_id, created_at) VALUES (${p.tenantId}, ${p.type}, ${p.owner}, ${p.body}, ${p.templateId}, ${p.at}) RETURNING seq`,
  ),
  insertTemplate: query<{ text: string }, { id: number | string }>((p) => sql`INSERT INTO event_templates (text) VALUES (${p.text}) RETURNING id`),
  /** The tenant's events after a number, oldest first (pings, sent to one subscription only, left out): the live stream. */
  afterOfTenant: query<{ tenantId: number; after: number; limit: number }, { seq: number | string; type: string } & StoredBody>(
    (p) =>
      sql`SELECT e.seq, e.type, e.body, t.text AS template FROM events e ${templateOfEvent} WHERE e.tenant_id = ${p.tenantId} AND e.seq > ${p.after} AND e.type <> 'ping' ORDER BY e.seq LIMIT ${p.limit}`,
  ),
  newestOfTenant: query<{ tenantId: number }, { seq: number | string | null }>((p) => sql`SELECT max(seq) AS seq FROM events WHERE tenant_id = ${p.tenantId}`),
});
