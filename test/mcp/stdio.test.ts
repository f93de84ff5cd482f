// `ca-ledger mcp` over stdio as a desktop agent runs it: the compiled binary (dist/ca-ledger),
// started by the SDK's own client with the key in CA_LEDGER_API_KEY, on a fresh demo that
// `ca-ledger serve --demo` made (a real HOME). Read directly (`mcp --demo`) or through the running
// server (`mcp --url`), every tool answers what its route answers over HTTP, byte for byte.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { demoOwners } from "../../src/demo/identity.ts";
import { call, randomAddress } from "../harness/index.ts";
import { cliAsync, ensureBinary, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { bodyText, builtTools, callTool as tool, connectClient, readCases, sameInstant, texts, type ToolCase } from "../support/mcp-cases.ts";
import { baseEnv, serveBinary, type Served } from "../e2e/trust-helpers.ts";

const home = tempDir("cal-mcp-home-");
const env = baseEnv(home);
let demo: Served;
let keys: { demo: string; assets: string; other: string };
let cases: ToolCase[];
const clients: Client[] = [];

async function makeKey(name: string, tenant: string, scopes: string): Promise<{ id: string; key: string }> {
  const r = await cliAsync(["keys", "create", name, "--tenant", tenant, "--scopes", scopes, "--json", "--demo"], env);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  demo = await serveBinary(["--demo"], env);
  keys = {
    demo: /Demo key \(all scopes, shown once\):\n {2}(cal_\S+)/.exec(demo.stdout())![1]!,
    assets: (await makeKey("mcp-assets", "demo", "assets:read")).key,
    other: (await makeKey("mcp-other", "other-tenant", "assets:read,ledger:read,wallets:sync")).key,
  };
  cases = await readCases(demo.url, keys.demo);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await demo?.stop();
  removeTempDirs();
});

const modes = { direct: ["mcp", "--demo"], remote: () => ["mcp", "--url", demo.url] };
type Mode = keyof typeof modes;
const argsOf = (mode: Mode) => (mode === "direct" ? modes.direct : modes.remote());

async function connect(mode: Mode, key: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: ensureBinary(), args: argsOf(mode), env: { ...env, CA_LEDGER_API_KEY: key }, stderr: "pipe" });
  const client = await connectClient(transport);
  clients.push(client);
  return client;
}

for (const mode of ["direct", "remote"] as const) {
  describe(`ca-ledger ${mode === "direct" ? "mcp --demo (the ledger read directly)" : "mcp --url (a running server)"}`, () => {
    test("lists every tool and answers each read as its route does over HTTP, byte for byte", async () => {
      const client = await connect(mode, keys.demo);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...builtTools].sort());
      for (const c of cases) {
        const http = await call(demo.url, c.path, { key: keys.demo });
        const r = await tool(client, c.tool, c.args);
        expect({ tool: c.tool, isError: r.isError ?? false }).toEqual({ tool: c.tool, isError: false });
        expect({ tool: c.tool, text: sameInstant(bodyText(r)) }).toEqual({ tool: c.tool, text: sameInstant(http.text) });
        expect({ tool: c.tool, json: sameInstant(JSON.stringify(r.structuredContent)) }).toEqual({ tool: c.tool, json: sameInstant(http.text) });
      }
    }, 60_000);

    test("a key without the scope cannot call its tools: the tool error is the route's refusal, byte for byte", async () => {
      const client = await connect(mode, keys.assets);
      const names = (await client.listTools()).tools.map((t) => t.name);
      // Read directly, the key's scopes are known here; through a server, every tool is listed and the server refuses.
      expect(names.sort()).toEqual(mode === "direct" ? ["get_lineage", "get_taxonomy"] : [...builtTools].sort());
      const owner = demoOwners()[0]!;
      const http = await call(demo.url, `/v2/actions?owner=${owner}`, { key: keys.assets });
      expect(http.status).toBe(403);
      const r = await tool(client, "list_actions", { owner });
      expect(r.isError).toBe(true);
      expect(bodyText(r)).toBe(http.text);
      expect((await tool(client, "get_taxonomy")).isError).toBeFalsy();
    }, 60_000);

    test("another tenant sees nothing of the demo's wallets", async () => {
      const client = await connect(mode, keys.other);
      const owner = demoOwners()[0]!;
      const r = await tool(client, "list_actions", { owner });
      expect(bodyText(r)).toBe((await call(demo.url, `/v2/actions?owner=${owner}`, { key: keys.other })).text);
      expect(JSON.parse(bodyText(r)).code).toBe("wallet_not_registered");
      expect(texts(await tool(client, "get_portfolio", { owner }))).toEqual(texts(await tool(client, "get_portfolio", { owner: randomAddress() })));
      expect(((await tool(client, "income_report", { year: 2026 })).structuredContent as { rows: unknown[] }).rows).toEqual([]);
    }, 60_000);

    test("request_sync of a wallet the offline demo has no recording of is the route's demo_offline refusal", async () => {
      const client = await connect(mode, keys.demo);
      const wallet = randomAddress();
      const http = await call(demo.url, "/v1/wallets/sync", { key: keys.demo, body: { owner: wallet } });
      expect(http.status).toBe(409);
      const r = await tool(client, "request_sync", { owner: wallet });
      expect(bodyText(r)).toBe(http.text);
    }, 60_000);

    test("the taxonomy and the documentation pages are resources", async () => {
      const client = await connect(mode, keys.demo);
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toEqual(expect.arrayContaining(["ca-ledger://taxonomy", "ca-ledger://docs/action-types.md", "ca-ledger://docs/income-and-tax.md"]));
      const taxonomy = await client.readResource({ uri: "ca-ledger://taxonomy" });
      expect((taxonomy.contents[0] as { text: string }).text).toBe((await call(demo.url, "/v2/taxonomy", { key: keys.demo })).text);
      const page = await client.readResource({ uri: "ca-ledger://docs/income-and-tax.md" });
      expect((page.contents[0] as { text: string }).text).toBe(await Bun.file(join(import.meta.dir, "..", "..", "docs", "income-and-tax.md")).text());
    }, 60_000);
  });
}

describe("ca-ledger mcp on a fresh demo", () => {
  test("answers 'which of my holdings paid the most net income in 2026, and what was withheld' from tool calls alone", async () => {
    // The conversation of docs/mcp.md#example-conversation, made by a client of the SDK.
    const client = await connect("direct", keys.demo);
    const wallets = (await tool(client, "list_wallets")).structuredContent as { wallets: { owner: string }[] };
    expect(wallets.wallets.map((w) => w.owner).sort()).toEqual([...demoOwners()].sort());
    const report = await tool(client, "income_report", { year: 2026 });
    expect(texts(report)[0]).toBe(
      "2026, 2 wallet(s): net 350.450911 USD, withheld 93.826837, retained 0, gross 444.277748 over 25 event(s) (3 without a USD value, left out), in 19 month × symbol row(s).",
    );
    const rows = (report.structuredContent as { rows: { symbol: string; exact: { usd: string | null; withholdingTaxUsd: string | null } }[] }).rows;
    const net = new Map<string, number>(),
      withheld = new Map<string, number>();
    for (const r of rows) {
      net.set(r.symbol, (net.get(r.symbol) ?? 0) + Number(r.exact.usd ?? 0));
      withheld.set(r.symbol, (withheld.get(r.symbol) ?? 0) + Number(r.exact.withholdingTaxUsd ?? 0));
    }
    const [top] = [...net.entries()].sort((a, b) => b[1] - a[1]);
    expect([top![0], top![1].toFixed(2), withheld.get(top![0])!.toFixed(2)]).toEqual(["STRCx", "151.48", "21.24"]);
  }, 60_000);

  test("a key revoked while the agent runs stops at its next call (read directly)", async () => {
    const k = await makeKey("mcp-revoked", "demo", "assets:read");
    const client = await connect("direct", k.key);
    expect((await tool(client, "get_taxonomy")).isError).toBeFalsy();
    expect((await cliAsync(["keys", "revoke", k.id, "--demo"], env)).code).toBe(0);
    const r = await tool(client, "get_taxonomy");
    expect(r.isError).toBe(true);
    expect(JSON.parse(bodyText(r)).code).toBe("invalid_api_key");
  }, 60_000);
});

describe("ca-ledger mcp: the command", () => {
  const run = (args: string[], extra: Record<string, string> = {}) => cliAsync(args, { ...env, ...extra });

  test("usage errors exit 2: no CA_LEDGER_API_KEY (a key is never a flag), an unknown flag, --url with a ledger, a --url that is not http", async () => {
    for (const [args, extra, says] of [
      [["mcp", "--demo"], {}, "CA_LEDGER_API_KEY"],
      [["mcp", "--demo", "--key", keys.demo], { CA_LEDGER_API_KEY: keys.demo }, "unknown flag --key"],
      [["mcp", "--url", demo.url, "--demo"], { CA_LEDGER_API_KEY: keys.demo }, "--url reads a running server"],
      [["mcp", "--url", "ftp://example"], { CA_LEDGER_API_KEY: keys.demo }, "--url must be an http"],
    ] as const) {
      const r = await run([...args], extra);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(says);
      expect(r.stdout).toBe("");
    }
  }, 60_000);

  test("--demo before any demo ran: exit 1 saying to start it, and nothing is created", async () => {
    const elsewhere = tempDir("cal-mcp-nodemo-");
    const r = await cliAsync(["mcp", "--demo"], { ...baseEnv(elsewhere), CA_LEDGER_API_KEY: keys.demo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("start the demo first with 'ca-ledger serve --demo'");
    expect(r.stdout).toBe("");
    expect(existsSync(join(elsewhere, ".local", "share"))).toBe(false);
  }, 60_000);

  test("an unknown key exits 1 and names the variable, never the key", async () => {
    const wrong = `cal_${"B".repeat(43)}`;
    const r = await run(["mcp", "--demo"], { CA_LEDGER_API_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the API key in CA_LEDGER_API_KEY is unknown, malformed or revoked");
    expect(r.stderr).not.toContain(wrong);
  }, 60_000);

  test("stdout carries only protocol messages, and the process ends, exit 0, when the client closes stdin", async () => {
    const p = Bun.spawn([ensureBinary(), "mcp", "--demo"], { env: { ...env, CA_LEDGER_API_KEY: keys.demo }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };
    p.stdin.write(JSON.stringify(init) + "\n");
    p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_wallets", arguments: {} } }) + "\n");
    await p.stdin.flush();
    const out = (async () => {
      let text = "";
      const reader = p.stdout.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
        if (text.split("\n").filter(Boolean).length >= 2) await p.stdin.end();
      }
    })();
    expect(await p.exited).toBe(0);
    const lines = (await out)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((m) => [m.jsonrpc, m.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
    ]);
    expect(lines[1].result.structuredContent.tenant).toBe("demo");
  }, 60_000);
});
