// The worker thread's entry (a Bun Worker started by host.ts): opens its own connection to the
// ledger and runs the sync worker there, and beside it the webhook delivery worker (its own loop;
// woken when a booking or a sync's end writes events). RPC and delivery counts go back to the
// HTTP thread, which serves the metrics, about once a second.
import { demoSources, loadDemo } from "../demo/load.ts";
import { startServeDeliveries } from "../events/deliveries.ts";
import type { DeliveryWorker } from "../events/worker.ts";
import type { OutcomeKind } from "../events/delivery-store.ts";
import { openLedger } from "../ledger/db.ts";
import { classifyDatabaseError } from "../ledger/health.ts";
import type { Db } from "../ledger/sql/port.ts";
import { createLogger } from "../log.ts";
import { QuotaExceeded, registerAndEnqueue, unregisterWallet } from "../ledger/queue.ts";
import { clockOf } from "./shared-clock.ts";
import type { FromWorker, ToWorker } from "./thread-protocol.ts";
import { startWorker, type Worker as SyncWorker } from "./worker.ts";

declare const self: Worker;

const post = (m: FromWorker) => self.postMessage(m);
let worker: SyncWorker | null = null;
let deliveries: DeliveryWorker | null = null;
let close: (() => Promise<void>) | null = null;
let db: Db | null = null;
const counts = new Map<string, number>();
const delivered = new Map<OutcomeKind, number>();
const flush = () => {
  if (counts.size) post({ type: "rpc", counts: [...counts].map(([k, n]) => [...(k.split("\u0000") as [string, string]), n]) });
  if (delivered.size) post({ type: "webhooks", counts: [...delivered] });
  counts.clear();
  delivered.clear();
};
const flusher = setInterval(flush, 1000);

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const m = event.data;
  if (m.type === "start") {
    try {
      const ledger = await openLedger(m.config, { migrate: false });
      close = () => ledger.close();
      db = ledger.db;
      const logger = createLogger(m.config.logLevel);
      if (m.demo) {
        const load = await loadDemo(ledger, new Date(), m.config);
        if (load.synced || load.failed) logger.info("demo loaded", { wallets: load.synced, failed: load.failed, ms: load.ms });
      }
      const sources = m.demo ? demoSources(m.config) : { config: m.config, fetch: undefined };
      deliveries = await startServeDeliveries({
        db: ledger.db,
        engine: ledger.engine,
        dataDir: m.config.dataDir,
        keyEnv: m.webhookKeyEnv,
        logger,
        now: clockOf(m.clock),
        onOutcome: (kind) => delivered.set(kind, (delivered.get(kind) ?? 0) + 1),
      });
      worker = startWorker({
        db: ledger.db,
        ...sources,
        logger,
        pollNetwork: m.pollNetwork,
        now: clockOf(m.clock),
        // The HTTP thread's health check learns of damage the worker met first.
        onError: (e) => {
          if (classifyDatabaseError(e)) post({ type: "database_error", message: String((e as Error)?.message ?? e), code: (e as { code?: string })?.code ?? null });
        },
        onRpcRequest: (method, outcome) => counts.set(`${method}\u0000${outcome}`, (counts.get(`${method}\u0000${outcome}`) ?? 0) + 1),
        onEventsWritten: () => deliveries?.wake(),
      });
      post({ type: "ready" });
    } catch (e) {
      post({ type: "failed", error: String((e as Error)?.message ?? e) });
    }
  } else if (m.type === "wake") {
    worker?.wake();
  } else if (m.type === "register") {
    try {
      if (!db) throw new Error("the worker has not started");
      const result = await registerAndEnqueue(db, m.tenantId, m.maxWallets, m.owner);
      post({ type: "registered", id: m.id, result });
      if (result.job === "enqueued") worker?.wake();
    } catch (e) {
      post({ type: "register_failed", id: m.id, quota: e instanceof QuotaExceeded, error: String((e as Error)?.message ?? e) });
    }
  } else if (m.type === "unregister") {
    try {
      if (!db) throw new Error("the worker has not started");
      const r = await unregisterWallet(db, m.tenantId, m.owner);
      // A run of this tenant × wallet in flight here stops reading now (its row is gone).
      if (r.runningJobId !== null) worker?.cancel(r.runningJobId);
      post({ type: "unregistered", id: m.id, removed: r.removed });
    } catch (e) {
      post({ type: "unregister_failed", id: m.id, error: String((e as Error)?.message ?? e) });
    }
  } else if (m.type === "stop") {
    await Promise.all([worker?.stop(), deliveries?.stop()]);
    flush();
    clearInterval(flusher);
    await close?.();
    post({ type: "stopped" });
  }
};
