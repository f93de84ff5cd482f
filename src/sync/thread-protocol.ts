// The messages between `serve`'s HTTP thread and its worker thread. Plain, structured-cloneable
// data: the worker opens its own SQLite connection from the data dir and rebuilds its sources.
import type { Config } from "../config.ts";

export type ToWorker =
  | { type: "start"; config: Config; demo: boolean; pollNetwork: boolean }
  | { type: "wake" }
  | { type: "stop" };

export type FromWorker =
  | { type: "ready" }
  | { type: "rpc"; counts: [method: string, outcome: string, n: number][] }
  | { type: "stopped" }
  | { type: "failed"; error: string };
