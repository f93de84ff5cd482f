// The MCP tools and resources, derived from the route declarations (docs/mcp.md#tools): every
// route declared with `tool` is a tool whose input schema is the route's path, query and body
// schemas as one object (the TypeBox shapes of schemas/, not a copy), whose output schema is the
// route's success, and whose call runs the route: through its handler for the caller's principal
// in this process (localRunner), or as the route's own HTTP request to a running server
// (remoteRunner). Either way the result is the route's JSON, byte for byte, and a refusal the
// API's error code.
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { ErrorCode as RpcError, McpError } from "@modelcontextprotocol/sdk/types.js";
import { errorCodes, type ErrorCode } from "../../schemas/errors.ts";
import type { Scope } from "../domain/scopes.ts";
import type { KeyPrincipal } from "../ledger/keys.ts";
import type { Logger } from "../log.ts";
import { ApiFailure } from "../http/errors.ts";
import { openapiPath } from "../http/openapi.ts";
import { Serialized, WithStatus, type Route, type RouteContext } from "../http/route.ts";
import { docsResources } from "./docs.ts";
import { callRoute, type RemoteTarget } from "./remote.ts";
import { createMcpServer, type McpPrincipal, type McpResource, type McpService, type McpTool, type ToolOutcome } from "./server.ts";

/** Runs a route for a principal with a tool's arguments (already checked against its input schema). */
export type RouteRunner<P extends McpPrincipal> = (route: Route, principal: P, args: Record<string, unknown>) => Promise<ToolOutcome>;

/** A declared route that is a tool, with the scope a key needs to call it. */
type ToolRoute = Route & { tool: NonNullable<Route["tool"]>; scope: Scope };

export function toolRoutes(routes: readonly Route[]): ToolRoute[] {
  return routes.filter((r): r is ToolRoute => {
    if (!r.tool) return false;
    if (r.scope === null || r.scope === "key") throw new Error(`${r.method} ${r.path} is a tool but needs no scope: a tool runs as a key, with the route's scope.`);
    return true;
  });
}

export function routeTools<P extends McpPrincipal>(routes: readonly Route[], run: RouteRunner<P>): McpTool<P>[] {
  return toolRoutes(routes).map((r) => ({
    name: r.tool.name,
    title: r.summary,
    description: `${r.summary}.${r.description ? ` ${r.description}` : ""} (The route ${r.method} ${openapiPath(r.path)}; scope ${r.scope}.)`,
    inputSchema: inputSchema(r),
    outputSchema: r.response[200] ?? r.response[202],
    scope: r.scope,
    readOnly: r.method === "GET",
    ...(r.tool.openWorld ? { annotations: { openWorldHint: true } } : {}),
    call: (principal, args) => run(r, principal, args),
    summarize: (json) => (r.tool.summarize ?? ((j: unknown) => genericSummary(r, j)))(json),
  }));
}

/** The routes declared with a resource URI (routes without parameters), readable as that resource. */
export function routeResources<P extends McpPrincipal>(routes: readonly Route[], run: RouteRunner<P>): McpResource<P>[] {
  return toolRoutes(routes)
    .filter((r) => r.tool.resource)
    .map((r) => ({
      uri: r.tool.resource!,
      name: r.tool.name.replace(/^get_/, ""),
      title: r.summary,
      description: `${r.summary}: the answer of ${r.method} ${openapiPath(r.path)} (the tool ${r.tool.name}).`,
      mimeType: "application/json",
      scope: r.scope,
      async read(principal) {
        const outcome = await run(r, principal, {});
        if ("error" in outcome) throw new McpError(RpcError.InvalidRequest, outcome.error.message, { error: outcome.error.message, code: outcome.error.code });
        return outcome.text ?? JSON.stringify(outcome.json);
      },
    }));
}

/** The route's path parameters, query and body as one object: what a tool's arguments are. */
export function inputSchema(route: Route): TObject {
  const properties: Record<string, TSchema> = {};
  for (const part of [route.params, route.query, route.body]) {
    for (const [name, schema] of Object.entries(part?.properties ?? {})) {
      if (name in properties) throw new Error(`${route.method} ${route.path} takes ${name} twice (path, query or body): it cannot be one tool argument.`);
      properties[name] = schema;
    }
  }
  return Type.Object(properties);
}

/** Which of a tool's arguments go in the path, the query and the body of its route. */
function splitArgs(
  route: Route,
  args: Record<string, unknown>,
): { params: Record<string, unknown> | undefined; query: Record<string, unknown> | undefined; body: Record<string, unknown> | undefined } {
  const pick = (part: TObject | undefined) => part && Object.fromEntries(Object.entries(args).filter(([name]) => name in part.properties));
  return { params: pick(route.params), query: pick(route.query), body: pick(route.body) };
}

/**
 * Runs a route's handler in this process for the principal, as the server does for a request:
 * its refusals (ApiFailure) and a database that cannot be read come back with the API's codes.
 * `current` re-reads the principal on each call, so a key revoked meanwhile stops at its next call.
 */
export function localRunner(app: RouteContext, current?: (principal: KeyPrincipal) => Promise<KeyPrincipal | null>): RouteRunner<KeyPrincipal> {
  return async (route, principal, args) => {
    try {
      const caller = current ? await current(principal) : principal;
      if (!caller) return refusal("invalid_api_key", "The API key is unknown, malformed or revoked.");
      const reply = await route.handler({ principal: caller, ...splitArgs(route, args) }, app);
      if (reply instanceof Serialized) return { json: JSON.parse(reply.text), text: reply.text };
      const body = reply instanceof WithStatus ? reply.body : reply;
      return { json: body, text: JSON.stringify(body) };
    } catch (e) {
      if (e instanceof ApiFailure) return refusal(e.code, e.message);
      if (app.health.noteError(e)) return refusal("unavailable", app.health.unavailableMessage(e));
      throw e;
    }
  };
}

/** A caller of a running server: its key goes with every request; the server knows its scopes and tenant. */
export interface RemotePrincipal extends McpPrincipal {
  apiKey: string;
}

/** Runs a route as its own HTTP request to a running server (`ca-ledger mcp --url`). */
export function remoteRunner(target: Omit<RemoteTarget, "apiKey">): RouteRunner<RemotePrincipal> {
  return (route, principal, args) => callRoute({ ...target, apiKey: principal.apiKey }, route, args);
}

/** The protocol server with every declared tool, the documentation pages and the routes' resources. */
export function routeMcpService<P extends McpPrincipal>(routes: readonly Route[], run: RouteRunner<P>, opts: { version: string; logger?: Logger }): McpService<P> {
  return createMcpServer({
    tools: routeTools(routes, run),
    resources: [...routeResources(routes, run), ...docsResources<P>()],
    version: opts.version,
    onError: (error, tool) => opts.logger?.error("mcp tool failed", { tool, error: String((error as Error)?.stack ?? error) }),
  });
}

function refusal(code: ErrorCode, message: string): ToolOutcome {
  return { error: { status: errorCodes[code], code, message } };
}

/**
 * The sentence of a tool without its own: the route's summary and what the answer holds (how
 * many of each list, of how many, and where the next page starts).
 */
export function genericSummary(route: Pick<Route, "summary">, json: unknown): string {
  const body = json as Record<string, unknown>;
  const lists = Object.entries(body).filter(([, v]) => Array.isArray(v)) as [string, unknown[]][];
  const facts = lists.map(([name, items]) => (typeof body.total === "number" && lists.length === 1 ? `${items.length} of ${body.total} ${name}` : `${items.length} ${name}`));
  if (typeof body.nextOffset === "number") facts.push(`more from offset ${body.nextOffset}`);
  return `${route.summary}${facts.length ? `: ${facts.join("; ")}` : ""}.`;
}
