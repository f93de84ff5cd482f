// The thread that answers HTTP never runs the engine or a booking write: nothing it imports
// reaches them. Those run on the worker thread (src/sync/thread.ts), which the server starts by
// path only. Checked on the real import graph of the sources, so a new import that drags the
// engine onto the HTTP thread fails here.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** Every module reachable by static imports from `entry` (relative imports only). */
function reachable(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const todo = [resolve(root, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, "utf8");
    const deps: string[] = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)) {
      if (/^\s*import\s+type\s/.test(m[0]) || /^\s*export\s+type\s/.test(m[0])) continue; // erased at build time
      let target = resolve(dirname(file), m[1]!);
      if (!existsSync(target) && existsSync(`${target}.ts`)) target = `${target}.ts`;
      if (!target.endsWith(".ts")) continue; // json, sql
      deps.push(target);
      todo.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The import chain from the entry to `target`, for the failure message. */
function chain(graph: Map<string, string[]>, entry: string, target: string): string[] | null {
  const start = resolve(root, entry);
  const previous = new Map<string, string>();
  const queue = [start];
  const seen = new Set(queue);
  while (queue.length) {
    const file = queue.shift()!;
    if (file === target) {
      const path = [file];
      while (previous.has(path[0]!)) path.unshift(previous.get(path[0]!)!);
      return path.map((p) => relative(root, p));
    }
    for (const d of graph.get(file) ?? [])
      if (!seen.has(d)) {
        seen.add(d);
        previous.set(d, file);
        queue.push(d);
      }
  }
  return null;
}

const workerOnly = ["src/domain/engine.ts", "src/ledger/booking.ts", "src/sync/worker.ts", "src/sync/job.ts", "src/sources/solana/chain-read/pipeline.ts", "src/demo/load.ts"];

describe("the HTTP thread", () => {
  for (const entry of ["src/server.ts", "src/http/app.ts"]) {
    test(`${entry} reaches none of the engine, booking or sync modules`, () => {
      const graph = reachable(entry);
      expect(graph.size).toBeGreaterThan(10);
      for (const target of workerOnly) expect({ target, via: chain(graph, entry, resolve(root, target)) }).toEqual({ target, via: null });
    });
  }
  test("the worker thread's entry does reach them (the check would see them)", () => {
    const graph = reachable("src/sync/thread.ts");
    for (const target of workerOnly) expect(chain(graph, "src/sync/thread.ts", resolve(root, target))).not.toBeNull();
  });
});
