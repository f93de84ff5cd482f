// The MCP server over Streamable HTTP (src/mcp/http.ts), driven by the SDK's own client: a real
// Bun.serve on loopback with the handler behind a key lookup on the real ledger, and tools that
// are routes of the real server on the demo (test/support/mcp-tools.ts). What a tool answers must
// be the route's answer byte for byte; a refusal carries the API's code; a key sees only what its
// scopes and its tenant allow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { presentedKey } from "../../src/http/auth.ts";
import { errorResponse } from "../../src/http/errors.ts";
import { createKey, keyLookup } from "../../src/ledger/keys.ts";
import { missingScopeMessage } from "../../src/domain/scopes.ts";
import { demoTenant } from "../../src/demo/identity.ts";
import { docsResources } from "../../src/mcp/docs.ts";
import { mcpHttpHandler } from "../../src/mcp/http.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { call, randomAddress } from "../harness/index.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";
import { serveDemo, type DemoServer } from "../support/demo-server.ts";
import { sampleRoutes, sampleTools, type KeyedPrincipal } from "../support/mcp-tools.ts";

let demo: DemoServer;
let mcp: ReturnType<typeof Bun.serve>;
let keys: { full: string; reader: string; assets: string; other: string };
let owner: string;
const clients: Client[] = [];

beforeAll(async () => {
  demo = await serveDemo(await demoDataDir());
  const db = demo.ledger.db;
  const make = async (scopes: ("assets:read" | "ledger:read" | "wallets:sync" | "ops:read")[], tenant = demoTenant) =>
    (await createKey(db, { name: `mcp-${scopes.join("-")}-${tenant}`, tenant, scopes })).key;
  keys = {
    full: demo.key,
    reader: await make(["assets:read", "ledger:read"]),
    assets: await make(["assets:read"]),
    other: await make(["assets:read", "ledger:read", "wallets:sync", "ops:read"], "other-tenant"),
  };
  owner = (await call(demo.url, "/v1/wallets", { key: keys.full })).body.wallets[0].owner;

  // Stands in for the API's auth in front of POST /mcp: the principal the real key lookup resolves.
  const lookup = keyLookup(db);
  const service = createMcpServer<KeyedPrincipal>({ tools: sampleTools(demo.url), resources: docsResources(), version: "test" });
  const handle = mcpHttpHandler(service, { maxBodyBytes: 16 * 1024 });
  mcp = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const key = presentedKey(request);
      const principal = key ? await lookup(key) : null;
      if (!key || !principal) return errorResponse("invalid_api_key", "Unknown key.");
      return handle(request, { ...principal, apiKey: key });
    },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  mcp?.stop(true);
  await demo?.stop();
  removeTempDirs();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "ca-ledger-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${mcp.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  await client.listTools(); // the client checks structured results only against schemas it has listed
  return client;
}

const texts = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : ""));
/** The last content block: the route's JSON (or error body) as text. */
const bodyText = (r: CallToolResult) => texts(r).at(-1)!;

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("MCP over Streamable HTTP", () => {
  test("lists every tool with the route's TypeBox schemas as JSON Schema, and honest annotations", async () => {
    const client = await connect(keys.full);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.values(sampleRoutes).map((r) => r.tool).sort());
    for (const r of Object.values(sampleRoutes)) {
      const t = tools.find((x) => x.name === r.tool)!;
      expect(t.inputSchema).toEqual({ ...JSON.parse(JSON.stringify(r.input)), additionalProperties: false });
      expect(t.outputSchema).toEqual(JSON.parse(JSON.stringify(r.output)));
      expect(t.annotations?.readOnlyHint).toBe(r.tool !== "request_sync");
      expect(t.annotations?.destructiveHint).toBe(false);
    }
    expect(tools.find((t) => t.name === "request_sync")!.annotations?.openWorldHint).toBe(true);
  });

  test("each read answers the route's JSON byte for byte, as the structured result and as text", async () => {
    const client = await connect(keys.full);
    const actions = await call(demo.url, `/v2/actions?owner=${owner}&limit=3`, { key: keys.full });
    const cases: [string, Record<string, unknown>, string][] = [
      ["list_wallets", {}, "/v1/wallets"],
      ["get_taxonomy", {}, "/v2/taxonomy"],
      ["list_actions", { owner, limit: 3 }, `/v2/actions?owner=${owner}&limit=3`],
      ["list_actions", { owner, year: 2026, offset: 2, limit: 2 }, `/v2/actions?owner=${owner}&year=2026&offset=2&limit=2`],
      ["get_action", { id: actions.body.actions[0].id, owner }, `/v2/actions/${actions.body.actions[0].id}?owner=${owner}`],
      ["income_report", { year: 2026 }, "/v2/reports/income?year=2026"],
      ["income_report", { year: 2026, owner: [owner] }, `/v2/reports/income?year=2026&owner=${owner}`],
    ];
    for (const [name, args, path] of cases) {
      const http = await call(demo.url, path, { key: keys.full });
      expect({ name, status: http.status }).toEqual({ name, status: 200 });
      const r = await tool(client, name, args); // the SDK's client has checked it against the output schema
      expect(r.isError).toBeFalsy();
      expect(bodyText(r)).toBe(http.text);
      expect(r.structuredContent).toEqual(http.body);
      expect(texts(r)[0]!.length).toBeGreaterThan(0);
    }
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
    const ranked = [...bySymbol.entries()].sort((a, b) => b[1].net - a[1].net).map(([symbol, s]) => ({
      symbol, net: s.net.toFixed(2), withheld: s.withheld.toFixed(2), gross: s.gross.toFixed(2), retained: s.retained.toFixed(2), events: s.events, unvalued: s.unvalued,
    }));
    expect(ranked[0]).toEqual({ symbol: "STRCx", net: "151.48", withheld: "21.24", gross: "172.72", retained: "0.00", events: 10, unvalued: 1 });
    expect(ranked.slice(1, 3).map((r) => [r.symbol, r.net, r.withheld])).toEqual([["AZNx", "71.54", "17.97"], ["HONx", "43.73", "18.74"]]);
    expect([report.totals.usd, report.totals.withholdingTaxUsd, report.totals.grossUsd].map((v) => Number(v).toFixed(2))).toEqual(["345.44", "91.68", "437.12"]);
  });

  test("a refusal from the route is a tool error carrying the API's code and error body", async () => {
    const client = await connect(keys.full);
    const unknown = randomAddress();
    const http = await call(demo.url, `/v2/actions?owner=${unknown}`, { key: keys.full });
    const r = await tool(client, "list_actions", { owner: unknown });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse(bodyText(r))).toEqual({ error: http.body.error, code: "wallet_not_registered" });
    expect(texts(r)[0]).toContain("404 wallet_not_registered");

    const badOwner = await tool(client, "request_sync", { owner: "not-a-wallet" });
    expect(JSON.parse(bodyText(badOwner)).code).toBe("invalid_owner");
  });

  test("arguments outside the route's schema are refused as invalid_request, naming the parameter, even where a query string would have coerced them", async () => {
    const client = await connect(keys.full);
    for (const [args, named] of [
      [{ owner, limit: 500 }, "limit"],
      [{ owner, limit: "3" }, "limit"],
      [{ owner, year: 2026, color: "red" }, "color"],
      [{}, "owner"],
    ] as const) {
      const r = await tool(client, "list_actions", args);
      expect(r.isError).toBe(true);
      const body = JSON.parse(bodyText(r));
      expect(body.code).toBe("invalid_request");
      expect(body.error).toContain(named);
    }
    // A check the schema cannot make is the route's: its own sentence comes back.
    const both = await tool(client, "list_actions", { owner, year: 2026, from: "2026-01-01" });
    const http = await call(demo.url, `/v2/actions?owner=${owner}&year=2026&from=2026-01-01`, { key: keys.full });
    expect(bodyText(both)).toBe(http.text);
  });

  test("a key lists only the tools its scopes allow, and calling another is refused as missing_scope", async () => {
    const assets = await connect(keys.assets);
    expect((await assets.listTools()).tools.map((t) => t.name)).toEqual(["get_taxonomy"]);
    const r = await tool(assets, "list_actions", { owner });
    expect(r.isError).toBe(true);
    expect(JSON.parse(bodyText(r))).toEqual({ error: missingScopeMessage("ledger:read", demoTenant), code: "missing_scope" });

    const reader = await connect(keys.reader);
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("request_sync");
    expect(names).toContain("list_actions");
    const sync = await tool(reader, "request_sync", { owner });
    expect(JSON.parse(bodyText(sync))).toEqual({ error: missingScopeMessage("wallets:sync", demoTenant), code: "missing_scope" });
  });

  test("another tenant sees nothing of the demo tenant's wallets: its answers are those of an unknown wallet", async () => {
    const other = await connect(keys.other);
    const wallets = (await tool(other, "list_wallets")).structuredContent as { tenant: string; wallets: unknown[] };
    expect(wallets).toMatchObject({ tenant: "other-tenant", wallets: [] });
    const theirs = await tool(other, "list_actions", { owner });
    const none = await tool(other, "list_actions", { owner: randomAddress() });
    expect(JSON.parse(bodyText(theirs)).code).toBe("wallet_not_registered");
    expect(texts(theirs)).toEqual(texts(none));
    const report = (await tool(other, "income_report", { year: 2026 })).structuredContent as { owners: string[]; rows: unknown[] };
    expect(report).toMatchObject({ owners: [], rows: [] });
  });

  test("the documentation pages are resources, read as the files are", async () => {
    const client = await connect(keys.assets);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(
      ["action-types.md", "income-and-tax.md", "lots.md", "scaled-ui-amount.md"].map((f) => `ca-ledger://docs/${f}`),
    );
    const page = await client.readResource({ uri: "ca-ledger://docs/action-types.md" });
    expect(page.contents[0]).toMatchObject({ mimeType: "text/markdown", text: readFileSync(join(import.meta.dir, "..", "..", "docs", "action-types.md"), "utf8") });
    const missing = await client.readResource({ uri: "ca-ledger://elsewhere/page" }).catch((e) => e);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing.code).toBe(-32002);
  });

  test("an unknown tool is a protocol error, not a tool result", async () => {
    const client = await connect(keys.full);
    const e = await client.callTool({ name: "drop_tables", arguments: {} }).catch((x) => x);
    expect(e).toBeInstanceOf(McpError);
    expect(e.code).toBe(ErrorCode.InvalidParams);
  });

  test("stateless: GET and DELETE on the endpoint are 405, and no session id is handed out", async () => {
    const url = `http://127.0.0.1:${mcp.port}/mcp`;
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${keys.full}`, accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).code).toBe("method_not_allowed");
    }
    const init = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.full}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toContain("application/json");
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect((await init.json()).result.serverInfo.name).toBe("ca-ledger");
  });

  test("a body the framework has already parsed is used as is", async () => {
    const service = createMcpServer<KeyedPrincipal>({ tools: sampleTools(demo.url), resources: [], version: "test" });
    const handle = mcpHttpHandler(service, { maxBodyBytes: 16 * 1024 });
    const principal = { ...(await keyLookup(demo.ledger.db)(keys.full))!, apiKey: keys.full };
    const message = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_taxonomy", arguments: {} } };
    // The body stream is already consumed, as after Elysia's parse hook.
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify(message),
    });
    await request.text();
    const res = await handle(request, principal, message);
    const http = await call(demo.url, "/v2/taxonomy", { key: keys.full });
    expect((await res.json()).result.structuredContent).toEqual(http.body);
  });
});
