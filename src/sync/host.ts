// Starts the sync worker on its own thread (one process still: a Bun Worker), restarts it if it
// dies, and relays its RPC and webhook delivery counts to the metrics. The HTTP thread only ever sends it messages.
import type { Config } from "../config.ts";
import type { OutcomeKind } from "../events/delivery-store.ts";
import type { Logger } from "../log.ts";
import { QuotaExceeded, type EnqueueResult } from "../ledger/queue.ts";
import type { FromWorker, ToWorker } from "./thread-protocol.ts";

/** A registration or removal the worker has not answered in this time fails (a worker restarting, a stuck one). */
const REGISTER_TIMEOUT_MS = 30_000;

export interface WorkerThread {
  /** Resolves once the worker has opened the ledger and started. */
  ready: Promise<void>;
  wake(): void;
  /** Registers a wallet and queues its sync, on the worker's connection (see AppDeps.registerWallet). */
  register(tenantId: number, maxWallets: number, owner: string): Promise<EnqueueResult>;
  /** The tenant stops following the wallet, on the worker's connection; true when it followed it (see AppDeps.removeWallet). */
  unregister(tenantId: number, owner: string): Promise<boolean>;
  stop(): Promise<void>;
}

export interface WorkerThreadOptions {
  config: Config;
  demo: boolean;
  pollNetwork: boolean;
  logger: Logger;
  onRpc(method: string, outcome: string, n: number): void;
  /** Webhook delivery attempts by outcome, as the delivery worker on the thread recorded them. */
  onWebhooks?(outcome: OutcomeKind, n: number): void;
  /** WEBHOOK_SECRET_KEY as the server was started with it (docs/events.md#secrets-at-rest). */
  webhookKeyEnv?: string;
  /** A database error the worker met (health.noteError). */
  onDatabaseError?(error: Error): void;
  /** The worker's clock when a test sets it (shared-clock.ts); the wall clock otherwise. */
  clock?: SharedArrayBuffer;
}

/**
 * In the compiled binary the thread's module is an entry point of the build, found by its path
 * from the build root; from source it sits beside this file.
 */
function threadUrl(): string {
  return import.meta.url.includes("/$bunfs/") ? "./src/sync/thread.ts" : new URL("./thread.ts", import.meta.url).href;
}

export function startWorkerThread(opts: WorkerThreadOptions): WorkerThread {
  let stopping = false;
  let thread: Worker;
  let markReady: () => void = () => {};
  let failStart: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failStart = reject;
  });
  let stopped: () => void = () => {};
  const pending = new Map<number, { resolve(r: unknown): void; reject(e: Error): void }>();
  let nextId = 1;

  const spawn = () => {
    thread = new Worker(threadUrl());
    thread.onmessage = (event: MessageEvent<FromWorker>) => {
      const m = event.data;
      if (m.type === "ready") markReady();
      else if (m.type === "rpc") for (const [method, outcome, n] of m.counts) opts.onRpc(method, outcome, n);
      else if (m.type === "webhooks") for (const [outcome, n] of m.counts) opts.onWebhooks?.(outcome, n);
      else if (m.type === "stopped") stopped();
      else if (m.type === "database_error") opts.onDatabaseError?.(Object.assign(new Error(m.message), { code: m.code ?? undefined }));
      else if (m.type === "registered") pending.get(m.id)?.resolve(m.result);
      else if (m.type === "register_failed") pending.get(m.id)?.reject(m.quota ? new QuotaExceeded(m.error) : new Error(m.error));
      else if (m.type === "unregistered") pending.get(m.id)?.resolve(m.removed);
      else if (m.type === "unregister_failed") pending.get(m.id)?.reject(new Error(m.error));
      else if (m.type === "failed") {
        opts.logger.error("worker thread failed to start", { error: m.error });
        failStart(new Error(`the sync worker could not start: ${m.error}`));
      }
    };
    // Work is transactional and idempotent: a dead worker is started again, and picks up its
    // dirty marks and leased jobs where they stand.
    thread.onerror = (event) => {
      opts.logger.error("worker thread died; restarting", { error: String(event.message ?? event) });
      if (!stopping)
        setTimeout(() => {
          if (!stopping) spawn();
        }, 1000);
    };
    send({ type: "start", config: opts.config, demo: opts.demo, pollNetwork: opts.pollNetwork, clock: opts.clock, webhookKeyEnv: opts.webhookKeyEnv });
  };
  const send = (m: ToWorker) => thread.postMessage(m);
  /** Sends a request the worker answers with the same id, within REGISTER_TIMEOUT_MS. */
  const ask = <T>(what: string, message: (id: number) => ToWorker): Promise<T> => {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => settle(() => reject(new Error(`the sync worker did not answer the ${what}`))), REGISTER_TIMEOUT_MS);
      const settle = (done: () => void) => {
        clearTimeout(timer);
        pending.delete(id);
        done();
      };
      pending.set(id, { resolve: (r) => settle(() => resolve(r as T)), reject: (e) => settle(() => reject(e)) });
      send(message(id));
    });
  };
  spawn();

  return {
    ready,
    wake: () => send({ type: "wake" }),
    register: (tenantId, maxWallets, owner) => ask<EnqueueResult>("registration", (id) => ({ type: "register", id, tenantId, maxWallets, owner })),
    unregister: (tenantId, owner) => ask<boolean>("removal", (id) => ({ type: "unregister", id, tenantId, owner })),
    async stop() {
      stopping = true;
      const done = new Promise<void>((resolve) => (stopped = resolve));
      send({ type: "stop" });
      await Promise.race([done, new Promise((r) => setTimeout(r, 1500))]);
      thread.terminate();
    },
  };
}
