// The client's paths come from the route declarations: client/src/routes.ts is generated from
// them (scripts/gen-client-routes.ts) and checked in, since the client package imports no server
// code. It must be current, and every route (but the document's own) must have a client method
// that asks for it with the declared method.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../../client/src/index.ts";
import { routes } from "../../src/http/routes/index.ts";
import { clientRoutesFile, clientRoutesSource } from "../../scripts/gen-client-routes.ts";
import { repoRoot } from "../harness/index.ts";

describe("client/src/routes.ts", () => {
  test("is current: regenerate it with ./node_modules/.bin/bun run scripts/gen-client-routes.ts", () => {
    expect(readFileSync(clientRoutesFile, "utf8")).toBe(clientRoutesSource());
  });

  test("the client's sources import nothing but each other, schemas/ and TypeBox", () => {
    const dir = join(repoRoot, "client", "src");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const imports = [...readFileSync(join(dir, file), "utf8").matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!);
      for (const i of imports) expect({ file, import: i, allowed: /^(\.\/|\.\.\/\.\.\/schemas\/|@sinclair\/typebox)/.test(i) }).toEqual({ file, import: i, allowed: true });
    }
  });
});

describe("the client", () => {
  test("has a method for every declared route but the document's own and the MCP endpoint's (agents speak it with an MCP SDK), with the route's method", async () => {
    const asked: string[] = [];
    const fetch = async (url: string, init?: RequestInit) => {
      asked.push(`${init?.method ?? "GET"} ${new URL(url, "http://x").pathname}`);
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    };
    const c = createClient({ baseUrl: "http://127.0.0.1:9", fetch });
    const w = "WALLET",
      id = "ID",
      mint = "MINT";
    await Promise.all([
      c.health(),
      c.assets(),
      c.requestSync(w),
      c.removeWallet(w),
      c.wallets(),
      c.syncStatus(w),
      c.portfolio(w),
      c.income(w),
      c.incomeEvent(w, id),
      c.journal(w),
      c.yieldMetrics(w),
      c.exportCsv(w),
      c.opsStatus(),
      c.opsMetrics(),
      c.v2.actions(w),
      c.v2.action(w, id),
      c.v2.taxonomy(),
      c.v2.lineage(mint),
      c.v2.incomeReport(2026),
      c.v2.reportCurrencies(),
      c.v2.calendar(),
      c.v2.calendarFeed("TOKEN"),
      c.v2.events(),
      c.v2.lots(w),
      c.v2.gainsReport(2026),
      c.v2.holdings("2026-06-30"),
    ]);
    const filled = (path: string) => path.replace(":owner", w).replace(":id", id).replace(":mint", mint).replace(":file", "TOKEN.ics");
    const declared = routes.filter((r) => r.path !== "/v1/openapi.json" && r.path !== "/mcp").map((r) => `${r.method} ${filled(r.path)}`);
    expect([...asked].sort()).toEqual([...declared].sort());
  });
});
