// A server's delivery worker in a process of its own, for the kill test: it opens the ledger in
// CA_LEDGER_DATA_DIR (the outbox tables already made), takes the webhook key from
// WEBHOOK_SECRET_KEY, and delivers until it is killed. Prints "delivering" once started.
import { openLedger } from "../../src/ledger/db.ts";
import { createSecretBox } from "../../src/events/secret-box.ts";
import { sqlDeliveryStore } from "../../src/events/sql-store.ts";
import { createWebhookTransport } from "../../src/events/transport.ts";
import { loadWebhookKey } from "../../src/events/webhook-key.ts";
import { startDeliveryWorker } from "../../src/events/worker.ts";

const dataDir = process.env.CA_LEDGER_DATA_DIR!;
const ledger = await openLedger({ dataDir, databaseUrl: process.env.DATABASE_URL || null });
const { key } = loadWebhookKey({ env: process.env.WEBHOOK_SECRET_KEY, engine: ledger.engine, dataDir });
startDeliveryWorker({ store: sqlDeliveryStore(ledger.db), send: createWebhookTransport(), secrets: createSecretBox(key), pollMs: 50 });
console.log("delivering");
await new Promise(() => {});
