// What the MCP tests of both transports share: the SDK's client, and a call of every tool on the
// demo beside the route's own HTTP request that must answer the same bytes
// (test/mcp/http.test.ts, test/mcp/stdio.test.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { call } from "../harness/index.ts";

/** One tool call and the HTTP request of its route. */
export interface ToolCase {
  tool: string;
  args: Record<string, unknown>;
  path: string;
}

/** Connects the SDK's client and lists the tools (the client checks structured results only against schemas it has listed). */
export async function connectClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: "ca-ledger-test", version: "0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export const texts = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : ""));
/** The last content block: the route's JSON (or error body) as text. */
export const bodyText = (r: CallToolResult) => texts(r).at(-1)!;

/** The portfolio's asOf is the time of its request: the only bytes two requests may not share. */
export const sameInstant = (text: string) => text.replace(/"asOf":"[^"]+"/, '"asOf":"(now)"');

/** Every read tool on the demo, with paging, date and kind filters, beside its route's request. */
export async function readCases(baseUrl: string, key: string): Promise<ToolCase[]> {
  const owner = (await call(baseUrl, "/v1/wallets", { key })).body.wallets[0].owner as string;
  const actionId = (await call(baseUrl, `/v2/actions?owner=${owner}&limit=1`, { key })).body.actions[0].id as string;
  const mint = (await call(baseUrl, `/v1/portfolio?owner=${owner}`, { key })).body.positions[0].mint as string;
  return [
    { tool: "list_wallets", args: {}, path: "/v1/wallets" },
    { tool: "get_sync_status", args: { owner }, path: `/v1/wallets/${owner}/status` },
    { tool: "get_portfolio", args: { owner }, path: `/v1/portfolio?owner=${owner}` },
    { tool: "list_income", args: { owner }, path: `/v1/income?owner=${owner}` },
    { tool: "list_income", args: { owner, limit: 2, offset: 1, from: "2026-01-01", to: "2026-06-30" }, path: `/v1/income?owner=${owner}&limit=2&offset=1&from=2026-01-01&to=2026-06-30` },
    { tool: "list_income", args: { owner, kind: ["dividend"], year: 2026 }, path: `/v1/income?owner=${owner}&kind=dividend&year=2026` },
    { tool: "income_report", args: { year: 2026 }, path: "/v2/reports/income?year=2026" },
    { tool: "income_report", args: { year: 2026, owner: [owner] }, path: `/v2/reports/income?year=2026&owner=${owner}` },
    { tool: "list_actions", args: { owner, limit: 3 }, path: `/v2/actions?owner=${owner}&limit=3` },
    { tool: "list_actions", args: { owner, year: 2026, offset: 2, limit: 2 }, path: `/v2/actions?owner=${owner}&year=2026&offset=2&limit=2` },
    { tool: "get_action", args: { id: actionId, owner }, path: `/v2/actions/${actionId}?owner=${owner}` },
    { tool: "get_lineage", args: { mint }, path: `/v2/instruments/${mint}/lineage` },
    { tool: "get_taxonomy", args: {}, path: "/v2/taxonomy" },
    { tool: "list_lots", args: { owner, method: "hifo" }, path: `/v2/lots?owner=${owner}&method=hifo` },
    { tool: "gains_report", args: { year: 2026, treatment: "deferred" }, path: "/v2/reports/gains?year=2026&treatment=deferred" },
    { tool: "holdings_report", args: { asOf: "2026-06-30", owner: [owner] }, path: `/v2/reports/holdings?asOf=2026-06-30&owner=${owner}` },
    { tool: "get_calendar", args: {}, path: "/v2/calendar" },
    { tool: "get_calendar", args: { owner }, path: `/v2/calendar?owner=${owner}` },
  ];
}

/** The tools of the declared routes today (docs/mcp.md#tools). */
export const builtTools = [
  "list_wallets",
  "get_sync_status",
  "request_sync",
  "get_portfolio",
  "list_income",
  "income_report",
  "list_actions",
  "get_action",
  "get_lineage",
  "get_taxonomy",
  "list_lots",
  "gains_report",
  "holdings_report",
  "get_calendar",
];
