// Webhook subscriptions (docs/events.md#subscriptions), as `ca-ledger webhooks` manages them: an
// operator adds one for a tenant, lists, removes; reads a subscription's deliveries; queues a test
// delivery. The secret is made here, shown once, and stored only sealed under the webhook key.
// A URL is never shown again whole (its path or query often holds the receiver's token): lists
// name the receiver by scheme, host and port.
import { randomBytes } from "node:crypto";
import { describeUrl } from "../describe-url.ts";
import { generateSecret } from "../domain/events/signature.ts";
import { checkWebhookUrl, parseEventFilter } from "../domain/events/subscription.ts";
import { formatEventId, pingBody, serializeEventBody, type EventType } from "../domain/events/types.ts";
import type { SecretBox } from "../events/secret-box.ts";
import { findTenant } from "./keys.ts";
import { insertDelivery, parseStoredFilter, writeEvent } from "./outbox.ts";
import type { Sql } from "./sql/port.ts";
import { webhookDeliverySql, type DeliveryListingRow } from "./tables/webhook-deliveries.ts";
import { webhookSubscriptionSql } from "./tables/webhook-subscriptions.ts";

export class WebhookError extends Error {
  constructor(
    readonly code: "tenant_not_found" | "subscription_not_found",
    message: string,
  ) {
    super(message);
    this.name = "WebhookError";
  }
}

const base32 = "abcdefghijklmnopqrstuvwxyz234567";
function newSubscriptionId(): string {
  let id = "whs_";
  for (const b of randomBytes(16)) id += base32[b & 31];
  return id;
}

export interface AddedSubscription {
  id: string;
  tenant: string;
  /** Scheme, host and port of the URL: never its path or query. */
  receiver: string;
  /** The event types it gets; null: every type. */
  events: EventType[] | null;
  /** `whsec_…`: shown once, here. */
  secret: string;
  createdAt: string;
}

/** The input as `webhooks add` takes it, checked before anything is opened (a SubscriptionInputError or EventInputError). */
export function checkSubscriptionInput(input: { url: string; events?: string | null }): { url: string; events: EventType[] | null } {
  return { url: checkWebhookUrl(input.url), events: parseEventFilter(input.events) };
}

/** Adds a subscription for an existing tenant; its secret is sealed under `box`, bound to its id. */
export async function addSubscription(db: Sql, box: Pick<SecretBox, "seal">, input: { tenant: string; url: string; events?: string | null }, now = new Date()): Promise<AddedSubscription> {
  const { url, events } = checkSubscriptionInput(input);
  const secret = generateSecret(randomBytes);
  const id = newSubscriptionId();
  const createdAt = now.toISOString();
  await db.write(async (tx) => {
    const tenantId = await findTenant(tx, input.tenant);
    if (tenantId === null)
      throw new WebhookError("tenant_not_found", `no tenant ${JSON.stringify(input.tenant)} (a tenant is made by its first key: ca-ledger keys create <name> --tenant ${input.tenant})`);
    await tx.run(webhookSubscriptionSql.insert, { id, tenantId, url, events: events?.join(",") ?? null, sealedSecrets: JSON.stringify([box.seal(secret, id)]), at: createdAt });
  });
  return { id, tenant: input.tenant, receiver: describeUrl(url), events, secret, createdAt };
}

export interface SubscriptionListing {
  id: string;
  tenant: string;
  receiver: string;
  events: EventType[] | null;
  createdAt: string;
  removedAt: string | null;
  deliveries: { pending: number; delivered: number; failed: number };
  /** The last attempt of any of its deliveries; null before the first. */
  lastAttemptAt: string | null;
}

export async function listSubscriptions(db: Sql, tenant?: string): Promise<SubscriptionListing[]> {
  const rows = await db.all(webhookSubscriptionSql.listing, { tenant: tenant ?? null });
  return rows.map((r) => ({
    id: r.id,
    tenant: r.tenant,
    receiver: describeUrl(r.url),
    events: parseStoredFilter(r.events),
    createdAt: r.created_at,
    removedAt: r.removed_at,
    deliveries: { pending: Number(r.pending), delivered: Number(r.delivered), failed: Number(r.failed) },
    lastAttemptAt: r.last_attempt_at,
  }));
}

/**
 * Removes a subscription: nothing more is delivered to it, and its pending deliveries are failed
 * saying so (an attempt in flight finishes, but its outcome is not recorded). False when there is
 * no live subscription with this id.
 */
export async function removeSubscription(db: Sql, id: string, now = new Date()): Promise<boolean> {
  const at = now.toISOString();
  return db.write(async (tx) => {
    const r = await tx.run(webhookSubscriptionSql.remove, { id, at });
    if (r.changes === 0) return false;
    await tx.run(webhookDeliverySql.failPendingOf, { subscriptionId: id, answer: "not sent: the subscription was removed" });
    return true;
  });
}

export interface DeliveryListing {
  id: string;
  eventId: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  dueSince: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The receiver's HTTP status at the last attempt; null when none came. */
  lastStatus: number | null;
  /** Its first 500 characters, or why nothing was sent. */
  lastAnswer: string | null;
}

const listing = (r: DeliveryListingRow): DeliveryListing => ({
  id: String(r.id),
  eventId: formatEventId(BigInt(r.event_seq)),
  type: r.type,
  status: r.status,
  attempts: Number(r.attempts),
  dueSince: r.due_since,
  nextAttemptAt: r.status === "pending" ? r.next_attempt_at : null,
  lastAttemptAt: r.last_attempt_at,
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastAnswer: r.last_answer,
});

/** A subscription's deliveries, newest first (at most `limit`); null when there is no such subscription. */
export async function listDeliveries(db: Sql, subscriptionId: string, limit = 50): Promise<DeliveryListing[] | null> {
  if (!(await db.get(webhookSubscriptionSql.exists, { id: subscriptionId }))) return null;
  const rows = await db.all(webhookDeliverySql.ofSubscription, { subscriptionId, limit });
  return rows.map(listing);
}

/** One delivery as `webhooks deliveries` shows it (`webhooks test` waits on it). */
export async function deliveryById(db: Sql, id: string): Promise<DeliveryListing | null> {
  const r = await db.get(webhookDeliverySql.byId, { id });
  return r ? listing(r) : null;
}

export interface QueuedTest {
  subscriptionId: string;
  deliveryId: string;
  eventId: string;
  type: string;
  again: boolean;
}

/**
 * Queues a test delivery to a live subscription: its latest event again (same id and body, so a
 * receiver that already has it can drop it), or a `ping` when it has been sent none yet.
 */
export async function queueTestDelivery(db: Sql, subscriptionId: string, now = new Date()): Promise<QueuedTest> {
  return db.write(async (tx) => {
    const sub = await tx.get(webhookSubscriptionSql.liveById, { id: subscriptionId });
    if (!sub) throw new WebhookError("subscription_not_found", `no live webhook subscription ${subscriptionId}`);
    const latest = await tx.get(webhookDeliverySql.latestEventOf, { subscriptionId });
    if (latest) {
      const deliveryId = await insertDelivery(tx, subscriptionId, latest.seq, now);
      return { subscriptionId, deliveryId, eventId: formatEventId(BigInt(latest.seq)), type: latest.type, again: true };
    }
    const body = serializeEventBody(pingBody(now.toISOString(), subscriptionId));
    const eventId = await writeEvent(tx, { tenantId: Number(sub.tenant_id), type: "ping", owner: null, body, at: now }, subscriptionId);
    const delivery = (await tx.get(webhookDeliverySql.ofSubscription, { subscriptionId, limit: 1 }))!;
    return { subscriptionId, deliveryId: String(delivery.id), eventId, type: "ping", again: false };
  });
}

/**
 * Starts a secret rotation (docs/events.md#signatures): a new secret, shown once, signs beside the
 * ones in force, so a receiver verifies with either while it switches. `finishRotation` then
 * keeps only the newest.
 */
export async function rotateSecret(db: Sql, box: Pick<SecretBox, "seal">, id: string): Promise<{ id: string; secret: string; secretsInForce: number }> {
  const secret = generateSecret(randomBytes);
  return db.write(async (tx) => {
    const row = await tx.get(webhookSubscriptionSql.secretsOf, { id });
    if (!row) throw new WebhookError("subscription_not_found", `no live webhook subscription ${id}`);
    const sealed = [box.seal(secret, id), ...(JSON.parse(row.sealed_secrets) as string[])];
    await tx.run(webhookSubscriptionSql.setSecrets, { id, sealedSecrets: JSON.stringify(sealed) });
    return { id, secret, secretsInForce: sealed.length };
  });
}

/** Ends a rotation: only the newest secret signs from now on. Returns how many older ones were dropped. */
export async function finishRotation(db: Sql, id: string): Promise<number> {
  return db.write(async (tx) => {
    const row = await tx.get(webhookSubscriptionSql.secretsOf, { id });
    if (!row) throw new WebhookError("subscription_not_found", `no live webhook subscription ${id}`);
    const sealed = JSON.parse(row.sealed_secrets) as string[];
    await tx.run(webhookSubscriptionSql.setSecrets, { id, sealedSecrets: JSON.stringify(sealed.slice(0, 1)) });
    return sealed.length - 1;
  });
}
