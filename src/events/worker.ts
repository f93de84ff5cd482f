// The delivery worker (docs/events.md#delivery-and-retries): claims due deliveries from the
// store, signs each with its subscription's secrets, sends it, and records what came of it. Up to
// `concurrency` attempts run at once and never two of one subscription (the store hands out only
// a subscription's head, under a lease), so a slow or dead endpoint holds one slot for at most
// one attempt's 10 s and never the others' turns. The worker writes nothing but attempt outcomes
// and runs beside sync and booking, never inside them. A process killed mid-attempt leaves a
// lease that runs out; the delivery is then claimed again (at least once, in order).
import { afterFailedAttempt } from "../domain/events/retry.ts";
import { unixSeconds, webhookHeaders } from "../domain/events/signature.ts";
import type { Logger } from "../log.ts";
import type { AttemptOutcome, DeliveryStore, DueDelivery, OutcomeKind } from "./delivery-store.ts";
import type { SecretBox } from "./secret-box.ts";
import { ATTEMPT_TIMEOUT_MS, type Send, type SendResult } from "./transport.ts";

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  send: Send;
  /** Opens the subscriptions' sealed secrets. */
  secrets: Pick<SecretBox, "open">;
  /** The clock: attempt timestamps, due times, leases. */
  now?: () => Date;
  /**
   * The clock of the `webhook-timestamp` header, which receivers compare with their own (`now`
   * unless given): `serve` signs by the wall clock even while a test moves its worker's clock.
   */
  signingNow?: () => Date;
  /** Attempts in flight at once, over all subscriptions. */
  concurrency?: number;
  /** How long a claim is held; longer than an attempt can take. */
  leaseMs?: number;
  /** How often the worker looks for due deliveries when nothing wakes it. */
  pollMs?: number;
  logger?: Pick<Logger, "info" | "warn" | "error" | "debug">;
  /** After each recorded attempt (metrics count deliveries by outcome). */
  onOutcome?: (kind: OutcomeKind, delivery: DueDelivery, outcome: AttemptOutcome) => void;
}

export interface DeliveryWorker {
  /** Looks for due deliveries now (an event was just written). */
  wake(): void;
  /** Attempts recorded since start, by outcome. */
  counts(): Record<OutcomeKind, number>;
  /** Attempts running now. */
  inFlight(): number;
  /** Stops: attempts in flight are abandoned to their leases (claimed again later). */
  stop(): Promise<void>;
}

export const DEFAULT_DELIVERY_CONCURRENCY = 8;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_POLL_MS = 1_000;
const STOP_WAIT_MS = 2_000;

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { store, send, secrets } = options;
  const now = options.now ?? (() => new Date());
  const signingNow = options.signingNow ?? now;
  const concurrency = options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`delivery concurrency is a whole number of at least 1; got ${concurrency}`);
  // A lease that could end while its attempt still runs would let a second server send the same
  // delivery at the same time.
  if (leaseMs < 2 * ATTEMPT_TIMEOUT_MS) throw new RangeError(`a delivery lease must be at least ${(2 * ATTEMPT_TIMEOUT_MS) / 1000} s (twice the attempt timeout)`);
  const log = options.logger;
  const counts: Record<OutcomeKind, number> = { delivered: 0, retry: 0, failed: 0 };
  const abort = new AbortController();
  const running = new Set<Promise<void>>();
  let stopped = false;
  let wakeUp: () => void = () => {};
  let woken = false;

  const wake = () => {
    woken = true;
    wakeUp();
  };

  /** The outcome of one attempt, decided from what the receiver did. */
  function outcomeOf(d: DueDelivery, result: SendResult, at: Date): AttemptOutcome {
    if (result.ok) return { kind: "delivered", at, status: result.status, answer: result.answer };
    // 410 Gone: the receiver says it wants no more of these; one attempt, no retries.
    if (result.status === 410) return { kind: "failed", at, status: 410, answer: result.answer };
    const next = afterFailedAttempt({ attempt: d.attempt, dueSince: d.dueSince, attemptedAt: at, retryAfterMs: result.retryAfterMs });
    return next.kind === "retry" ? { kind: "retry", at, status: result.status, answer: result.answer, nextAttemptAt: next.at } : { kind: "failed", at, status: result.status, answer: result.answer };
  }

  async function attempt(d: DueDelivery): Promise<void> {
    let result: SendResult;
    try {
      const plain = d.sealedSecrets.map((s) => secrets.open(s, d.subscriptionId));
      const headers = webhookHeaders({ id: d.eventId, timestamp: unixSeconds(signingNow()), body: d.body, secrets: plain });
      result = await send({ url: d.url, headers, body: d.body }, abort.signal);
    } catch (e) {
      // A secret that does not open (the webhook key changed) or cannot sign: the operator's to
      // fix; the attempt counts, so the delivery shows why and retries on the schedule.
      const code = (e as { code?: string }).code;
      log?.error("webhook delivery could not be signed", { subscription: d.subscriptionId, event: d.eventId, code });
      result = { ok: false, status: null, answer: `not sent: ${(e as Error).message}`, retryAfterMs: null };
    }
    // Cut short by stop(): nothing is recorded; the lease runs out and the delivery is claimed again.
    if (!result.ok && result.abandoned) return;
    const outcome = outcomeOf(d, result, now());
    if (await store.recordAttempt({ deliveryId: d.deliveryId, attempt: d.attempt }, outcome)) {
      counts[outcome.kind]++;
      options.onOutcome?.(outcome.kind, d, outcome);
      if (outcome.kind !== "delivered")
        log?.info("webhook delivery " + (outcome.kind === "retry" ? "will be retried" : "failed"), { subscription: d.subscriptionId, event: d.eventId, attempt: d.attempt, answer: outcome.answer });
    } else {
      log?.warn("webhook delivery outcome not recorded: its lease ran out and it was claimed again", { subscription: d.subscriptionId, event: d.eventId, attempt: d.attempt });
    }
  }

  function start(d: DueDelivery): void {
    const p: Promise<void> = attempt(d)
      .catch((e) => {
        if (!stopped) log?.error("webhook delivery step failed", { subscription: d.subscriptionId, event: d.eventId, error: String((e as Error)?.message ?? e) });
      })
      .finally(() => {
        running.delete(p);
        wake(); // the subscription's next event, or a free slot for another
      });
    running.add(p);
  }

  async function fill(): Promise<void> {
    while (!stopped && running.size < concurrency) {
      const limit = concurrency - running.size;
      const at = now();
      const claimed = await store.claimDue({ now: at, leaseUntil: new Date(at.getTime() + leaseMs), limit });
      for (const d of claimed) start(d);
      if (claimed.length < limit) return;
    }
  }

  const loop = (async () => {
    while (!stopped) {
      woken = false;
      try {
        await fill();
      } catch (e) {
        if (!stopped) log?.error("webhook delivery claim failed", { error: String((e as Error)?.message ?? e) });
      }
      if (woken || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = () => {};
    }
  })();

  return {
    wake,
    counts: () => ({ ...counts }),
    inFlight: () => running.size,
    async stop() {
      stopped = true;
      abort.abort(new Error("the delivery worker is stopping"));
      wake();
      await Promise.race([Promise.all([loop, ...running]), new Promise((r) => setTimeout(r, STOP_WAIT_MS))]);
    },
  };
}
