// The MCP server over stdio (src/mcp/stdio.ts), as a desktop agent runs it: a child process the
// SDK's own client starts, the key in CA_LEDGER_API_KEY, reading a running server (the real one,
// on the demo) like `ca-ledger mcp --url`. The same entry runs from source and compiled with the
// flags of the release binary (scripts/build.ts), so the SDK is known to work inside `bun build
// --compile`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createKey } from "../../src/ledger/keys.ts";
import { demoTenant } from "../../src/demo/identity.ts";
import { buildArgs, root } from "../../scripts/build.ts";
import { call } from "../harness/index.ts";
import { demoDataDir, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { serveDemo, type DemoServer } from "../support/demo-server.ts";
import { sampleRoutes } from "../support/mcp-tools.ts";

const entry = join(root, "test", "support", "mcp-stdio.ts");
let demo: DemoServer;
let assetsKey: string;
let compiled: string;
let owner: string;

beforeAll(async () => {
  demo = await serveDemo(await demoDataDir());
  assetsKey = (await createKey(demo.ledger.db, { name: "mcp-assets", tenant: demoTenant, scopes: ["assets:read"] })).key;
  owner = (await call(demo.url, "/v1/wallets", { key: demo.key })).body.wallets[0].owner;
  // The entry compiled as the release binary is (the same flags), in place of cli/main.ts.
  compiled = join(tempDir("cal-mcp-bin-"), "mcp-stdio");
  const args = buildArgs(compiled).filter((a) => a !== "cli/main.ts" && a !== "src/sync/thread.ts");
  args.splice(args.indexOf("--outfile"), 0, entry);
  const built = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`bun build failed: ${built.stderr.toString()}`);
});

afterAll(async () => {
  await demo?.stop();
  removeTempDirs();
});

const commands = () => ({ source: [process.execPath, entry], compiled: [compiled] });

async function connect(command: string[], key: string): Promise<Client> {
  const client = new Client({ name: "ca-ledger-test", version: "0" });
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: [...command.slice(1), "--url", demo.url],
    env: { ...getDefaultEnvironment(), CA_LEDGER_API_KEY: key },
    stderr: "pipe",
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

const bodyText = (r: CallToolResult) => (r.content.at(-1) as { text: string }).text;

for (const how of ["source", "compiled"] as const) {
  describe(`MCP over stdio (${how})`, () => {
    test("lists the tools and answers each read as the route does, byte for byte", async () => {
      const client = await connect(commands()[how], demo.key);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(Object.values(sampleRoutes).map((r) => r.tool).sort());
        for (const [name, args, path] of [
          ["list_wallets", {}, "/v1/wallets"],
          ["income_report", { year: 2026 }, "/v2/reports/income?year=2026"],
          ["list_actions", { owner, limit: 2, from: "2026-01-01" }, `/v2/actions?owner=${owner}&limit=2&from=2026-01-01`],
        ] as const) {
          const http = await call(demo.url, path, { key: demo.key });
          const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
          expect(bodyText(r)).toBe(http.text);
          expect(r.structuredContent).toEqual(http.body);
        }
      } finally {
        await client.close();
      }
    });

    test("a key without the scope is refused by the server, and the tool error carries its code", async () => {
      const client = await connect(commands()[how], assetsKey);
      try {
        const r = (await client.callTool({ name: "list_actions", arguments: { owner } })) as CallToolResult;
        const http = await call(demo.url, `/v2/actions?owner=${owner}`, { key: assetsKey });
        expect(r.isError).toBe(true);
        expect(http.status).toBe(403);
        expect(bodyText(r)).toBe(http.text);
        expect(JSON.parse(bodyText(r)).code).toBe("missing_scope");
        const taxonomy = (await client.callTool({ name: "get_taxonomy", arguments: {} })) as CallToolResult;
        expect(taxonomy.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    });

    test("the documentation pages are listed and read", async () => {
      const client = await connect(commands()[how], assetsKey);
      try {
        const { resources } = await client.listResources();
        expect(resources.map((r) => r.uri)).toContain("ca-ledger://docs/income-and-tax.md");
        const page = await client.readResource({ uri: "ca-ledger://docs/income-and-tax.md" });
        expect((page.contents[0] as { text: string }).text).toBe(await Bun.file(join(root, "docs", "income-and-tax.md")).text());
      } finally {
        await client.close();
      }
    });

    test("the server ends by itself, exit 0, when the client closes stdin", async () => {
      const p = Bun.spawn([...commands()[how], "--url", demo.url], { env: { PATH: process.env.PATH ?? "", CA_LEDGER_API_KEY: demo.key }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };
      p.stdin.write(JSON.stringify(init) + "\n");
      await p.stdin.flush();
      const reader = p.stdout.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(JSON.parse(first.split("\n")[0]!).result.serverInfo.name).toBe("ca-ledger");
      await p.stdin.end();
      expect(await p.exited).toBe(0);
      expect(await new Response(p.stderr).text()).toContain("client closed stdin");
    });
  });
}
