// The outbox on the ledger's database, both engines (docs/events.md#the-outbox-the-worker-needs):
// `writeEvent` runs inside the transaction of the ledger change that causes the event; the
// `DeliveryStore` half is what the delivery worker claims from and records into. The tables are
// the ledger's (its migrations create them); the SQL goes through the ledger's port, written
// once. Claims lock what they take (`FOR UPDATE SKIP LOCKED` on PostgreSQL, as the sync queue's):
// servers sharing one database never hold the same subscription at once.
import { subscribesTo } from "../domain/events/subscription.ts";
import { formatEventId, isEventType, type DeliveredType, type EventType } from "../domain/events/types.ts";
import { forUpdate } from "../ledger/sql/dialect.ts";
import type { Sql } from "../ledger/sql/port.ts";
import type { AttemptOutcome, ClaimRequest, DeliveryStore, DueDelivery } from "./delivery-store.ts";

export interface OutboxEvent {
  tenantId: number;
  type: DeliveredType;
  /** The wallet the event concerns; null for a ping. */
  owner: string | null;
  /** The serialized body (eventText / serializeEventBody): what every attempt sends. */
  body: string;
  at: Date;
}

/** The event types a subscription row asks for: null for all. */
export function parseStoredFilter(text: string | null): EventType[] | null {
  return text === null ? null : text.split(",").filter(isEventType);
}

/**
 * Writes one event and a delivery for each live subscription of its tenant that wants its type,
 * or only for `onlySubscription` (`webhooks test`). Call it inside the ledger's write transaction
 * (`db.write`), which serializes writers: event numbers then follow commit order, so a stream
 * reader that saw event n never misses an event below n committed later. Returns the event id.
 */
export async function writeEvent(tx: Sql, e: OutboxEvent, onlySubscription?: string): Promise<string> {
  const at = e.at.toISOString();
  const row = await tx.get<{ seq: number | string }>(
    "INSERT INTO events (tenant_id, type, owner, body, created_at) VALUES (?, ?, ?, ?, ?) RETURNING seq",
    e.tenantId, e.type, e.owner, e.body, at,
  );
  const seq = row!.seq;
  const subs = await tx.all<{ id: string; events: string | null }>(
    "SELECT id, events FROM webhook_subscriptions WHERE tenant_id = ? AND removed_at IS NULL AND (CAST(? AS TEXT) IS NULL OR id = ?) ORDER BY id",
    e.tenantId, onlySubscription ?? null, onlySubscription ?? null,
  );
  for (const s of subs) {
    if (onlySubscription === undefined && !subscribesTo(parseStoredFilter(s.events), e.type)) continue;
    await insertDelivery(tx, s.id, seq, e.at);
  }
  return formatEventId(BigInt(seq));
}

/**
 * One more delivery of an event already written, to one subscription (`webhooks test` sending
 * the latest event again): the same id and body, queued after the subscription's pending ones.
 * Returns the delivery's id.
 */
export async function insertDelivery(tx: Sql, subscriptionId: string, eventSeq: number | string, at: Date): Promise<string> {
  const row = await tx.get<{ id: number | string }>(
    "INSERT INTO webhook_deliveries (subscription_id, event_seq, status, attempts, due_since, next_attempt_at) VALUES (?, ?, 'pending', 0, ?, ?) RETURNING id",
    subscriptionId, eventSeq, at.toISOString(), at.toISOString(),
  );
  return String(row!.id);
}

interface ClaimedRow {
  id: number | string; subscription_id: string; attempts: number; event_seq: number | string; body: string; url: string; sealed_secrets: string; due_since: string;
}

export function sqlDeliveryStore(db: Sql): DeliveryStore {
  return {
    claimDue(req: ClaimRequest): Promise<DueDelivery[]> {
      const now = req.now.toISOString();
      return db.claim(async (tx) => {
        const picked = await tx.all<{ id: number | string }>(
          `SELECT d.id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND (d.lease_until IS NULL OR d.lease_until < ?1)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.subscription_id = d.subscription_id AND e.status = 'pending' AND e.id < d.id)
              AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.removed_at IS NULL)
            ORDER BY CASE WHEN d.attempts > 0 THEN 1 ELSE 0 END, d.next_attempt_at, d.id
            LIMIT ?2${forUpdate(tx, { of: "d", skipLocked: true })}`,
          now, Math.max(0, Math.floor(req.limit)),
        );
        const out: DueDelivery[] = [];
        for (const { id } of picked) {
          await tx.run("UPDATE webhook_deliveries SET lease_until = ?, attempts = attempts + 1 WHERE id = ?", req.leaseUntil.toISOString(), id);
          const r = (await tx.get<ClaimedRow>(
            `SELECT d.id, d.subscription_id, d.attempts, d.event_seq, e.body, s.url, s.sealed_secrets, d.due_since
               FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq JOIN webhook_subscriptions s ON s.id = d.subscription_id
              WHERE d.id = ?`,
            id,
          ))!;
          out.push({
            deliveryId: String(r.id), subscriptionId: r.subscription_id, attempt: Number(r.attempts), eventId: formatEventId(BigInt(r.event_seq)), body: r.body,
            url: r.url, sealedSecrets: JSON.parse(r.sealed_secrets) as string[], dueSince: new Date(r.due_since),
          });
        }
        return out;
      });
    },

    async recordAttempt(claim, outcome: AttemptOutcome): Promise<boolean> {
      const status = outcome.kind === "retry" ? "pending" : outcome.kind;
      const next = outcome.kind === "retry" ? outcome.nextAttemptAt.toISOString() : null;
      const r = await db.run(
        `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, lease_until = NULL, last_attempt_at = ?, last_status = ?, last_answer = ?
          WHERE id = ? AND status = 'pending' AND attempts = ?`,
        status, next, outcome.at.toISOString(), outcome.status, outcome.answer, claim.deliveryId, claim.attempt,
      );
      return r.changes > 0;
    },
  };
}

/**
 * Frees every delivery lease. Only for a SQLite ledger as `serve` starts: the data dir's lock
 * lets one server at a time deliver from it, so a lease found then was left by a server that was
 * killed mid-attempt, and waiting it out would only delay the delivery (the killed attempt still
 * counts; the next one sends the same webhook-id). Returns how many were freed.
 */
export async function releaseOrphanedLeases(db: Sql): Promise<number> {
  return (await db.run("UPDATE webhook_deliveries SET lease_until = NULL WHERE status = 'pending' AND lease_until IS NOT NULL")).changes;
}
