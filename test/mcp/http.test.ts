// POST /mcp on the real server over loopback, on the demo, driven by the SDK's own client: the
// tools are the declared routes (src/mcp/route-tools.ts), each answering the route's JSON byte
// for byte; the endpoint is authenticated, rate-limited and counted like every route; a key sees
// only what its scopes and its tenant allow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { demoTenant } from "../../src/demo/identity.ts";
import { missingScopeMessage } from "../../src/domain/scopes.ts";
import { routes } from "../../src/http/routes/index.ts";
import { createKey, revokeKey } from "../../src/ledger/keys.ts";
import { inputSchema, toolRoutes } from "../../src/mcp/route-tools.ts";
import { call, randomAddress } from "../harness/index.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";
import { serveDemo, type DemoServer } from "../support/demo-server.ts";
import { bodyText, builtTools, callTool as tool, connectClient, readCases, sameInstant, texts, type ToolCase } from "../support/mcp-cases.ts";

let demo: DemoServer;
let keys: { full: string; reader: string; assets: string; ledger: string; other: string };
let owner: string;
let cases: ToolCase[];
const clients: Client[] = [];

beforeAll(async () => {
  demo = await serveDemo(await demoDataDir());
  const make = async (scopes: ("assets:read" | "ledger:read" | "wallets:sync" | "ops:read")[], tenant = demoTenant) =>
    (await createKey(demo.ledger.db, { name: `mcp-${scopes.join("-")}-${tenant}`, tenant, scopes })).key;
  keys = {
    full: demo.key,
    reader: await make(["assets:read", "ledger:read"]),
    assets: await make(["assets:read"]),
    ledger: await make(["ledger:read"]),
    other: await make(["assets:read", "ledger:read", "wallets:sync", "ops:read"], "other-tenant"),
  };
  owner = (await call(demo.url, "/v1/wallets", { key: keys.full })).body.wallets[0].owner;
  cases = await readCases(demo.url, keys.full);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await demo?.stop();
  removeTempDirs();
});

const endpoint = () => new URL(`${demo.url}/mcp`);

async function connect(key: string): Promise<Client> {
  const client = await connectClient(new StreamableHTTPClientTransport(endpoint(), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

/** One raw POST of a JSON-RPC message, as a client without the SDK sends it. */
function post(message: unknown, headers: Record<string, string> = {}) {
  return fetch(endpoint(), {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2025-06-18", ...headers },
    body: JSON.stringify(message),
  });
}
const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

describe("POST /mcp: the tools are the declared routes", () => {
  test("lists every declared tool, with the route's TypeBox schemas as JSON Schema, its summary as title, and honest annotations", async () => {
    const client = await connect(keys.full);
    const { tools } = await client.listTools();
    const declared = toolRoutes(routes);
    expect(tools.map((t) => t.name).sort()).toEqual([...builtTools].sort());
    expect(declared.map((r) => r.tool.name).sort()).toEqual([...builtTools].sort());
    for (const r of declared) {
      const t = tools.find((x) => x.name === r.tool.name)!;
      expect(t.inputSchema).toEqual({ ...JSON.parse(JSON.stringify(inputSchema(r))), additionalProperties: false });
      expect(t.outputSchema).toEqual(JSON.parse(JSON.stringify(r.response[200] ?? r.response[202])));
      expect(t.title).toBe(r.summary);
      expect(t.description).toContain(`scope ${r.scope}`);
      expect(t.annotations).toMatchObject({ readOnlyHint: r.method === "GET", destructiveHint: false, openWorldHint: r.tool.name === "request_sync" });
    }
    // The route's own schemas: paging and date filters as the API takes them.
    const actions = tools.find((t) => t.name === "list_actions")!.inputSchema as { properties: Record<string, { minimum?: number; maximum?: number }>; required: string[] };
    expect(Object.keys(actions.properties)).toEqual(["owner", "limit", "offset", "from", "to", "year"]);
    expect([actions.properties.limit!.minimum, actions.properties.limit!.maximum]).toEqual([1, 200]);
    expect(actions.required).toEqual(["owner"]);
    expect(Object.keys((tools.find((t) => t.name === "get_action")!.inputSchema as { properties: object }).properties)).toEqual(["id", "owner"]);
  });

  test("every read answers the route's JSON byte for byte (the text block, and the structured result serialised), with a sentence first", async () => {
    const client = await connect(keys.full);
    expect(new Set(cases.map((c) => c.tool))).toEqual(new Set(builtTools.filter((t) => t !== "request_sync")));
    for (const c of cases) {
      const http = await call(demo.url, c.path, { key: keys.full });
      expect({ tool: c.tool, status: http.status }).toEqual({ tool: c.tool, status: 200 });
      const r = await tool(client, c.tool, c.args); // the SDK's client has checked it against the output schema
      expect({ tool: c.tool, isError: r.isError ?? false }).toEqual({ tool: c.tool, isError: false });
      expect({ tool: c.tool, text: sameInstant(bodyText(r)) }).toEqual({ tool: c.tool, text: sameInstant(http.text) });
      expect({ tool: c.tool, json: sameInstant(JSON.stringify(r.structuredContent)) }).toEqual({ tool: c.tool, json: sameInstant(http.text) });
      expect(texts(r)).toHaveLength(2);
      expect(texts(r)[0]!.length).toBeGreaterThan(20);
    }
  });

  test("property: for any paging and date filter, a tool and its route agree: the same bytes, or a refusal with the same code", async () => {
    const client = await connect(keys.full);
    const day = fc.constantFrom("2025-12-31", "2026-01-01", "2026-02-28", "2026-02-30", "2026-06-15", "2026-13-01", "2026-8-1");
    const args = fc.record({
      tool: fc.constantFrom("list_actions", "list_income"),
      owner: fc.constantFrom(owner, randomAddress()),
      limit: fc.option(fc.integer({ min: -2, max: 205 }), { nil: undefined }),
      offset: fc.option(fc.integer({ min: -1, max: 25 }), { nil: undefined }),
      year: fc.option(fc.integer({ min: 2024, max: 2027 }), { nil: undefined }),
      from: fc.option(day, { nil: undefined }),
      to: fc.option(day, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(args, async ({ tool: name, ...given }) => {
        const a = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
        const query = new URLSearchParams(Object.entries(a).map(([k, v]) => [k, String(v)]));
        const http = await call(demo.url, `${name === "list_actions" ? "/v2/actions" : "/v1/income"}?${query}`, { key: keys.full });
        const r = await tool(client, name, a);
        if (http.status === 200) {
          expect({ a, isError: r.isError ?? false, text: bodyText(r) }).toEqual({ a, isError: false, text: http.text });
        } else {
          expect({ a, isError: r.isError, code: JSON.parse(bodyText(r)).code }).toEqual({ a, isError: true, code: http.body.code });
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  test("the summaries say what the answer holds", async () => {
    const client = await connect(keys.full);
    expect(texts(await tool(client, "list_actions", { owner, limit: 2 }))[0]).toMatch(/^Corporate actions of a wallet, newest first: 2 of \d+ actions; more from offset 2\.$/);
    const { totals } = (await call(demo.url, "/v2/reports/income?year=2026", { key: keys.full })).body as { totals: { usd: string; withholdingTaxUsd: string } };
    expect(texts(await tool(client, "income_report", { year: 2026 }))[0]).toContain(`2026, 2 wallet(s): net ${totals.usd} USD, withheld ${totals.withholdingTaxUsd}`);
    expect(texts(await tool(client, "list_wallets"))[0]).toStartWith(`Tenant demo follows 2 of at most 100 wallets: `);
  });

  test("request_sync needs wallets:sync, is not read-only, and answers the route's 202 body", async () => {
    const client = await connect(keys.other);
    const wallet = randomAddress();
    const first = await tool(client, "request_sync", { owner: wallet });
    expect(first.structuredContent).toEqual({ owner: wallet, registration: "registered", status: "queued", job: "enqueued" });
    const again = await tool(client, "request_sync", { owner: wallet });
    const http = await call(demo.url, "/v1/wallets/sync", { key: keys.other, body: { owner: wallet } });
    expect(http.status).toBe(202);
    expect(bodyText(again)).toBe(http.text);
    expect(texts(again)[0]).toBe(`${wallet}: already registered; sync queued, job already pending.`);
  });

  test("a refusal from the route is a tool error carrying the API's code and its error body, byte for byte", async () => {
    const client = await connect(keys.full);
    const unknown = randomAddress();
    const actionId = (await call(demo.url, `/v2/actions?owner=${owner}&limit=1`, { key: keys.full })).body.actions[0].id;
    for (const [name, args, path, code] of [
      ["list_actions", { owner: unknown }, `/v2/actions?owner=${unknown}`, "wallet_not_registered"],
      ["get_portfolio", { owner: "1".repeat(40) }, `/v1/portfolio?owner=${"1".repeat(40)}`, "invalid_owner"],
      ["get_action", { id: `${actionId.slice(0, -1)}0`, owner }, `/v2/actions/${actionId.slice(0, -1)}0?owner=${owner}`, "not_found"],
      ["list_income", { owner, from: "2026-02-30" }, `/v1/income?owner=${owner}&from=2026-02-30`, "invalid_request"],
      ["list_actions", { owner, year: 2026, from: "2026-01-01" }, `/v2/actions?owner=${owner}&year=2026&from=2026-01-01`, "invalid_request"],
    ] as const) {
      const http = await call(demo.url, path, { key: keys.full });
      const r = await tool(client, name, args);
      expect({ name, isError: r.isError, code: JSON.parse(bodyText(r)).code }).toEqual({ name, isError: true, code });
      expect(bodyText(r)).toBe(http.text);
      expect(r.structuredContent).toBeUndefined();
      expect(texts(r)[0]).toStartWith(`Refused (${http.status} ${code}): `);
    }
  });

  test("arguments outside the route's schema are refused as invalid_request naming the parameter, before the route runs", async () => {
    const client = await connect(keys.full);
    for (const [args, named] of [
      [{ owner, limit: 500 }, "limit"],
      [{ owner, limit: "3" }, "limit"],
      [{ owner, color: "red" }, "color"],
      [{}, "owner"],
    ] as const) {
      const body = JSON.parse(bodyText(await tool(client, "list_actions", args)));
      expect(body.code).toBe("invalid_request");
      expect(body.error).toContain(named);
    }
  });

  test("a key lists only the tools its scopes allow; calling another is refused as missing_scope, as the route refuses it", async () => {
    const assets = await connect(keys.assets);
    expect((await assets.listTools()).tools.map((t) => t.name).sort()).toEqual(["get_lineage", "get_taxonomy"]);
    const r = await tool(assets, "list_actions", { owner });
    const http = await call(demo.url, `/v2/actions?owner=${owner}`, { key: keys.assets });
    expect(http.status).toBe(403);
    expect(bodyText(r)).toBe(http.text);
    expect(JSON.parse(bodyText(r))).toEqual({ error: missingScopeMessage("ledger:read", demoTenant), code: "missing_scope" });

    const reader = await connect(keys.reader);
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("request_sync");
    expect(names).toContain("income_report");
    expect(JSON.parse(bodyText(await tool(reader, "request_sync", { owner: randomAddress() })))).toEqual({ error: missingScopeMessage("wallets:sync", demoTenant), code: "missing_scope" });
  });

  test("another tenant sees nothing of the demo tenant's wallets: its answers are those of an unknown wallet", async () => {
    const other = await connect(keys.other);
    const wallets = (await tool(other, "list_wallets")).structuredContent as { tenant: string; wallets: { owner: string }[] };
    expect(wallets.tenant).toBe("other-tenant");
    expect(wallets.wallets.map((w) => w.owner)).not.toContain(owner);
    for (const name of ["list_actions", "get_portfolio", "list_income", "get_sync_status"]) {
      const theirs = await tool(other, name, { owner });
      const none = await tool(other, name, { owner: randomAddress() });
      expect({ name, code: JSON.parse(bodyText(theirs)).code }).toEqual({ name, code: "wallet_not_registered" });
      expect(texts(theirs)).toEqual(texts(none));
    }
    const report = (await tool(other, "income_report", { year: 2026 })).structuredContent as { owners: string[]; rows: unknown[] };
    expect(report.owners).not.toContain(owner);
    expect(report.rows).toEqual([]);
    expect(JSON.parse(bodyText(await tool(other, "income_report", { year: 2026, owner: [owner] }))).code).toBe("wallet_not_registered");
  });

  test("answers the question of the issue from tool calls alone: the holding that paid the most net income in 2026, and what was withheld", async () => {
    // docs/mcp.md#example-conversation tells this conversation with these figures.
    const client = await connect(keys.reader);
    const wallets = (await tool(client, "list_wallets")).structuredContent as { wallets: { owner: string }[] };
    expect(wallets.wallets).toHaveLength(2);
    const report = (await tool(client, "income_report", { year: 2026 })).structuredContent as {
      owners: string[];
      totals: { usd: string; withholdingTaxUsd: string; grossUsd: string };
      rows: { symbol: string | null; events: number; unvaluedEvents: number; exact: { usd: string | null; withholdingTaxUsd: string | null; grossUsd: string | null; retainedUsd: string | null } }[];
    };
    expect(report.owners.sort()).toEqual(wallets.wallets.map((w) => w.owner).sort());
    const bySymbol = new Map<string, { net: number; withheld: number; gross: number; retained: number; events: number; unvalued: number }>();
    for (const row of report.rows) {
      const s = bySymbol.get(row.symbol ?? "?") ?? { net: 0, withheld: 0, gross: 0, retained: 0, events: 0, unvalued: 0 };
      s.net += Number(row.exact.usd ?? 0);
      s.withheld += Number(row.exact.withholdingTaxUsd ?? 0);
      s.gross += Number(row.exact.grossUsd ?? 0);
      s.retained += Number(row.exact.retainedUsd ?? 0);
      s.events += row.events;
      s.unvalued += row.unvaluedEvents;
      bySymbol.set(row.symbol ?? "?", s);
    }
    const ranked = [...bySymbol.entries()]
      .sort((a, b) => b[1].net - a[1].net)
      .map(([symbol, s]) => ({
        symbol,
        net: s.net.toFixed(2),
        withheld: s.withheld.toFixed(2),
        gross: s.gross.toFixed(2),
        retained: s.retained.toFixed(2),
        events: s.events,
        unvalued: s.unvalued,
      }));
    expect(ranked[0]).toEqual({ symbol: "STRCx", net: "151.48", withheld: "21.24", gross: "172.72", retained: "0.00", events: 10, unvalued: 1 });
    expect(ranked.slice(1, 3).map((r) => [r.symbol, r.net, r.withheld])).toEqual([
      ["AZNx", "71.54", "17.97"],
      ["HONx", "44.70", "19.16"],
    ]);
    expect([report.totals.usd, report.totals.withholdingTaxUsd, report.totals.grossUsd].map((v) => Number(v).toFixed(2))).toEqual(["350.45", "93.83", "444.28"]);
  });
});

describe("POST /mcp: resources", () => {
  test("the taxonomy (with assets:read) and the documentation pages on action types, treatments and income", async () => {
    const client = await connect(keys.assets);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(
      ["ca-ledger://taxonomy", ...["action-types.md", "income-and-tax.md", "lots.md", "scaled-ui-amount.md"].map((f) => `ca-ledger://docs/${f}`)].sort(),
    );
    const taxonomy = await client.readResource({ uri: "ca-ledger://taxonomy" });
    expect(taxonomy.contents[0]).toMatchObject({ mimeType: "application/json", text: (await call(demo.url, "/v2/taxonomy", { key: keys.assets })).text });
    const page = await client.readResource({ uri: "ca-ledger://docs/action-types.md" });
    expect(page.contents[0]).toMatchObject({ mimeType: "text/markdown", text: readFileSync(join(import.meta.dir, "..", "..", "docs", "action-types.md"), "utf8") });
    const missing = await client.readResource({ uri: "ca-ledger://elsewhere/page" }).catch((e) => e);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing.code).toBe(-32002);
  });

  test("a key without assets:read neither lists nor reads the taxonomy; the refusal carries missing_scope", async () => {
    const client = await connect(keys.ledger);
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain("ca-ledger://taxonomy");
    const e = await client.readResource({ uri: "ca-ledger://taxonomy" }).catch((x) => x);
    expect(e).toBeInstanceOf(McpError);
    expect(e.data).toEqual({ error: missingScopeMessage("assets:read", demoTenant), code: "missing_scope" });
  });
});

describe("POST /mcp: checked like every route", () => {
  test("no key is 401 missing_api_key, an unknown key 401 invalid_api_key, in the API's {error, code} body", async () => {
    const none = await post(ping);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect((await none.json()).code).toBe("missing_api_key");
    const bad = await post(ping, { authorization: `Bearer cal_${"A".repeat(43)}` });
    expect(bad.status).toBe(401);
    expect((await bad.json()).code).toBe("invalid_api_key");
  });

  test("any valid key may speak the protocol, whatever its scopes; a revoked key stops at its next POST", async () => {
    const created = await createKey(demo.ledger.db, { name: "mcp-revoked", tenant: demoTenant, scopes: ["ops:read"] });
    const client = await connect(created.key);
    expect((await client.listTools()).tools).toEqual([]);
    await revokeKey(demo.ledger.db, created.id);
    const e = await client.listTools().catch((x) => x);
    expect(String(e)).toContain("invalid_api_key");
  });

  test("every POST carries the request id, the dataset label and the rate-limit headers, is counted against the key and in the metrics under /mcp", async () => {
    const key = (await createKey(demo.ledger.db, { name: "mcp-counted", tenant: demoTenant, scopes: ["ledger:read"] })).key;
    const metric = async () =>
      Number(/caledger_http_requests_total\{method="POST",route="\/mcp",status="200"\} (\d+)/.exec((await call(demo.url, "/v1/ops/metrics", { key: demo.key })).text)?.[1] ?? 0);
    const before = await metric();
    const first = await post(ping, { authorization: `Bearer ${key}` });
    const second = await post(ping, { authorization: `Bearer ${key}` });
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("x-ca-ledger-dataset")).toBe("synthetic");
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    }
    expect(Number(first.headers.get("ratelimit-remaining")) - Number(second.headers.get("ratelimit-remaining"))).toBe(1);
    expect((await metric()) - before).toBe(2);
  });

  test("stateless: GET and DELETE are 405 (allow: POST), no session id is handed out, and the answer is JSON", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(endpoint(), { method, headers: { authorization: `Bearer ${keys.full}`, accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).code).toBe("method_not_allowed");
    }
    const init = await post(
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
      { authorization: `Bearer ${keys.full}` },
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toContain("application/json");
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect((await init.json()).result.serverInfo.name).toBe("ca-ledger");
  });

  test("a body that is not a JSON-RPC message is 400 invalid_request; a missing accept type is the protocol's own 406", async () => {
    const notMcp = await post({ owner }, { authorization: `Bearer ${keys.full}` });
    expect(notMcp.status).toBe(400);
    expect((await notMcp.json()).code).toBe("invalid_request");
    const json = await fetch(endpoint(), {
      method: "POST",
      headers: { authorization: `Bearer ${keys.full}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(ping),
    });
    expect(json.status).toBe(406);
    expect((await json.json()).error.code).toBe(-32000);
  });

  test("an unknown tool is a protocol error, not a tool result", async () => {
    const client = await connect(keys.full);
    const e = await client.callTool({ name: "drop_tables", arguments: {} }).catch((x) => x);
    expect(e).toBeInstanceOf(McpError);
    expect(e.code).toBe(ErrorCode.InvalidParams);
  });
});
