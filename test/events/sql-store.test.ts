// The outbox on a real ledger (SQLite in a temp data dir; PostgreSQL with CA_LEDGER_TEST_ENGINE),
// held to the same contract as every delivery store, plus what only a database shows: two servers
// claiming at once, and the event written in the ledger's transaction or not at all. The tables
// are the ledger's own (migration 0016_events_outbox; PostgreSQL 0007).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { sqlDeliveryStore, writeEvent } from "../../src/events/sql-store.ts";
import { ledgerTarget, testEngine } from "../support/engine.ts";
import { q } from "../support/sql.ts";
import { addSubscription, ensureTenant } from "../support/outbox.ts";
import { deliveryStoreContract, type StoreHarness } from "./store-contract.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freshLedger(): Promise<{ ledger: Ledger; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "ca-ledger-outbox-"));
  dirs.push(dir);
  const ledger = await openLedger(ledgerTarget(dir));
  for (const tenant of [1, 2]) await ensureTenant(ledger.db, tenant);
  return { ledger, dir };
}

deliveryStoreContract(`the ledger's outbox (${testEngine === "postgres" ? "PostgreSQL" : "SQLite"})`, async (): Promise<StoreHarness> => {
  const { ledger } = await freshLedger();
  const db = ledger.db;
  return {
    store: sqlDeliveryStore(db),
    addSubscription: (s) => addSubscription(db, s),
    updateSubscription: async (id, patch) => {
      if (patch.url !== undefined) await db.write((tx) => tx.run(...q`UPDATE webhook_subscriptions SET url = ${patch.url!} WHERE id = ${id}`));
      if (patch.sealedSecrets !== undefined) await db.write((tx) => tx.run(...q`UPDATE webhook_subscriptions SET sealed_secrets = ${JSON.stringify(patch.sealedSecrets)} WHERE id = ${id}`));
    },
    enqueue: async (e, at) => {
      const id = await db.write((tx) => writeEvent(tx, { tenantId: 1, type: e.type, owner: null, body: e.body, at }));
      expect(id).toBe(e.id);
      const rows = await db.all(...q<{ id: number | string }>`SELECT d.id FROM webhook_deliveries d WHERE d.event_seq = ${Number(id.slice(4))} ORDER BY d.id`);
      return rows.map((r) => String(r.id));
    },
    state: async (id) => {
      const r = (await db.get(
        ...q<{
          status: "pending" | "delivered" | "failed";
          attempts: number;
          last_status: number | null;
          last_answer: string | null;
          next_attempt_at: string | null;
        }>`SELECT status, attempts, last_status, last_answer, next_attempt_at FROM webhook_deliveries WHERE id = ${id}`,
      ))!;
      return {
        status: r.status,
        attempts: Number(r.attempts),
        lastStatus: r.last_status === null ? null : Number(r.last_status),
        lastAnswer: r.last_answer,
        nextAttemptAt: r.next_attempt_at === null ? null : new Date(r.next_attempt_at),
      };
    },
    close: () => ledger.close(),
  };
});

describe("the outbox on the ledger's database", () => {
  // On SQLite one server holds a data dir (its lock), so the second "server" is the same connection.
  test("two servers claiming at once never hold the same subscription; every delivery is claimed exactly once", async () => {
    const { ledger, dir } = await freshLedger();
    const other = testEngine === "postgres" ? await openLedger(ledgerTarget(dir)) : ledger;
    try {
      const subs = Array.from({ length: 6 }, (_, i) => `sub_${i}`);
      for (const id of subs) await addSubscription(ledger.db, { id, url: `https://${id}.example/`, sealedSecrets: ["s"], events: null });
      const at = new Date("2026-03-01T00:00:00.000Z");
      for (let n = 0; n < 4; n++) await ledger.db.write((tx) => writeEvent(tx, { tenantId: 1, type: "wallet.synced", owner: "o", body: `{"n":${n}}`, at }));
      const stores = [sqlDeliveryStore(ledger.db), sqlDeliveryStore(other.db)];
      const sent: string[] = [];
      // Rounds of concurrent claims by both servers, each delivering what it took.
      for (let round = 0; round < 10 && sent.length < 24; round++) {
        const batches = await Promise.all(stores.flatMap((s) => [s, s]).map((s) => s.claimDue({ now: at, leaseUntil: new Date(at.getTime() + 60_000), limit: 4 })));
        const held = batches.flat();
        expect(new Set(held.map((d) => d.subscriptionId)).size).toBe(held.length);
        for (const d of held) {
          sent.push(`${d.subscriptionId}/${d.eventId}`);
          expect(await stores[0]!.recordAttempt({ deliveryId: d.deliveryId, attempt: d.attempt }, { kind: "delivered", at, status: 204, answer: "HTTP 204" })).toBe(true);
        }
      }
      expect(sent).toHaveLength(24);
      expect(new Set(sent).size).toBe(24);
      // In order per subscription.
      for (const id of subs) expect(sent.filter((s) => s.startsWith(`${id}/`))).toEqual(["evt_1", "evt_2", "evt_3", "evt_4"].map((e) => `${id}/${e}`));
    } finally {
      if (other !== ledger) await other.close();
      await ledger.close();
    }
  });

  test("an event is written with the ledger change or not at all; only its tenant's live subscriptions get it, filtered by type", async () => {
    const { ledger } = await freshLedger();
    try {
      await addSubscription(ledger.db, { id: "sub_t1", url: "https://a.example/", sealedSecrets: ["s"], events: ["wallet.gap"] }, 1);
      await addSubscription(ledger.db, { id: "sub_t1_all", url: "https://b.example/", sealedSecrets: ["s"], events: null }, 1);
      await addSubscription(ledger.db, { id: "sub_t2", url: "https://c.example/", sealedSecrets: ["s"], events: null }, 2);
      await ledger.db.write((tx) => tx.run(...q`UPDATE webhook_subscriptions SET removed_at = ${new Date().toISOString()} WHERE id = 'sub_t1_all'`));
      const at = new Date();
      await expect(
        ledger.db.write(async (tx) => {
          await writeEvent(tx, { tenantId: 1, type: "wallet.gap", owner: "o", body: "{}", at });
          throw new Error("the ledger change failed");
        }),
      ).rejects.toThrow("the ledger change failed");
      expect(await ledger.db.all(...q`SELECT seq FROM events`)).toEqual([]);
      expect(await ledger.db.all(...q`SELECT id FROM webhook_deliveries`)).toEqual([]);
      await ledger.db.write((tx) => writeEvent(tx, { tenantId: 1, type: "wallet.gap", owner: "o", body: "{}", at }));
      await ledger.db.write((tx) => writeEvent(tx, { tenantId: 1, type: "wallet.synced", owner: "o", body: "{}", at }));
      const rows = await ledger.db.all(...q<{ subscription_id: string; type: string }>`SELECT d.subscription_id, e.type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq ORDER BY d.id`);
      expect(rows).toEqual([{ subscription_id: "sub_t1", type: "wallet.gap" }]);
      // webhooks test: a ping to one subscription only.
      await ledger.db.write((tx) => writeEvent(tx, { tenantId: 2, type: "ping", owner: null, body: "{}", at }, "sub_t2"));
      expect((await ledger.db.all(...q<{ subscription_id: string }>`SELECT subscription_id FROM webhook_deliveries ORDER BY id`)).map((r) => r.subscription_id)).toEqual(["sub_t1", "sub_t2"]);
    } finally {
      await ledger.close();
    }
  });

  test("the events table is append-only: an event is never changed nor deleted", async () => {
    const { ledger } = await freshLedger();
    try {
      await ledger.db.write((tx) => writeEvent(tx, { tenantId: 1, type: "wallet.synced", owner: "o", body: "{}", at: new Date() }));
      await expect(ledger.db.write((tx) => tx.run(...q`UPDATE events SET body = ${'{"forged":1}'}`))).rejects.toThrow("events is append-only");
      await expect(ledger.db.write((tx) => tx.run(...q`DELETE FROM events`))).rejects.toThrow("events is append-only");
      expect(await ledger.db.all(...q`SELECT body FROM events`)).toEqual([{ body: "{}" }]);
    } finally {
      await ledger.close();
    }
  });
});
