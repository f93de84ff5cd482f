// The delivery store in memory: the plainest statement of the rules every store follows
// (src/events/delivery-store.ts), held to them by test/events/store-contract.ts like the ledger's
// (sql-store.ts). It keeps nothing across a restart, so the server never uses it for real
// subscriptions; the worker's tests run on it.
import type { DeliveredType, EventType } from "../domain/events/types.ts";
import { subscribesTo } from "../domain/events/subscription.ts";
import type { AttemptOutcome, ClaimRequest, DeliveryStore, DueDelivery } from "./delivery-store.ts";

export interface StoredSubscription {
  id: string;
  url: string;
  sealedSecrets: string[];
  /** The event types it wants; null for all. */
  events: EventType[] | null;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryRecord {
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  type: DeliveredType;
  body: string;
  /** Order of the event among all events. */
  sequence: number;
  status: DeliveryStatus;
  attempts: number;
  dueSince: Date;
  nextAttemptAt: Date | null;
  leaseUntil: Date | null;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastAnswer: string | null;
}

export class MemoryDeliveryStore implements DeliveryStore {
  private readonly subscriptions = new Map<string, StoredSubscription>();
  private readonly rows: DeliveryRecord[] = [];
  private sequence = 0;

  addSubscription(s: StoredSubscription): void {
    if (this.subscriptions.has(s.id)) throw new Error(`subscription ${s.id} exists`);
    this.subscriptions.set(s.id, { ...s, sealedSecrets: [...s.sealedSecrets] });
  }

  /** A new URL or set of secrets (a rotation: the new secret first, the old one until it is dropped). */
  updateSubscription(id: string, patch: Partial<Pick<StoredSubscription, "url" | "sealedSecrets" | "events">>): void {
    const s = this.subscriptions.get(id);
    if (!s) throw new Error(`no subscription ${id}`);
    Object.assign(s, patch);
  }

  /** Removes the subscription and the deliveries it still had to make. */
  removeSubscription(id: string): void {
    this.subscriptions.delete(id);
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i]!.subscriptionId === id && this.rows[i]!.status === "pending") this.rows.splice(i, 1);
  }

  /**
   * Writes an event to the outbox: one delivery for each subscription that wants its type (or for
   * `only`, as `webhooks test` does). Returns the deliveries' ids.
   */
  enqueue(event: { id: string; type: DeliveredType; body: string }, at: Date, only?: string): string[] {
    const seq = ++this.sequence;
    const ids: string[] = [];
    for (const s of this.subscriptions.values()) {
      if (only !== undefined ? s.id !== only : !subscribesTo(s.events, event.type)) continue;
      const deliveryId = `${s.id}:${seq}`;
      this.rows.push({
        deliveryId,
        subscriptionId: s.id,
        eventId: event.id,
        type: event.type,
        body: event.body,
        sequence: seq,
        status: "pending",
        attempts: 0,
        dueSince: at,
        nextAttemptAt: at,
        leaseUntil: null,
        lastAttemptAt: null,
        lastStatus: null,
        lastAnswer: null,
      });
      ids.push(deliveryId);
    }
    return ids;
  }

  delivery(deliveryId: string): DeliveryRecord | undefined {
    const r = this.rows.find((x) => x.deliveryId === deliveryId);
    return r && { ...r };
  }

  deliveries(subscriptionId: string): DeliveryRecord[] {
    return this.rows
      .filter((r) => r.subscriptionId === subscriptionId)
      .sort((a, b) => a.sequence - b.sequence)
      .map((r) => ({ ...r }));
  }

  async claimDue(req: ClaimRequest): Promise<DueDelivery[]> {
    const now = req.now.getTime();
    const heads = new Map<string, DeliveryRecord>();
    for (const r of this.rows) {
      if (r.status !== "pending") continue;
      const head = heads.get(r.subscriptionId);
      if (!head || r.sequence < head.sequence) heads.set(r.subscriptionId, r);
    }
    const due = [...heads.values()]
      .filter((r) => r.nextAttemptAt !== null && r.nextAttemptAt.getTime() <= now && (r.leaseUntil === null || r.leaseUntil.getTime() < now) && this.subscriptions.has(r.subscriptionId))
      .sort((a, b) => Number(a.attempts > 0) - Number(b.attempts > 0) || a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || a.sequence - b.sequence)
      .slice(0, Math.max(0, req.limit));
    return due.map((r) => {
      r.attempts += 1;
      r.leaseUntil = req.leaseUntil;
      const s = this.subscriptions.get(r.subscriptionId)!;
      return {
        deliveryId: r.deliveryId,
        subscriptionId: r.subscriptionId,
        attempt: r.attempts,
        eventId: r.eventId,
        body: r.body,
        url: s.url,
        sealedSecrets: [...s.sealedSecrets],
        dueSince: r.dueSince,
      };
    });
  }

  async recordAttempt(claim: { deliveryId: string; attempt: number }, outcome: AttemptOutcome): Promise<boolean> {
    const r = this.rows.find((x) => x.deliveryId === claim.deliveryId);
    if (r?.status !== "pending" || r.attempts !== claim.attempt) return false;
    r.lastAttemptAt = outcome.at;
    r.lastStatus = outcome.status;
    r.lastAnswer = outcome.answer;
    r.leaseUntil = null;
    if (outcome.kind === "retry") r.nextAttemptAt = outcome.nextAttemptAt;
    else {
      r.status = outcome.kind;
      r.nextAttemptAt = null;
    }
    return true;
  }
}
