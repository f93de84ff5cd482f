// Each event's delivery to each subscription that wants it: pending until delivered or given up,
// leased while an attempt runs (docs/events.md#the-outbox-the-worker-needs).
import { forUpdate, query, sql, statements } from "../sql/statement.ts";

/** A claimed delivery, with what its attempt sends and where. */
export interface ClaimedDeliveryRow {
  id: number | string; subscription_id: string; attempts: number; event_seq: number | string; body: string; url: string; sealed_secrets: string; due_since: string;
}

export const webhookDeliverySql = statements("webhook_deliveries", {
  insert: query<{ subscriptionId: string; seq: number | string; at: string }>((p) =>
    sql`INSERT INTO webhook_deliveries (subscription_id, event_seq, status, attempts, due_since, next_attempt_at) VALUES (${p.subscriptionId}, ${p.seq}, 'pending', 0, ${p.at}, ${p.at})`),
  /**
   * The oldest pending delivery of each live subscription that is due and not leased, first
   * attempts first; locked for this claim on PostgreSQL (another server's claim skips them).
   */
  due: query<{ now: string; limit: number }, { id: number | string }>((p) => sql`SELECT d.id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= ${p.now} AND (d.lease_until IS NULL OR d.lease_until < ${p.now})
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.subscription_id = d.subscription_id AND e.status = 'pending' AND e.id < d.id)
              AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.removed_at IS NULL)
            ORDER BY CASE WHEN d.attempts > 0 THEN 1 ELSE 0 END, d.next_attempt_at, d.id
            LIMIT ${p.limit}${forUpdate({ of: "d", skipLocked: true })}`),
  lease: query<{ id: number | string; until: string }>((p) => sql`UPDATE webhook_deliveries SET lease_until = ${p.until}, attempts = attempts + 1 WHERE id = ${p.id}`),
  claimed: query<{ id: number | string }, ClaimedDeliveryRow>((p) => sql`SELECT d.id, d.subscription_id, d.attempts, d.event_seq, e.body, s.url, s.sealed_secrets, d.due_since
               FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq JOIN webhook_subscriptions s ON s.id = d.subscription_id
              WHERE d.id = ${p.id}`),
  /** Records an attempt's outcome, unless the delivery moved on since it was claimed. */
  recordAttempt: query<{ id: string; attempt: number; status: string; next: string | null; at: string; answerStatus: number | null; answer: string | null }>((p) =>
    sql`UPDATE webhook_deliveries SET status = ${p.status}, next_attempt_at = ${p.next}, lease_until = NULL, last_attempt_at = ${p.at}, last_status = ${p.answerStatus}, last_answer = ${p.answer}
          WHERE id = ${p.id} AND status = 'pending' AND attempts = ${p.attempt}`),
});
