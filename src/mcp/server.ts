// The Model Context Protocol server (docs/mcp.md): tools and resources described once, served to
// one caller at a time over either transport (http.ts, stdio.ts). A tool is a route seen by an
// agent: its input schema is the route's TypeBox query/params schema, its structured result is
// the route's JSON, its refusals carry the API's error codes (docs/mcp.md#tool-results).
//
// Built on the SDK's low-level `Server`: its high-level `McpServer` takes Zod schemas, and ours
// are TypeBox, published as the JSON Schema they already are (not a second copy).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode as RpcError,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { errorCodes, type ErrorCode } from "../../schemas/errors.ts";
import { missingScopeMessage, type Scope } from "../domain/scopes.ts";

/** Who is calling: what the API's auth resolved the key to (a `KeyPrincipal` fits). */
export interface McpPrincipal {
  tenant: string;
  scopes: readonly Scope[];
}

/** A refusal as the API words it: the status, the code and the sentence of its error body. */
export interface ToolError {
  status: number;
  code: ErrorCode;
  message: string;
}

/** What a tool's call produced: the route's JSON (and its text as the route sends it), or the route's refusal. */
export type ToolOutcome = { json: unknown; text?: string } | { error: ToolError };

export interface McpTool<P extends McpPrincipal = McpPrincipal> {
  /** snake_case, unique (docs/mcp.md#tools). */
  name: string;
  title: string;
  description: string;
  /** The route's query and path parameters as one TypeBox object (plain TypeBox, not Elysia's coercing `t`). */
  inputSchema: TSchema;
  /** The route's 200 response schema; the client checks the structured result against it. */
  outputSchema?: TSchema;
  scope: Scope;
  readOnly: boolean;
  /** Hints beyond what `readOnly` implies (e.g. `openWorldHint` for a tool that reaches the chain). */
  annotations?: Partial<ToolAnnotations>;
  /** Runs the route as `principal`; `args` already passed `inputSchema` and names no other parameter. */
  call(principal: P, args: Record<string, unknown>): Promise<ToolOutcome>;
  /** One or two sentences a person can read, from the route's JSON. */
  summarize(json: unknown): string;
}

export interface McpResource<P extends McpPrincipal = McpPrincipal> {
  /** `ca-ledger://…`; docs pages sit under `ca-ledger://docs/` so their relative links resolve. */
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** A scope the key needs to list and read it; none for the documentation. */
  scope?: Scope;
  read(principal: P): Promise<string> | string;
}

export interface McpServerOptions<P extends McpPrincipal> {
  tools: readonly McpTool<P>[];
  resources: readonly McpResource<P>[];
  version: string;
  /** Told to the agent at initialization: what the ledger is and how to read its numbers. */
  instructions?: string;
  /** A tool that threw: the caller gets `internal_error` and no detail; this gets the error (to log it). */
  onError?: (error: unknown, tool: string) => void;
}

export interface McpService<P extends McpPrincipal> {
  /** A protocol server for one caller: it lists and runs what that key's scopes allow, as that key. */
  serverFor(principal: P): Server;
  readonly tools: readonly McpTool<P>[];
}

export const defaultInstructions =
  "ca-ledger is a read-only ledger of corporate actions (dividends, splits, mergers…) on tokenized stocks held in Solana wallets. " +
  "Start with list_wallets to learn the wallets this key follows. Amounts are exact decimal strings; a USD value of null means unknown, never zero. " +
  "Income entries carry grossUsd, withholdingTaxUsd, retainedUsd and the net usd. Dates filter by effectiveAt, in UTC. " +
  "The resources under ca-ledger://docs/ explain the action types, treatments and figures.";

const internalError = "Internal error; the server log has the details.";

/** JSON-RPC error code the MCP specification gives an unknown resource. */
const resourceNotFound = -32002;

interface Prepared<P extends McpPrincipal> {
  tool: McpTool<P>;
  listed: Tool;
}

export function createMcpServer<P extends McpPrincipal>(options: McpServerOptions<P>): McpService<P> {
  const prepared = new Map<string, Prepared<P>>();
  for (const tool of options.tools) {
    if (prepared.has(tool.name)) throw new Error(`Two MCP tools are named ${tool.name}.`);
    prepared.set(tool.name, { tool, listed: listing(tool) });
  }
  const resources = new Map(options.resources.map((r) => [r.uri, r]));
  const allowed = (principal: P, scope: Scope | undefined) => scope === undefined || principal.scopes.includes(scope);

  function serverFor(principal: P): Server {
    const server = new Server(
      { name: "ca-ledger", title: "ca-ledger", version: options.version },
      { capabilities: { tools: {}, resources: {} }, instructions: options.instructions ?? defaultInstructions },
    );
    // Only the tools this key may call are listed (docs/mcp.md#scopes); calling another by name is refused like the API.
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...prepared.values()].filter((p) => allowed(principal, p.tool.scope)).map((p) => p.listed),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const p = prepared.get(request.params.name);
      if (!p) throw new McpError(RpcError.InvalidParams, `Unknown tool ${shown(request.params.name)}.`);
      const args = request.params.arguments ?? {};
      if (!allowed(principal, p.tool.scope)) return refused("missing_scope", missingScopeMessage(p.tool.scope, principal.tenant));
      const invalid = argumentRefusal(p.tool.inputSchema, args);
      if (invalid) return refused("invalid_request", invalid);
      let outcome: ToolOutcome;
      try {
        outcome = await p.tool.call(principal, args);
      } catch (error) {
        options.onError?.(error, p.tool.name);
        return refused("internal_error", internalError);
      }
      if ("error" in outcome) return refusal(outcome.error);
      return answer(p.tool, outcome, options.onError);
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [...resources.values()].filter((r) => allowed(principal, r.scope)).map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const r = resources.get(request.params.uri);
      if (!r) throw new McpError(resourceNotFound, `No resource ${shown(request.params.uri)}.`, { uri: request.params.uri });
      if (!allowed(principal, r.scope)) {
        const message = missingScopeMessage(r.scope!, principal.tenant);
        throw new McpError(RpcError.InvalidRequest, message, { error: message, code: "missing_scope" });
      }
      return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: await r.read(principal) }] };
    });
    return server;
  }

  return { serverFor, tools: options.tools };
}

/** What `tools/list` shows of a tool: its schemas as plain JSON Schema, and its hints. */
function listing(tool: McpTool<McpPrincipal>): Tool {
  const inputSchema = { ...jsonSchema(tool.inputSchema), additionalProperties: false } as unknown as Tool["inputSchema"];
  if (inputSchema.type !== "object") throw new Error(`The input schema of MCP tool ${tool.name} is not an object.`);
  const outputSchema = tool.outputSchema ? (jsonSchema(tool.outputSchema) as Tool["outputSchema"]) : undefined;
  if (outputSchema && outputSchema.type !== "object") throw new Error(`The output schema of MCP tool ${tool.name} is not an object.`);
  const hints: ToolAnnotations = tool.readOnly
    ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    : { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    annotations: { title: tool.title, ...hints, ...tool.annotations },
  };
}

/** A TypeBox schema as the JSON Schema it is: TypeBox's symbol keys drop out. */
function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/**
 * The sentence refusing a tool's arguments, or null when they fit: like the API, an unknown
 * parameter is refused by name, and a bad one is named without echoing its value.
 */
export function argumentRefusal(schema: TSchema, args: Record<string, unknown>): string | null {
  const names = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
  for (const name of Object.keys(args)) {
    if (!names.includes(name)) return `Unknown parameter ${shown(name)}: this tool takes ${names.length ? names.join(", ") : "no parameters"}.`;
  }
  const first = Value.Errors(schema, args).First();
  if (!first) return null;
  const path = first.path.replace(/^\//, "").replace(/\//g, ".");
  return `Invalid ${path ? `parameter ${path}` : "arguments"}: ${first.message.replace(/\.$/, "")}.`;
}

/**
 * A tool's answer (docs/mcp.md#tool-results): the route's JSON as the structured result, and as
 * content a sentence for people and the same JSON as text, which the specification asks for so
 * that clients without structured results still get the data.
 */
function answer(tool: McpTool<McpPrincipal>, { json, text }: { json: unknown; text?: string }, onError: McpServerOptions<McpPrincipal>["onError"]): CallToolResult {
  try {
    if (json === null || typeof json !== "object" || Array.isArray(json)) throw new Error(`MCP tool ${tool.name} answered ${Array.isArray(json) ? "an array" : typeof json}, not an object.`);
    return {
      content: [
        { type: "text", text: tool.summarize(json) },
        { type: "text", text: text ?? JSON.stringify(json) },
      ],
      structuredContent: json as Record<string, unknown>,
    };
  } catch (error) {
    onError?.(error, tool.name);
    return refused("internal_error", internalError);
  }
}

function refused(code: ErrorCode, message: string): CallToolResult {
  return refusal({ status: errorCodes[code], code, message });
}

/**
 * A refusal as a tool error (not a protocol error, so the agent reads it and can correct itself):
 * a sentence, then the API's error body `{"error","code"}` exactly. No structured result, since
 * it would not match the tool's output schema.
 */
function refusal(e: ToolError): CallToolResult {
  return {
    isError: true,
    content: [
      { type: "text", text: `Refused (${e.status} ${e.code}): ${e.message}` },
      { type: "text", text: JSON.stringify({ error: e.message, code: e.code }) },
    ],
  };
}

/** A name as a message shows it: bounded, printable. */
function shown(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
