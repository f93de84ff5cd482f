// What the delivery worker needs from the ledger (docs/events.md#the-outbox-the-worker-needs).
// The ledger keeps an outbox: one delivery per event × subscription, written in the same
// transaction as the change that caused the event. The worker only claims and records; every
// rule of order and exclusivity below is the store's, so servers sharing a PostgreSQL ledger
// never send one event twice at once. `test/events/store-contract.ts` holds these rules as tests
// any implementation runs.

/** One delivery, claimed for one attempt. */
export interface DueDelivery {
  /** The store's key of this event × subscription. */
  deliveryId: string;
  subscriptionId: string;
  /**
   * This attempt's number, 1-based: the claim counted it. With `deliveryId` it is the claim's
   * fence: an outcome is recorded only while it is still the delivery's latest attempt.
   */
  attempt: number;
  /** The event's id (`evt_<n>`): the `webhook-id` header, the same on every attempt. */
  eventId: string;
  /** The body as stored when the event was written: the exact bytes signed and sent. */
  body: string;
  /** The subscription's URL at claim time. */
  url: string;
  /** The subscription's sealed secrets at claim time, newest first (two while one is being replaced). */
  sealedSecrets: string[];
  /** When the delivery became due (its event was written); its three days of retries count from here. */
  dueSince: Date;
}

export interface ClaimRequest {
  now: Date;
  /** Until when the claimed deliveries are held: no other claim takes them before. */
  leaseUntil: Date;
  /** At most this many deliveries. */
  limit: number;
}

/** What an attempt came to, as `webhooks deliveries` shows it. */
export type AttemptOutcome =
  | { kind: "delivered"; at: Date; status: number; answer: string }
  | { kind: "retry"; at: Date; status: number | null; answer: string; nextAttemptAt: Date }
  | { kind: "failed"; at: Date; status: number | null; answer: string };

export type OutcomeKind = AttemptOutcome["kind"];

export interface DeliveryStore {
  /**
   * Claims due deliveries, in one transaction:
   * - only the head of each subscription: its oldest delivery (by event order) that is neither
   *   delivered nor failed; later ones wait until it is one of those;
   * - a head is due when its next attempt time has come and no live lease holds it
   *   (`lease_until` absent or before `now`: its process died mid-attempt);
   * - at most one delivery per subscription, at most `limit` in all; first attempts before
   *   retries, then the longest due first;
   * - each claimed delivery gets `lease_until = leaseUntil` and its attempt count raised by one,
   *   which is the `attempt` returned.
   * Concurrent claims (other servers) never return the same delivery nor the same subscription
   * while a lease is live (on PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDue(request: ClaimRequest): Promise<DueDelivery[]>;
  /**
   * Records the outcome of attempt `claim.attempt`: delivered and failed are final; retry sets the
   * next attempt time and lifts the lease. Nothing changes, and false is returned, when the
   * delivery is final already or its attempt count has moved past `claim.attempt` (the lease ran
   * out and another claim took it). Stores the status and the answer for `webhooks deliveries`.
   */
  recordAttempt(claim: { deliveryId: string; attempt: number }, outcome: AttemptOutcome): Promise<boolean>;
}
