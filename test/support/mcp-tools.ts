// A few MCP tools made the way `ca-ledger mcp --url` makes them: each a route of the real server
// (method, path, its TypeBox schemas from schemas/), called over HTTP with the caller's key
// (src/mcp/remote.ts). The tests of src/mcp/ run them against the real server on the demo.
import { Type, type TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import { callRoute, type RouteRef } from "../../src/mcp/remote.ts";
import type { McpPrincipal, McpTool } from "../../src/mcp/server.ts";

/** A caller whose key the tools pass on to the server. */
export interface KeyedPrincipal extends McpPrincipal { apiKey: string }

export interface SampleRoute extends RouteRef { tool: string; input: TSchema; output: TSchema; scope: Scope }

function tool(baseUrl: string, route: SampleRoute, summarize: (json: any) => string, readOnly = true): McpTool<KeyedPrincipal> {
  return {
    name: route.tool,
    title: route.tool.replace(/_/g, " "),
    description: `${route.method} ${route.path}`,
    inputSchema: route.input,
    outputSchema: route.output,
    scope: route.scope,
    readOnly,
    call: (principal, args) => callRoute({ baseUrl, apiKey: principal.apiKey }, route, args),
    summarize,
  };
}

export const sampleRoutes = {
  wallets: { tool: "list_wallets", method: "GET", path: "/v1/wallets", input: Type.Object({}), output: S.WalletsResponse, scope: "ledger:read" },
  taxonomy: { tool: "get_taxonomy", method: "GET", path: "/v2/taxonomy", input: Type.Object({}), output: S.TaxonomyResponse, scope: "assets:read" },
  actions: { tool: "list_actions", method: "GET", path: "/v2/actions", input: S.ActionsQuery, output: S.ActionsList, scope: "ledger:read" },
  action: { tool: "get_action", method: "GET", path: "/v2/actions/:id", input: Type.Composite([S.ActionParams, S.ActionDetailQuery]), output: S.ActionDetail, scope: "ledger:read" },
  incomeReport: { tool: "income_report", method: "GET", path: "/v2/reports/income", input: S.IncomeReportQuery, output: S.IncomeReport, scope: "ledger:read" },
  requestSync: { tool: "request_sync", method: "POST", path: "/v1/wallets/sync", input: S.SyncRequestBody, output: S.SyncRequestResponse, scope: "wallets:sync" },
} satisfies Record<string, SampleRoute>;

export function sampleTools(baseUrl: string): McpTool<KeyedPrincipal>[] {
  const r = sampleRoutes;
  return [
    tool(baseUrl, r.wallets, (j) => `Tenant ${j.tenant} follows ${j.wallets.length} wallet(s).`),
    tool(baseUrl, r.taxonomy, (j) => `${j.types.length} action types.`),
    tool(baseUrl, r.actions, (j) => `${j.actions.length} of ${j.total} actions of ${j.owner}, newest first${j.nextOffset === null ? "" : `; more from offset ${j.nextOffset}`}.`),
    tool(baseUrl, r.action, (j) => `${j.type} of ${j.symbol ?? j.mint}, ${j.lifecycle.state}.`),
    tool(baseUrl, r.incomeReport, (j) => `${j.year}: net income ${j.totals.usd ?? "unknown"} USD over ${j.rows.length} month × symbol row(s).`),
    { ...tool(baseUrl, r.requestSync, (j) => `${j.owner}: ${j.registration}, sync ${j.job}.`, false), annotations: { openWorldHint: true } },
  ];
}
