// The compiled binary, end to end: built once per run when missing or older than its sources,
// run from a temp cwd with nothing beside it: key commands, serve, the client against it,
// revocation while it runs, exit codes, SIGTERM, and `serve --demo`. On PostgreSQL test runs the
// binary gets the test's database too (ledgerArgs), and all but the demo's tests run there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ApiError, createClient } from "../../client/src/index.ts";
import * as S from "../../schemas/index.ts";
import { randomAddress, repoRoot, schemaErrors, tempDir, waitFor } from "../harness/index.ts";
import { withLedger } from "../ops/helpers.ts";
import { newLedgerLine } from "./trust-helpers.ts";
import { ledgerArgs, testEngine } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const binary = join(repoRoot, "dist", "ca-ledger");
const bun = join(repoRoot, "node_modules", ".bin", "bun");
const cwd = tempDir("ca-ledger-e2e-cwd-");
const dataRoot = tempDir("ca-ledger-e2e-data-");
const dataDir = join(dataRoot, "ledger");
/** Where the commands below find the ledger: the data dir, and on PostgreSQL runs its database. */
const ledger = ledgerArgs(dataDir);
const demoRoot = tempDir("ca-ledger-e2e-demo-");
// No network here: point the outside world at a closed loopback port so calls fail at once.
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: cwd,
  NO_COLOR: "1",
  LOG_LEVEL: "error",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  XSTOCKS_API_URL: "http://127.0.0.1:9/api/v2",
};

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

async function run(args: string[], opts: { cwd?: string; timeoutMs?: number } = {}) {
  const proc = Bun.spawn([binary, ...args], { cwd: opts.cwd ?? cwd, env, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, code };
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

interface Served {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  stdout: () => string;
  stderr: () => string;
}

function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }) {
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of stream) sink.text += dec.decode(chunk, { stream: true });
  })();
}

async function serve(args: string[]): Promise<Served & { startMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const proc = Bun.spawn([binary, "serve", "--port", String(port), ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const out = { text: "" };
  const err = { text: "" };
  collect(proc.stdout as ReadableStream<Uint8Array>, out);
  collect(proc.stderr as ReadableStream<Uint8Array>, err);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${err.text}`);
    try {
      const r = await fetch(url + "/v1/health");
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (performance.now() - started > 15_000) throw new Error(`serve did not answer within 15 s: ${err.text}`);
    await Bun.sleep(10);
  }
  return { proc, url, startMs: performance.now() - started, stdout: () => out.text, stderr: () => err.text };
}

/**
 * SIGTERM, then SIGKILL if the server is still there 10 s later: an exit code of 0 means it
 * stopped on its own. The time it took is printed, never asserted (the machine may be loaded).
 */
async function stopWithSigterm(s: Served): Promise<{ code: number | null; ms: number }> {
  const t = performance.now();
  s.proc.kill("SIGTERM");
  const killer = setTimeout(() => s.proc.kill("SIGKILL"), 10_000);
  const code = await s.proc.exited;
  clearTimeout(killer);
  return { code, ms: performance.now() - t };
}

beforeAll(async () => {
  const stale =
    !existsSync(binary) ||
    ["src", "cli", "schemas", "migrations", "client/src", "web"].some((d) => newestSource(join(repoRoot, d)) > statSync(binary).mtimeMs) ||
    statSync(join(repoRoot, "package.json")).mtimeMs > statSync(binary).mtimeMs;
  if (stale) {
    const b = Bun.spawn([bun, "run", "build"], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" });
    const [code, err] = await Promise.all([b.exited, new Response(b.stderr).text()]);
    if (code !== 0) throw new Error(`bun run build failed (${code}): ${err}`);
  }
  expect(existsSync(binary)).toBe(true);
}, 120_000);

let created: { id: string; key: string; name: string; tenant: string; scopes: string[]; createdAt: string };
let server: (Served & { startMs: number }) | null = null;

afterAll(async () => {
  if (server && server.proc.exitCode === null) {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
  for (const d of [cwd, dataRoot, demoRoot]) rmSync(d, { recursive: true, force: true });
});

describe("ca-ledger binary", () => {
  test("keys create --json prints one JSON object with the key shown once", async () => {
    const besideBinary = readdirSync(join(repoRoot, "dist")).sort(); // dist/release from `npm run build:all` may be there too
    const r = await run(["keys", "create", "e2e", "--tenant", "acme", "--scopes", "assets:read,ledger:read,wallets:sync,ops:read", "--json", ...ledger]);
    // The first command on a new data dir says where it creates the ledger, and nothing else.
    expect({ code: r.code, stderr: r.stderr.replace(newLedgerLine, "") }).toEqual({ code: 0, stderr: "" });
    expect(r.stderr).toMatch(newLedgerLine);
    created = JSON.parse(r.stdout);
    expect(Object.keys(created).sort()).toEqual(["createdAt", "id", "key", "name", "scopes", "tenant"]);
    expect(created.key).toMatch(/^cal_[A-Za-z0-9_-]{43}$/);
    expect(created.id).toMatch(/^key_[a-z2-7]{12}$/);
    expect(created).toMatchObject({ name: "e2e", tenant: "acme", scopes: ["assets:read", "ledger:read", "wallets:sync", "ops:read"] });
    expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
    // Stored in the ledger the test names: the data dir's file, or on PostgreSQL runs its database.
    const stored = await withLedger(dataDir, (l) => l.db.all(...q`SELECT id, name FROM api_keys`));
    expect(stored).toEqual([{ id: created.id, name: "e2e" }]);
    // Nothing is written beside the binary or in the cwd but what --data-dir names.
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(join(repoRoot, "dist")).sort()).toEqual(besideBinary);
  });

  test("keys list --json shows the key without the key or its hash", async () => {
    const r = await run(["keys", "list", "--json", ...ledger]);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: created.id, tenant: "acme", name: "e2e", prefix: created.key.slice(0, 12) });
    expect(r.stdout).not.toContain(created.key);
    const hash = new Bun.CryptoHasher("sha256").update(created.key).digest("hex");
    expect(r.stdout).not.toContain(hash);
    for (const k of Object.keys(list[0]!)) expect(k.toLowerCase()).not.toMatch(/hash|sha|secret|^key$/);
  });

  test("serve answers /v1/health; the client drives it", async () => {
    server = await serve(ledger);
    console.log(`serve: first answered /v1/health after ${server.startMs.toFixed(0)} ms`);
    const c = createClient({ baseUrl: server.url, apiKey: created.key });
    const h = await c.health();
    expect(schemaErrors(S.Health, h)).toEqual([]);
    expect(h.dataset).toEqual({ kind: "mainnet", description: null });
    const wallet = randomAddress();
    const r = await c.requestSync(wallet);
    expect(r).toMatchObject({ owner: wallet, registration: "registered", job: "enqueued" });
    const again = await c.requestSync(wallet);
    expect(again.registration).toBe("already_registered");
    const ws = await c.wallets();
    expect(ws.tenant).toBe("acme");
    expect(ws.wallets.map((w) => w.owner)).toEqual([wallet]);
    const st = await c.syncStatus(wallet);
    expect(schemaErrors(S.SyncStatusResponse, st)).toEqual([]);
    const p = await c.portfolio(wallet);
    expect(schemaErrors(S.Portfolio, p)).toEqual([]);
    expect(schemaErrors(S.IncomeList, await c.income(wallet, { limit: 10 }))).toEqual([]);
    expect(schemaErrors(S.JournalList, await c.journal(wallet))).toEqual([]);
    expect(schemaErrors(S.YieldResponse, await c.yieldMetrics(wallet))).toEqual([]);
    expect((await c.exportCsv(wallet)).startsWith("dataset,")).toBe(true);
    expect(schemaErrors(S.AssetsResponse, await c.assets())).toEqual([]);
    const t = await c.v2.taxonomy();
    expect(schemaErrors(S.TaxonomyResponse, t)).toEqual([]);
    expect(t.types).toHaveLength(18);
    expect(schemaErrors(S.ActionsList, await c.v2.actions(wallet))).toEqual([]);
    expect(schemaErrors(S.OpsStatus, await c.opsStatus())).toEqual([]);
    expect(await c.opsMetrics()).toContain("caledger_http_requests_total");
    const unknown = await c.portfolio(randomAddress()).catch((e) => e);
    expect(unknown).toBeInstanceOf(ApiError);
    expect((unknown as ApiError).body.code).toBe("wallet_not_registered");
    // The OpenAPI document is served by the binary too.
    const doc = await (await fetch(server.url + "/v1/openapi.json")).json();
    expect(Object.keys(doc.paths)).toContain("/v2/actions/{id}");
  }, 30_000);

  test("keys revoke while the server runs: the next request is 401", async () => {
    expect(server).not.toBeNull();
    const c = createClient({ baseUrl: server!.url, apiKey: created.key });
    expect((await c.wallets()).tenant).toBe("acme");
    const r = await run(["keys", "revoke", created.id, ...ledger]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    const e = await c.wallets().catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect([(e as ApiError).status, (e as ApiError).body.code]).toEqual([401, "invalid_api_key"]);
    const list = JSON.parse((await run(["keys", "list", "--json", ...ledger])).stdout);
    expect(list[0].revoked).toBe(true);
  });

  test("revoking an unknown or already revoked id exits 1 with a message on stderr", async () => {
    for (const id of ["key_aaaaaaaaaaaa", created.id]) {
      const r = await run(["keys", "revoke", id, ...ledger]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(id);
    }
  });

  test("usage errors exit 2", async () => {
    const cases: [string, string[]][] = [
      ["unknown scope", ["keys", "create", "x", "--tenant", "acme", "--scopes", "bogus", ...ledger]],
      ["bad tenant slug", ["keys", "create", "x", "--tenant", "ACME!", ...ledger]],
      ["missing --tenant", ["keys", "create", "x", ...ledger]],
      ["missing key id", ["keys", "revoke", ...ledger]],
      ["unknown command", ["keys", "frobnicate", ...ledger]],
    ];
    const codes: Record<string, number | null> = {};
    for (const [name, args] of cases) codes[name] = (await run(args)).code;
    expect(codes).toEqual(Object.fromEntries(cases.map(([name]) => [name, 2])));
  });

  test("SIGTERM: the server exits 0 promptly, even with a client connection open", async () => {
    expect(server).not.toBeNull();
    // Leave a keep-alive connection open, as a real client would.
    await (await fetch(server!.url + "/v1/health")).text();
    const { code, ms } = await stopWithSigterm(server!);
    console.log(`serve: exited ${code} ${ms.toFixed(0)} ms after SIGTERM`);
    expect(code).toBe(0); // on its own, before the SIGKILL 10 s later
  }, 15_000);

  // SQLite's, as the next test: the demo runs on SQLite in its own data dir by design (the binary
  // refuses --demo with a database URL), whatever engine the other tests run on.
  if (testEngine === "sqlite")
    test("serve --demo on a fresh data dir prints a key and a curl line that work", async () => {
      const demoDir = join(demoRoot, "d");
      const demo = await serve(["--demo", "--data-dir", demoDir]);
      try {
        // The banner comes after the server listens: wait for its last line, not for a time.
        await waitFor(
          async () => demo.stdout(),
          (out) => /curl .*\n/.test(out),
        );
        const out = demo.stdout();
        const key = /\b(cal_[A-Za-z0-9_-]{43})\b/.exec(out)?.[1];
        expect(key).toBeDefined();
        const curl = out.split("\n").find((l) => l.trim().startsWith("curl "));
        expect(curl).toBeDefined();
        expect(curl).toContain(key!);
        expect(curl).toContain(demo.url);
        // The curl line's URL answers with the printed key.
        const target = /'(http:\/\/[^']+)'/.exec(curl!)?.[1];
        expect(target).toBeDefined();
        const res = await fetch(target!, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-ca-ledger-dataset")).toBe("synthetic");
        const c = createClient({ baseUrl: demo.url, apiKey: key });
        expect((await c.health()).dataset?.kind).toBe("synthetic");
      } finally {
        // The demo's worker makes no network calls: this isolates the HTTP side of shutdown
        // (the client connections above are still open).
        const { code, ms } = await stopWithSigterm(demo);
        console.log(`serve --demo: exited ${code} ${ms.toFixed(0)} ms after SIGTERM`);
        expect(code).toBe(0); // on its own, before the SIGKILL 10 s later
      }
    }, 30_000);

  // SQLite's: the live data it guards is the data dir's ledger.db.
  if (testEngine === "sqlite")
    test("serve --demo refuses a data dir that holds live data, and leaves it as it was", async () => {
      // The main data dir of this file holds live registrations made through the client above.
      const before = await run(["keys", "list", "--json", "--data-dir", dataDir]);
      const refused = await run(["serve", "--demo", "--port", String(await freePort()), "--data-dir", dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/live data/);
      expect(refused.stdout).not.toMatch(/cal_/); // no demo key was made
      const after = await run(["keys", "list", "--json", "--data-dir", dataDir]);
      expect(after.stdout).toBe(before.stdout);
    }, 30_000);
});
