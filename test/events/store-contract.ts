// The rules every delivery store follows (src/events/delivery-store.ts), as tests any
// implementation runs: the in-memory reference here (memory-store.test.ts), and the ledger's
// outbox on both engines once it exists. An implementation passes a harness that can add
// subscriptions, write events and read a delivery's state back.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DeliveredType, EventType } from "../../src/domain/events/types.ts";
import type { DeliveryStore, DueDelivery } from "../../src/events/delivery-store.ts";

export interface DeliveryState {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastAnswer: string | null;
  nextAttemptAt: Date | null;
}

export interface StoreHarness {
  store: DeliveryStore;
  addSubscription(s: { id: string; url: string; sealedSecrets: string[]; events: EventType[] | null }): Promise<void>;
  updateSubscription(id: string, patch: { url?: string; sealedSecrets?: string[] }): Promise<void>;
  /** Writes an event; returns the ids of the deliveries it made (one per subscription that wants it). */
  enqueue(event: { id: string; type: DeliveredType; body: string }, at: Date): Promise<string[]>;
  state(deliveryId: string): Promise<DeliveryState>;
  close(): Promise<void>;
}

const T0 = new Date("2026-03-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE = 60_000;
const claim = (h: StoreHarness, nowMs: number, limit = 10) => h.store.claimDue({ now: at(nowMs), leaseUntil: at(nowMs + LEASE), limit });
const bodyOf = (n: number) => JSON.stringify({ type: "action.booked", timestamp: at(0).toISOString(), data: { n } });
const event = (n: number, type: DeliveredType = "action.booked") => ({ id: `evt_${n}`, type, body: bodyOf(n) });
const delivered = (_d: DueDelivery, ms: number) => ({ kind: "delivered" as const, at: at(ms), status: 204, answer: "HTTP 204" });
const retry = (ms: number, nextMs: number) => ({ kind: "retry" as const, at: at(ms), status: 500, answer: "HTTP 500: down", nextAttemptAt: at(nextMs) });
const failed = (ms: number) => ({ kind: "failed" as const, at: at(ms), status: 500, answer: "HTTP 500: down" });
const key = (d: DueDelivery) => ({ deliveryId: d.deliveryId, attempt: d.attempt });

export function deliveryStoreContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`delivery store contract: ${name}`, () => {
    let h: StoreHarness;
    beforeEach(async () => {
      h = await make();
      await h.addSubscription({ id: "sub_a", url: "https://a.example/hook?token=a", sealedSecrets: ["sealed-a1"], events: null });
      await h.addSubscription({ id: "sub_b", url: "https://b.example/hook", sealedSecrets: ["sealed-b1"], events: ["wallet.gap"] });
    });
    afterEach(async () => {
      await h.close();
    });

    test("an event makes one delivery per subscription that wants its type; nothing else is due", async () => {
      expect(await claim(h, 0)).toEqual([]);
      expect(await h.enqueue(event(1, "action.booked"), at(0))).toHaveLength(1);
      expect(await h.enqueue(event(2, "wallet.gap"), at(0))).toHaveLength(2);
      expect(await h.enqueue(event(3, "ping"), at(0))).toHaveLength(2);
    });

    test("a claim hands out what the attempt needs, counts the attempt and holds the delivery under its lease", async () => {
      const [id] = await h.enqueue(event(1), at(0));
      const [d] = await claim(h, 1000);
      expect(d).toEqual({
        deliveryId: id!,
        subscriptionId: "sub_a",
        attempt: 1,
        eventId: "evt_1",
        body: bodyOf(1),
        url: "https://a.example/hook?token=a",
        sealedSecrets: ["sealed-a1"],
        dueSince: at(0),
      });
      expect((await h.state(id!)).attempts).toBe(1);
      // Held: neither this server nor another claims it while the lease lives.
      expect(await claim(h, 2000)).toEqual([]);
      expect(await claim(h, LEASE + 1000)).toEqual([]);
    });

    test("per subscription in order: the next event waits until the earlier one is delivered or failed", async () => {
      const [first] = await h.enqueue(event(1), at(0));
      const [second] = await h.enqueue(event(2), at(0));
      const [third] = await h.enqueue(event(3), at(0));
      const [d1] = await claim(h, 0);
      expect(d1!.deliveryId).toBe(first!);
      // A retry keeps the order: the head is not due, and the ones behind it are not claimed.
      expect(await h.store.recordAttempt(key(d1!), retry(100, 5000))).toBe(true);
      expect(await claim(h, 4999)).toEqual([]);
      const [again] = await claim(h, 5000);
      expect({ id: again!.deliveryId, attempt: again!.attempt }).toEqual({ id: first!, attempt: 2 });
      expect(await h.store.recordAttempt(key(again!), delivered(again!, 5100))).toBe(true);
      const [d2] = await claim(h, 5100);
      expect(d2!.deliveryId).toBe(second!);
      expect(await h.store.recordAttempt(key(d2!), failed(5200))).toBe(true);
      const [d3] = await claim(h, 5200);
      expect(d3!.deliveryId).toBe(third!);
      expect(await h.state(first!)).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 204, lastAnswer: "HTTP 204", nextAttemptAt: null });
      expect(await h.state(second!)).toMatchObject({ status: "failed", attempts: 1, lastStatus: 500, lastAnswer: "HTTP 500: down" });
    });

    test("subscriptions do not wait for each other: one head each, up to the limit", async () => {
      await h.enqueue(event(1, "wallet.gap"), at(0));
      await h.enqueue(event(2, "wallet.gap"), at(0));
      const both = await claim(h, 0);
      expect(both.map((d) => d.subscriptionId).sort()).toEqual(["sub_a", "sub_b"]);
      expect(both.every((d) => d.eventId === "evt_1")).toBe(true);
      await h.enqueue(event(3, "wallet.gap"), at(0));
      await h.addSubscription({ id: "sub_c", url: "https://c.example/", sealedSecrets: ["sealed-c1"], events: null });
      await h.enqueue(event(4, "wallet.gap"), at(0));
      expect((await claim(h, 0, 1)).map((d) => d.subscriptionId)).toEqual(["sub_c"]);
    });

    test("first attempts go before retries when more are due than the limit", async () => {
      await h.enqueue(event(1, "action.booked"), at(0));
      const [d] = await claim(h, 0);
      await h.store.recordAttempt(key(d!), retry(10, 5000));
      await h.enqueue(event(2, "wallet.gap"), at(6000));
      const [next] = await claim(h, 7000, 1);
      expect({ sub: next!.subscriptionId, attempt: next!.attempt }).toEqual({ sub: "sub_b", attempt: 1 });
      const [later] = await claim(h, 7000, 1);
      expect({ sub: later!.subscriptionId, attempt: later!.attempt }).toEqual({ sub: "sub_a", attempt: 2 });
    });

    test("a process that died mid-attempt: after its lease the delivery is claimed again, and the dead claim's outcome is refused", async () => {
      const [id] = await h.enqueue(event(1), at(0));
      const [dead] = await claim(h, 0);
      const [revived] = await claim(h, LEASE + 1);
      expect({ id: revived!.deliveryId, attempt: revived!.attempt }).toEqual({ id: id!, attempt: 2 });
      expect(await h.store.recordAttempt(key(dead!), delivered(dead!, LEASE + 2))).toBe(false);
      expect((await h.state(id!)).status).toBe("pending");
      expect(await h.store.recordAttempt(key(revived!), delivered(revived!, LEASE + 3))).toBe(true);
      expect(await h.store.recordAttempt(key(revived!), failed(LEASE + 4))).toBe(false);
      expect(await h.state(id!)).toMatchObject({ status: "delivered", attempts: 2 });
    });

    test("a late outcome of the latest attempt still counts when no other claim took the delivery", async () => {
      const [id] = await h.enqueue(event(1), at(0));
      const [d] = await claim(h, 0);
      expect(await h.store.recordAttempt(key(d!), delivered(d!, LEASE + 5))).toBe(true);
      expect((await h.state(id!)).status).toBe("delivered");
    });

    test("a claim sees the subscription as it is now: a new URL, rotated secrets", async () => {
      await h.enqueue(event(1), at(0));
      await h.updateSubscription("sub_a", { url: "https://a2.example/in", sealedSecrets: ["sealed-a2", "sealed-a1"] });
      const [d] = await claim(h, 0);
      expect({ url: d!.url, secrets: d!.sealedSecrets }).toEqual({ url: "https://a2.example/in", secrets: ["sealed-a2", "sealed-a1"] });
    });

    test("claims made at the same moment never share a delivery or a subscription", async () => {
      for (let n = 1; n <= 4; n++) await h.enqueue(event(n, "wallet.gap"), at(0));
      const batches = await Promise.all([claim(h, 0, 1), claim(h, 0, 1), claim(h, 0, 1)]);
      const all = batches.flat();
      expect(all).toHaveLength(2);
      expect(new Set(all.map((d) => d.subscriptionId)).size).toBe(2);
      expect(new Set(all.map((d) => d.deliveryId)).size).toBe(2);
    });
  });
}
