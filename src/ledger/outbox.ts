// The outbox on the ledger's database, both engines (docs/events.md#the-outbox-the-worker-needs),
// with its statements in tables/events.ts, webhook-subscriptions.ts and webhook-deliveries.ts
// (src/events/sql-store.ts re-exports it for the delivery worker):
// `writeEvent` runs inside the transaction of the ledger change that causes the event; the
// `DeliveryStore` half is what the delivery worker claims from and records into. The tables are
// the ledger's (its migrations create them); the SQL goes through the ledger's port, written
// once. Claims lock what they take (`FOR UPDATE SKIP LOCKED` on PostgreSQL, as the sync queue's):
// servers sharing one database never hold the same subscription at once.
import { subscribesTo } from "../domain/events/subscription.ts";
import { formatEventId, isEventType, type DeliveredType, type EventType } from "../domain/events/types.ts";
import type { AttemptOutcome, ClaimRequest, DeliveryStore, DueDelivery } from "../events/delivery-store.ts";
import type { Sql } from "./sql/port.ts";
import { eventSql } from "./tables/events.ts";
import { webhookDeliverySql } from "./tables/webhook-deliveries.ts";
import { webhookSubscriptionSql } from "./tables/webhook-subscriptions.ts";

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
  const seq = (await tx.get(eventSql.insert, { tenantId: e.tenantId, type: e.type, owner: e.owner, body: e.body, at }))!.seq;
  const subs = await tx.all(webhookSubscriptionSql.live, { tenantId: e.tenantId, only: onlySubscription ?? null });
  for (const s of subs) {
    if (onlySubscription === undefined && !subscribesTo(parseStoredFilter(s.events), e.type)) continue;
    await tx.run(webhookDeliverySql.insert, { subscriptionId: s.id, seq, at });
  }
  return formatEventId(BigInt(seq));
}

export function sqlDeliveryStore(db: Sql): DeliveryStore {
  return {
    claimDue(req: ClaimRequest): Promise<DueDelivery[]> {
      const now = req.now.toISOString();
      return db.claim(async (tx) => {
        const picked = await tx.all(webhookDeliverySql.due, { now, limit: Math.max(0, Math.floor(req.limit)) });
        const out: DueDelivery[] = [];
        for (const { id } of picked) {
          await tx.run(webhookDeliverySql.lease, { id, until: req.leaseUntil.toISOString() });
          const r = (await tx.get(webhookDeliverySql.claimed, { id }))!;
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
      const r = await db.run(webhookDeliverySql.recordAttempt, {
        id: claim.deliveryId, attempt: claim.attempt, status, next, at: outcome.at.toISOString(), answerStatus: outcome.status, answer: outcome.answer,
      });
      return r.changes > 0;
    },
  };
}
