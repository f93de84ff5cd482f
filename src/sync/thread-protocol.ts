// The messages between `serve`'s HTTP thread and its worker thread. Plain, structured-cloneable
// data: the worker opens its own SQLite connection from the data dir and rebuilds its sources.
// The webhook key's variable travels in the start message (in memory, never logged): the thread
// loads the key only when it first signs a delivery.
import type { Config } from "../config.ts";
import type { OutcomeKind } from "../events/delivery-store.ts";
import type { EnqueueResult } from "../ledger/queue.ts";

export type ToWorker =
  | { type: "start"; config: Config; demo: boolean; pollNetwork: boolean; clock?: SharedArrayBuffer; webhookKeyEnv?: string }
  | { type: "wake" }
  | { type: "register"; id: number; tenantId: number; maxWallets: number; owner: string }
  | { type: "unregister"; id: number; tenantId: number; owner: string }
  | { type: "stop" };

export type FromWorker =
  | { type: "ready" }
  | { type: "rpc"; counts: [method: string, outcome: string, n: number][] }
  | { type: "webhooks"; counts: [outcome: OutcomeKind, n: number][] }
  | { type: "registered"; id: number; result: EnqueueResult }
  | { type: "register_failed"; id: number; quota: boolean; error: string }
  | { type: "unregistered"; id: number; removed: boolean }
  | { type: "unregister_failed"; id: number; error: string }
  | { type: "database_error"; message: string; code: string | null }
  | { type: "stopped" }
  | { type: "failed"; error: string };
