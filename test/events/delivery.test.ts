// The delivery worker end to end in one process: the in-memory outbox, the real HTTP transport,
// and real receivers on loopback that verify every request with the Standard Webhooks reference
// library. Time is the system clock under bun:test's setSystemTime, so the worker's timestamps
// and the library's tolerance check move together; tests wait for states, never for durations.
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { generateSecret } from "../../src/domain/events/signature.ts";
import { eventBody, formatEventId, serializeEventBody, type DeliveredType } from "../../src/domain/events/types.ts";
import { MemoryDeliveryStore } from "../../src/events/memory-store.ts";
import { createSecretBox } from "../../src/events/secret-box.ts";
import { createWebhookTransport } from "../../src/events/transport.ts";
import { startDeliveryWorker, type DeliveryWorker } from "../../src/events/worker.ts";
import { startReceiver, type Receiver } from "../support/webhook-receiver.ts";
import { until } from "../support/until.ts";

const T0 = new Date("2026-03-02T09:00:00.000Z");
const SECOND = 1000,
  MINUTE = 60 * SECOND,
  HOUR = 60 * MINUTE,
  DAY = 24 * HOUR;

let box: ReturnType<typeof createSecretBox>;
let store: MemoryDeliveryStore;
let receivers: Receiver[];
let workers: DeliveryWorker[];
let sequence: number;

beforeEach(() => {
  setSystemTime(T0);
  box = createSecretBox(randomBytes(32));
  store = new MemoryDeliveryStore();
  receivers = [];
  workers = [];
  sequence = 0;
});
afterEach(async () => {
  for (const w of workers) await w.stop();
  for (const r of receivers) r.stop();
  setSystemTime();
});

function receiver(secrets: string[]): Receiver {
  const r = startReceiver(secrets);
  receivers.push(r);
  return r;
}

function subscribe(id: string, r: Receiver, secrets: string[], events: DeliveredType[] | null = null) {
  store.addSubscription({ id, url: r.url, sealedSecrets: secrets.map((s) => box.seal(s, id)), events: events as never });
}

function write(type: DeliveredType, data: unknown = {}): string {
  const id = formatEventId(++sequence);
  store.enqueue({ id, type, body: serializeEventBody(eventBody(type, new Date().toISOString(), data)) }, new Date());
  return id;
}

function worker(options: { concurrency?: number; timeoutMs?: number; secrets?: ReturnType<typeof createSecretBox> } = {}): DeliveryWorker {
  const w = startDeliveryWorker({
    store,
    send: createWebhookTransport(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    secrets: options.secrets ?? box,
    now: () => new Date(),
    concurrency: options.concurrency ?? 4,
    pollMs: 50,
  });
  workers.push(w);
  return w;
}

const statuses = (sub: string) => store.deliveries(sub).map((d) => d.status);
const allDelivered = (sub: string) => store.deliveries(sub).length > 0 && statuses(sub).every((s) => s === "delivered");

/** Moves the clock to the delivery's next attempt and waits for that attempt to be recorded. */
async function nextAttempt(w: DeliveryWorker, deliveryId: string): Promise<void> {
  const before = store.delivery(deliveryId)!;
  setSystemTime(before.nextAttemptAt!);
  w.wake();
  await until(`attempt ${before.attempts + 1} of ${deliveryId} recorded`, () => {
    const d = store.delivery(deliveryId)!;
    return d.attempts > before.attempts && d.leaseUntil === null;
  });
}

describe("delivery", () => {
  test("signed events reach each subscription in order, verified by the reference library; a subscription gets only the types it asked for", async () => {
    const [sa, sb] = [generateSecret(randomBytes), generateSecret(randomBytes)];
    const a = receiver([sa]);
    const b = receiver([sb]);
    subscribe("sub_a", a, [sa]);
    subscribe("sub_b", b, [sb], ["wallet.gap"]);
    const ids = [write("action.scheduled", { n: 1 }), write("wallet.gap", { n: 2 }), write("action.booked", { n: 3 }), write("wallet.gap", { n: 4 }), write("wallet.synced", { n: 5 })];
    const w = worker();
    await until("every delivery made", () => allDelivered("sub_a") && allDelivered("sub_b"));
    expect(a.received.map((r) => r.headers["webhook-id"])).toEqual(ids);
    expect(b.received.map((r) => r.headers["webhook-id"])).toEqual([ids[1], ids[3]]);
    for (const r of [...a.received, ...b.received]) {
      expect(r.verdicts).toEqual(["ok"]);
      expect(r.answered).toBe(204);
      expect(r.headers["webhook-timestamp"]).toBe(String(T0.getTime() / 1000));
    }
    expect(JSON.parse(a.received[2]!.body)).toEqual({ type: "action.booked", timestamp: T0.toISOString(), data: { n: 3 } });
    expect(w.counts()).toEqual({ delivered: 7, retry: 0, failed: 0 });
  });

  test("a failing endpoint is retried on the schedule: the same webhook-id, a new timestamp, each signature valid", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    r.behaviour = { status: 500 };
    write("action.booked");
    const [id] = store.deliveries("sub_a").map((d) => d.deliveryId);
    const w = worker();
    await until("first attempt recorded", () => store.delivery(id!)!.attempts === 1 && store.delivery(id!)!.leaseUntil === null);
    expect(store.delivery(id!)).toMatchObject({ status: "pending", lastStatus: 500, lastAnswer: "HTTP 500: not now", nextAttemptAt: new Date(T0.getTime() + 5 * SECOND) });
    await nextAttempt(w, id!);
    expect(store.delivery(id!)!.nextAttemptAt).toEqual(new Date(T0.getTime() + 5 * SECOND + 5 * MINUTE));
    r.behaviour = "verify";
    await nextAttempt(w, id!);
    expect(store.delivery(id!)).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 204 });
    expect(r.received.map((x) => x.headers["webhook-id"])).toEqual(["evt_1", "evt_1", "evt_1"]);
    expect(r.received.map((x) => Number(x.headers["webhook-timestamp"]) - T0.getTime() / 1000)).toEqual([0, 5, 305]);
    expect(r.received.map((x) => x.verdicts)).toEqual([["ok"], ["ok"], ["ok"]]);
    expect(w.counts()).toEqual({ delivered: 1, retry: 2, failed: 0 });
  });

  test("an endpoint that never recovers: 13 attempts over more than three days, then failed, and the next event gets its turn", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    r.behaviour = { status: 502 };
    write("action.booked");
    write("action.booked");
    const [first, second] = store.deliveries("sub_a").map((d) => d.deliveryId);
    const w = worker();
    await until("first attempt recorded", () => store.delivery(first!)!.attempts === 1 && store.delivery(first!)!.leaseUntil === null);
    while (store.delivery(first!)!.status === "pending") await nextAttempt(w, first!);
    const d = store.delivery(first!)!;
    expect(d).toMatchObject({ status: "failed", attempts: 13, lastStatus: 502 });
    expect(d.lastAttemptAt!.getTime() - T0.getTime()).toBeGreaterThanOrEqual(3 * DAY);
    // The second event waited behind the first all along, so it is three days old: one attempt, then failed.
    await until("the second event's attempt recorded", () => store.delivery(second!)!.status !== "pending");
    expect(store.delivery(second!)).toMatchObject({ status: "failed", attempts: 1 });
    expect(r.received.map((x) => x.headers["webhook-id"])).toEqual([...Array(13).fill("evt_1"), "evt_2"]);
    expect(w.counts()).toEqual({ delivered: 0, retry: 12, failed: 2 });
  });

  test("410 Gone: failed at once, never retried", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    r.behaviour = { status: 410 };
    write("wallet.synced");
    worker();
    await until("failed", () => statuses("sub_a")[0] === "failed");
    expect(store.deliveries("sub_a")[0]).toMatchObject({ attempts: 1, lastStatus: 410 });
  });

  test("Retry-After from a throttling receiver moves the next attempt later", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    r.behaviour = { status: 429, retryAfter: "3600" };
    write("wallet.synced");
    worker();
    await until("first attempt recorded", () => store.deliveries("sub_a")[0]!.attempts === 1 && store.deliveries("sub_a")[0]!.leaseUntil === null);
    expect(store.deliveries("sub_a")[0]!.nextAttemptAt).toEqual(new Date(T0.getTime() + HOUR));
  });

  test("a dead endpoint holds one slot and never delays another subscription", async () => {
    const [sd, sh] = [generateSecret(randomBytes), generateSecret(randomBytes)];
    const dead = receiver([sd]);
    const healthy = receiver([sh]);
    dead.behaviour = "hang";
    subscribe("sub_dead", dead, [sd]);
    subscribe("sub_ok", healthy, [sh]);
    for (let i = 0; i < 6; i++) write("action.booked", { i });
    worker({ concurrency: 2 });
    await until("every event delivered to the healthy endpoint", () => allDelivered("sub_ok"));
    // All the while the dead endpoint holds its first request open, and only that one: its next
    // events wait their turn, they do not take the other slot.
    expect(dead.received).toHaveLength(1);
    expect(dead.received[0]!.answered).toBeNull();
    expect(statuses("sub_dead")).toEqual(Array(6).fill("pending"));
    expect(healthy.received.map((x) => x.headers["webhook-id"])).toEqual(["evt_1", "evt_2", "evt_3", "evt_4", "evt_5", "evt_6"]);
  });

  test("an endpoint that never answers: the attempt ends at the timeout and is retried", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    r.behaviour = "hang";
    subscribe("sub_a", r, [s]);
    write("action.booked");
    worker({ timeoutMs: 200 });
    await until("the attempt recorded", () => store.deliveries("sub_a")[0]!.attempts === 1 && store.deliveries("sub_a")[0]!.leaseUntil === null);
    const d = store.deliveries("sub_a")[0]!;
    expect(d.status).toBe("pending");
    expect(d.lastStatus).toBeNull();
    expect(d.lastAnswer).toBe(`no answer from ${new URL(r.url).origin} within 0.2 s`);
  });
});

describe("secrets", () => {
  test("rotation: while both secrets are in force a receiver holding either verifies; after it, only the new one", async () => {
    const [oldS, newS] = [generateSecret(randomBytes), generateSecret(randomBytes)];
    // One receiver that checks each request under both secrets separately, as two receivers would.
    const r = receiver([oldS, newS]);
    subscribe("sub_a", r, [oldS]);
    write("action.booked");
    const w = worker();
    await until("before rotation", () => allDelivered("sub_a"));
    store.updateSubscription("sub_a", { sealedSecrets: [box.seal(newS, "sub_a"), box.seal(oldS, "sub_a")] });
    write("action.booked");
    w.wake();
    await until("during rotation", () => r.received.length === 2 && allDelivered("sub_a"));
    store.updateSubscription("sub_a", { sealedSecrets: [box.seal(newS, "sub_a")] });
    write("action.booked");
    w.wake();
    await until("after rotation", () => r.received.length === 3 && allDelivered("sub_a"));
    expect(r.received.map((x) => x.verdicts)).toEqual([
      ["ok", "No matching signature found"],
      ["ok", "ok"],
      ["No matching signature found", "ok"],
    ]);
    expect(r.received[1]!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
  });

  test("a captured request replayed later is refused by the library's timestamp check", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    write("action.booked");
    worker();
    await until("delivered", () => allDelivered("sub_a"));
    const captured = r.received[0]!;
    // A minute later it would still pass the timestamp check (the webhook-id is what dedupes then).
    setSystemTime(new Date(T0.getTime() + MINUTE));
    expect((await r.replay(captured)).status).toBe(204);
    setSystemTime(new Date(T0.getTime() + 5 * MINUTE + SECOND));
    expect(await r.replay(captured)).toEqual({ status: 401, text: "Message timestamp too old" });
  });

  test("a secret sealed under another webhook key: nothing is sent, the attempt says why and is retried", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    subscribe("sub_a", r, [s]);
    write("action.booked");
    worker({ secrets: createSecretBox(randomBytes(32)) });
    await until("the attempt recorded", () => store.deliveries("sub_a")[0]!.attempts === 1 && store.deliveries("sub_a")[0]!.leaseUntil === null);
    const d = store.deliveries("sub_a")[0]!;
    expect(d.status).toBe("pending");
    expect(d.lastAnswer).toStartWith("not sent: A webhook secret was sealed with the webhook key");
    expect(d.lastAnswer).not.toContain(s);
    expect(r.received).toHaveLength(0);
  });
});

describe("restart", () => {
  test("a worker that dies mid-attempt: its delivery waits out the lease, then another worker sends it, same webhook-id", async () => {
    const s = generateSecret(randomBytes);
    const r = receiver([s]);
    r.behaviour = "hang";
    subscribe("sub_a", r, [s]);
    write("action.booked");
    write("action.booked");
    const first = worker();
    await until("the first attempt in flight", () => r.received.length === 1);
    // Stopped mid-attempt, as a killed process would be: nothing is recorded.
    await first.stop();
    expect(store.deliveries("sub_a").map((d) => ({ attempts: d.attempts, status: d.status }))).toEqual([
      { attempts: 1, status: "pending" },
      { attempts: 0, status: "pending" },
    ]);
    r.behaviour = "verify";
    const second = worker();
    // Still leased: the new worker sends nothing.
    expect(await store.claimDue({ now: new Date(), leaseUntil: new Date(), limit: 10 })).toEqual([]);
    setSystemTime(new Date(store.deliveries("sub_a")[0]!.leaseUntil!.getTime() + 1));
    second.wake();
    await until("both delivered after the lease", () => allDelivered("sub_a"));
    expect(r.received.map((x) => x.headers["webhook-id"])).toEqual(["evt_1", "evt_1", "evt_2"]);
    expect(store.deliveries("sub_a")[0]!.attempts).toBe(2);
    expect(r.received.slice(1).map((x) => x.verdicts)).toEqual([["ok"], ["ok"]]);
  });
});
