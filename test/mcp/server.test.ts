// The protocol server's own rules (src/mcp/server.ts), through the SDK's client on the SDK's
// in-memory transport pair: a tool that fails unexpectedly answers internal_error with no detail
// (the detail goes to onError, for the log), and a tool list is checked when the server is made.
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type McpPrincipal, type McpResource, type McpTool } from "../../src/mcp/server.ts";

const principal: McpPrincipal = { tenant: "acme", scopes: ["assets:read"] };

function sample(name: string, call: McpTool["call"], summarize: McpTool["summarize"] = () => "ok"): McpTool {
  return { name, title: name, description: name, inputSchema: Type.Object({}), scope: "assets:read", readOnly: true, call, summarize };
}

async function connected(tools: McpTool[], onError?: (e: unknown, tool: string) => void, resources: McpResource[] = []): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ tools, resources, version: "test", onError }).serverFor(principal).connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return client;
}

describe("MCP server", () => {
  test("a tool that throws, answers no object, or cannot summarize is internal_error, its detail only to onError", async () => {
    const seen: [string, string][] = [];
    const client = await connected(
      [
        sample("throws", async () => {
          throw new Error("SQLITE_BUSY: secret detail");
        }),
        sample("array", async () => ({ json: [1, 2] })),
        sample(
          "summary",
          async () => ({ json: { a: 1 } }),
          () => {
            throw new Error("no summary");
          },
        ),
      ],
      (e, tool) => seen.push([tool, (e as Error).message]),
    );
    for (const name of ["throws", "array", "summary"]) {
      const r = (await client.callTool({ name, arguments: {} })) as CallToolResult;
      expect(r.isError).toBe(true);
      const body = JSON.parse((r.content.at(-1) as { text: string }).text);
      expect(body).toEqual({ error: "Internal error; the server log has the details.", code: "internal_error" });
    }
    expect(seen.map(([t]) => t)).toEqual(["throws", "array", "summary"]);
    expect(seen[0]![1]).toContain("secret detail");
    await client.close();
  });

  test("annotations: read-only by default for a read, overridable per tool", async () => {
    const client = await connected([sample("read", async () => ({ json: {} })), { ...sample("write", async () => ({ json: {} })), readOnly: false, annotations: { openWorldHint: true } }]);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "read")!.annotations).toEqual({ title: "read", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tools.find((t) => t.name === "write")!.annotations).toEqual({ title: "write", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    await client.close();
  });

  test("a tool list with two tools of one name, or a schema that is not an object, is refused when the server is made", () => {
    const ok = sample("a", async () => ({ json: {} }));
    expect(() => createMcpServer({ tools: [ok, ok], resources: [], version: "t" })).toThrow("Two MCP tools are named a.");
    expect(() => createMcpServer({ tools: [{ ...ok, inputSchema: Type.String() }], resources: [], version: "t" })).toThrow("not an object");
    expect(() => createMcpServer({ tools: [{ ...ok, outputSchema: Type.Array(Type.String()) }], resources: [], version: "t" })).toThrow("not an object");
  });

  test("a resource that needs a scope the key lacks is neither listed nor read: the refusal carries missing_scope", async () => {
    const page = (uri: string, scope?: "ledger:read") => ({ uri, name: uri, title: uri, description: uri, mimeType: "application/json", scope, read: () => "{}" });
    const client = await connected([], undefined, [page("ca-ledger://open"), page("ca-ledger://books", "ledger:read")]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["ca-ledger://open"]);
    const e = await client.readResource({ uri: "ca-ledger://books" }).catch((x) => x);
    expect(e).toBeInstanceOf(McpError);
    expect(e.data).toMatchObject({ code: "missing_scope" });
    expect((await client.readResource({ uri: "ca-ledger://open" })).contents[0]).toMatchObject({ text: "{}" });
    await client.close();
  });
});
