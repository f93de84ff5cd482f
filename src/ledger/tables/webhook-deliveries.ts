// Each event's delivery to each subscription that wants it: pending until delivered or given up,
// leased while an attempt runs (docs/events.md#the-outbox-the-worker-needs).
import { forUpdate, query, sql, statements } from "../sql/statement.ts";
import { templateOfEvent } from "./events.ts";

/** A claimed delivery, with what its attempt sends and where. */
export interface ClaimedDeliveryRow {
  id: number | string;
  subscription_id: string;
  attempts: number;
  event_seq: number | string;
  /** The event's stored body and template (events.ts eventBodyOf). */
  body: string;
  template: string | null;
  url: string;
  sealed_secrets: string;
  due_since: string;
}

/** A delivery as `webhooks deliveries` lists it, with its event's type. */
export interface DeliveryListingRow {
  id: number | string;
  event_seq: number | string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  due_since: string;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_answer: string | null;
}

const listingColumns = sql`d.id, d.event_seq, e.type, d.status, d.attempts, d.due_since, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_answer`;

export const webhookDeliverySql = statements("webhook_deliveries", {
  insert: query<{ subscriptionId: string; seq: number | string; at: string }>(
    (p) => sql`INSERT INTO webhook_deliveries (subscription_id, event_seq, status, attempts, due_since, next_attempt_at) VALUES (${p.subscriptionId}, ${p.seq}, 'pending', 0, ${p.at}, ${p.at})`,
  ),
  /**
   * The oldest pending delivery of each live subscription that is due and not leased, first
   * attempts first; locked for this claim on PostgreSQL (another server's claim skips them).
   */
  due: query<{ now: string; limit: number }, { id: number | string }>(
    (p) => sql`SELECT d.id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= ${p.now} AND (d.lease_until IS NULL OR d.lease_until < ${p.now})
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.subscription_id = d.subscription_id AND e.status = 'pending' AND e.id < d.id)
              AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.removed_at IS NULL)
            ORDER BY CASE WHEN d.attempts > 0 THEN 1 ELSE 0 END, d.next_attempt_at, d.id
            LIMIT ${p.limit}${forUpdate({ of: "d", skipLocked: true })}`,
  ),
  lease: query<{ id: number | string; until: string }>((p) => sql`UPDATE webhook_deliveries SET lease_until = ${p.until}, attempts = attempts + 1 WHERE id = ${p.id}`),
  claimed: query<{ id: number | string }, ClaimedDeliveryRow>(
    (p) => sql`SELECT d.id, d.subscription_id, d.attempts, d.event_seq, e.body, t.text AS template, s.url, s.sealed_secrets, d.due_since
               FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq ${templateOfEvent} JOIN webhook_subscriptions s ON s.id = d.subscription_id
              WHERE d.id = ${p.id}`,
  ),
  /** Records an attempt's outcome, unless the delivery moved on since it was claimed. */
  recordAttempt: query<{ id: string; attempt: number; status: string; next: string | null; at: string; answerStatus: number | null; answer: string | null }>(
    (p) =>
      sql`UPDATE webhook_deliveries SET status = ${p.status}, next_attempt_at = ${p.next}, lease_until = NULL, last_attempt_at = ${p.at}, last_status = ${p.answerStatus}, last_answer = ${p.answer}
          WHERE id = ${p.id} AND status = 'pending' AND attempts = ${p.attempt}`,
  ),
  /** One more delivery of an event (webhooks test), its id back. */
  add: query<{ subscriptionId: string; seq: number | string; at: string }, { id: number | string }>(
    (p) =>
      sql`INSERT INTO webhook_deliveries (subscription_id, event_seq, status, attempts, due_since, next_attempt_at) VALUES (${p.subscriptionId}, ${p.seq}, 'pending', 0, ${p.at}, ${p.at}) RETURNING id`,
  ),
  /** Frees every lease (SQLite, as serve starts: see outbox.ts releaseOrphanedLeases). */
  releaseLeases: query<Record<never, never>>(() => sql`UPDATE webhook_deliveries SET lease_until = NULL WHERE status = 'pending' AND lease_until IS NOT NULL`),
  /** When the longest-waiting delivery of a live subscription became due (the metrics' queue age). */
  oldestPendingDue: query<Record<never, never>, { t: string | null }>(
    () => sql`SELECT min(d.due_since) AS t FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.status = 'pending' AND s.removed_at IS NULL`,
  ),
  /** A removed subscription's pending deliveries: failed, saying why. */
  failPendingOf: query<{ subscriptionId: string; answer: string }>(
    (p) =>
      sql`UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL, next_attempt_at = NULL, last_answer = ${p.answer} WHERE subscription_id = ${p.subscriptionId} AND status = 'pending'`,
  ),
  /** A subscription's deliveries, newest first. */
  ofSubscription: query<{ subscriptionId: string; limit: number }, DeliveryListingRow>(
    (p) => sql`SELECT ${listingColumns} FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.subscription_id = ${p.subscriptionId} ORDER BY d.id DESC LIMIT ${p.limit}`,
  ),
  byId: query<{ id: string }, DeliveryListingRow>((p) => sql`SELECT ${listingColumns} FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.id = ${p.id}`),
  /** The newest event a subscription was sent (or is to be). */
  latestEventOf: query<{ subscriptionId: string }, { seq: number | string; type: string }>(
    (p) => sql`SELECT e.seq, e.type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.subscription_id = ${p.subscriptionId} ORDER BY d.event_seq DESC LIMIT 1`,
  ),
});
