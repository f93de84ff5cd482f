// The ledger's write path reads no read model: booking, the writers and the observation store
// reach nothing under src/ledger/queries/, however indirectly (docs/architecture.md#the-ledger).
// A projection booking stores (the portfolio's text) is rendered on the write side
// (src/ledger/portfolio-render.ts); the routes read what it stored.
import { describe, expect, test } from "bun:test";
import { importGraph } from "./import-graph.ts";

const WRITE_PATH = ["src/ledger/booking.ts", "src/ledger/writers.ts", "src/ledger/store.ts", "src/ledger/upgrades.ts"];

function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const m = todo.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    todo.push(...(graph.get(m) ?? []));
  }
  return seen;
}

describe("the ledger's rooms", () => {
  const graph = importGraph(["src"]);
  test.each(WRITE_PATH)("%s reaches no read model", (start) => {
    expect(graph.has(start)).toBe(true);
    expect([...reachable(graph, start)].filter((m) => m.startsWith("src/ledger/queries/"))).toEqual([]);
  });
});
