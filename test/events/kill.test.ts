// Deliveries resume after a SIGKILL: a process delivering from a real ledger is killed while its
// attempt is in flight; the delivery keeps its lease, and once the lease is over another worker
// on the same ledger sends it, with the same webhook-id, verified by the reference library.
import { afterAll, afterEach, expect, setSystemTime, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSecret } from "../../src/domain/events/signature.ts";
import { eventBody, serializeEventBody } from "../../src/domain/events/types.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { createSecretBox } from "../../src/events/secret-box.ts";
import { sqlDeliveryStore, writeEvent } from "../../src/events/sql-store.ts";
import { createWebhookTransport } from "../../src/events/transport.ts";
import { startDeliveryWorker } from "../../src/events/worker.ts";
import { ledgerEnv, ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";
import { addSubscription } from "../support/outbox.ts";
import { startReceiver } from "../support/webhook-receiver.ts";
import { until } from "../support/until.ts";

const dir = mkdtempSync(join(tmpdir(), "ca-ledger-kill-"));
let child: ReturnType<typeof Bun.spawn> | null = null;
afterEach(() => setSystemTime());
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("a delivering process killed mid-attempt: after the lease, the next worker delivers the same event", async () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const secret = generateSecret(randomBytes);
  const receiver = startReceiver([secret]);
  receiver.behaviour = "hang";
  const ledger = await openLedger(ledgerTarget(dir));
  try {
    await addSubscription(ledger.db, { id: "sub_k", url: receiver.url, sealedSecrets: [box.seal(secret, "sub_k")], events: null });
    const body = serializeEventBody(eventBody("action.booked", new Date().toISOString(), { id: "a1" }));
    await ledger.db.write((tx) => writeEvent(tx, { tenantId: 1, type: "action.booked", owner: "o", body, at: new Date() }));

    child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "support", "delivery-process.ts")], {
      env: { ...process.env, ...ledgerEnv(dir), CA_LEDGER_DATA_DIR: dir, WEBHOOK_SECRET_KEY: key.toString("base64") },
      stdout: "pipe",
      stderr: "inherit",
    });
    await until("the child's attempt reached the receiver", () => receiver.received.length === 1);
    child.kill("SIGKILL");
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");
    const held = (await ledger.db.get(...q<{ status: string; attempts: number; lease_until: string | null }>`SELECT status, attempts, lease_until FROM webhook_deliveries`))!;
    expect({ status: held.status, attempts: Number(held.attempts), leased: held.lease_until !== null }).toEqual({ status: "pending", attempts: 1, leased: true });

    receiver.behaviour = "verify";
    const store = sqlDeliveryStore(ledger.db);
    // While the dead process's lease lives, nobody sends it again.
    expect(await store.claimDue({ now: new Date(), leaseUntil: new Date(), limit: 10 })).toEqual([]);
    setSystemTime(new Date(Date.parse(held.lease_until!) + 1));
    const worker = startDeliveryWorker({ store, send: createWebhookTransport(), secrets: box, now: () => new Date(), pollMs: 50 });
    try {
      await until("delivered after the lease", async () => (await ledger.db.get(...q<{ status: string }>`SELECT status FROM webhook_deliveries`))!.status === "delivered");
    } finally {
      await worker.stop();
    }
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual(["evt_1", "evt_1"]);
    expect(receiver.received[1]!.verdicts).toEqual(["ok"]);
    expect(receiver.received[1]!.body).toBe(body);
    expect(Number((await ledger.db.get(...q<{ attempts: number }>`SELECT attempts FROM webhook_deliveries`))!.attempts)).toBe(2);
  } finally {
    receiver.stop();
    await ledger.close();
  }
});
