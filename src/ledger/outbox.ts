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
import { eventBodyOf, eventSql } from "./tables/events.ts";
import { webhookDeliverySql } from "./tables/webhook-deliveries.ts";
import { webhookSubscriptionSql } from "./tables/webhook-subscriptions.ts";

export interface OutboxEvent {
  tenantId: number;
  type: DeliveredType;
  /** The wallet the event concerns; null for a ping. */
  owner: string | null;
  /** The serialized body (eventText / serializeEventBody): what every attempt sends. */
  body: string;
  /** Stored in place of the body: the values that splice into a template back to it (change-events.ts). */
  stored?: StoredEvent;
  at: Date;
}

/** An event stored as the wallet's values (joined) and the template they splice into (tables/events.ts eventBodyOf). */
export interface StoredEvent {
  templateId: number;
  values: string;
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
  const seq = (await tx.get(eventSql.insert, { tenantId: e.tenantId, type: e.type, owner: e.owner, body: e.stored?.values ?? e.body, templateId: e.stored?.templateId ?? null, at }))!.seq;
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
            deliveryId: String(r.id),
            subscriptionId: r.subscription_id,
            attempt: Number(r.attempts),
            eventId: formatEventId(BigInt(r.event_seq)),
            body: eventBodyOf(r),
            url: r.url,
            sealedSecrets: JSON.parse(r.sealed_secrets) as string[],
            dueSince: new Date(r.due_since),
          });
        }
        return out;
      });
    },

    async recordAttempt(claim, outcome: AttemptOutcome): Promise<boolean> {
      const status = outcome.kind === "retry" ? "pending" : outcome.kind;
      const next = outcome.kind === "retry" ? outcome.nextAttemptAt.toISOString() : null;
      const r = await db.run(webhookDeliverySql.recordAttempt, {
        id: claim.deliveryId,
        attempt: claim.attempt,
        status,
        next,
        at: outcome.at.toISOString(),
        answerStatus: outcome.status,
        answer: outcome.answer,
      });
      return r.changes > 0;
    },
  };
}

/**
 * One more delivery of an event already written, to one subscription (`webhooks test` sending
 * the latest event again): the same id and body, queued after the subscription's pending ones.
 * Returns the delivery's id.
 */
export async function insertDelivery(tx: Sql, subscriptionId: string, eventSeq: number | string, at: Date): Promise<string> {
  return String((await tx.get(webhookDeliverySql.add, { subscriptionId, seq: eventSeq, at: at.toISOString() }))!.id);
}

/**
 * Frees every delivery lease. Only for a SQLite ledger as `serve` starts: the data dir's lock
 * lets one server at a time deliver from it, so a lease found then was left by a server that was
 * killed mid-attempt, and waiting it out would only delay the delivery (the killed attempt still
 * counts; the next one sends the same webhook-id). Returns how many were freed.
 */
export async function releaseOrphanedLeases(db: Sql): Promise<number> {
  return (await db.run(webhookDeliverySql.releaseLeases, {})).changes;
}

/** How long the longest-waiting delivery of a live subscription has been due, in seconds (0: none waits). */
export async function deliveryQueueAgeSeconds(db: Sql, now: Date): Promise<number> {
  const t = (await db.get(webhookDeliverySql.oldestPendingDue, {}))?.t ?? null;
  return t ? Math.max(0, Math.round((now.getTime() - Date.parse(t)) / 1000)) : 0;
}

/** One event as the live stream sends it (docs/events.md#the-live-stream). */
export interface StreamedEvent {
  seq: bigint;
  type: string;
  body: string;
}

/**
 * The tenant's events after `afterSeq`, oldest first, at most `limit` (pings, which go to one
 * subscription only, left out). Event numbers follow commit order (writeEvent), so reading on from
 * the last one seen misses none.
 */
export async function tenantEventsAfter(db: Sql, tenantId: number, afterSeq: bigint, limit = 100): Promise<StreamedEvent[]> {
  const rows = await db.all(eventSql.afterOfTenant, { tenantId, after: Number(afterSeq), limit });
  return rows.map((r) => ({ seq: BigInt(r.seq), type: r.type, body: eventBodyOf(r) }));
}

/** The newest event number of the tenant (0 when none): where a stream without Last-Event-ID starts. */
export async function latestTenantEvent(db: Sql, tenantId: number): Promise<bigint> {
  return BigInt((await db.get(eventSql.newestOfTenant, { tenantId }))?.seq ?? 0);
}
