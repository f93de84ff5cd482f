// Defects a new user or a hostile environment hit, each pinned against the compiled binary with
// real files: one server per port and per data dir; the demo never mixed with live data; a
// strict CLI; the wallet quota for every tenant; private files whatever the umask.
// On PostgreSQL test runs, only what does not live in the data dir's files runs: the strict CLI
// and the wallet quota (the rest is SQLite's by nature, each block says why).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { settingsFor, type CommandName } from "../../src/config.ts";
import { demoOwners } from "../../src/demo/load.ts";
import { createKey, ensureTenant } from "../../src/ledger/keys.ts";
import { registerAndEnqueue } from "../../src/ledger/queue.ts";
import { randomAddress } from "../harness/index.ts";
import { cli, cliAsync, ensureBinary, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { ledgerEnv, testEngine } from "../support/engine.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer, emptyChain } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";
import { api, baseEnv, freePort, newLedgerLine, runFor, serveBinary, type Served } from "./trust-helpers.ts";
import { q } from "../support/sql.ts";

const home = tempDir("cal-trust-home-");
const env = baseEnv(home);
const running: Served[] = [];
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const ledgerFile = (dir: string) => join(dir, "ledger.db");

async function serve(args: string[], extraEnv: Record<string, string> = {}, opts: { port?: number; umask?: string } = {}): Promise<Served> {
  const s = await serveBinary(args, { ...env, ...extraEnv }, opts);
  running.push(s);
  return s;
}

function newKey(dir: string, scopes = "assets:read,ledger:read,wallets:sync,ops:read", tenant = "acme"): string {
  const r = cli(["keys", "create", "k", "--tenant", tenant, "--scopes", scopes, "--json", "--data-dir", dir], env);
  // A first key in a new data dir says where the new ledger goes, and nothing else.
  expect({ code: r.code, stderr: r.stderr.replace(newLedgerLine, "") }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout).key;
}

beforeAll(() => {
  ensureBinary();
}, 120_000);
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  removeTempDirs();
});

// SQLite's: the data-dir lock is its one-server rule (several servers share a PostgreSQL ledger,
// test/postgres/servers.pg.ts), and a busy port is refused before any ledger is opened.
if (testEngine === "sqlite")
  describe("one server per port and per data dir", () => {
    test("a second serve on a busy port exits 1 naming the port; the first keeps answering from its ledger", async () => {
      const a = join(tempDir(), "a");
      const key = newKey(a);
      const first = await serve(["--data-dir", a]);
      const second = await runFor(["serve", "--port", String(first.port), "--data-dir", join(tempDir(), "b")], env, 8_000);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`port ${first.port} on 127.0.0.1 is in use`);
      // Every request still reaches the first server's ledger (a second one would answer 401).
      const statuses = await Promise.all(Array.from({ length: 40 }, () => api(first.url, "/v1/wallets", key).then((r) => r.status)));
      expect(new Set(statuses)).toEqual(new Set([200]));
      expect(await first.stop()).toBe(0);
    }, 30_000);

    test("a second serve on a held data dir exits 1 naming it; the other commands keep working", async () => {
      const dir = join(tempDir(), "d");
      const first = await serve(["--data-dir", dir]);
      const second = await runFor(["serve", "--port", String(await freePort()), "--data-dir", dir], env, 8_000);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`data dir ${dir} is held by another ca-ledger server`);
      // The lock is not on ledger.db: keys, backup, verify and migrate run beside the server.
      const backupFile = join(tempDir(), "b.db");
      for (const args of [["keys", "create", "x", "--tenant", "acme"], ["keys", "list"], ["backup", backupFile], ["verify"], ["migrate", "--status"], ["migrate"]]) {
        const r = await cliAsync([...args, "--data-dir", dir], env);
        expect({ args, code: r.code }).toEqual({ args, code: 0 });
      }
      expect(await first.stop()).toBe(0);
    }, 30_000);

    test("a SIGKILLed server leaves no stale lock: the next serve starts", async () => {
      const dir = join(tempDir(), "k");
      const first = await serve(["--data-dir", dir]);
      expect(await first.stop("SIGKILL")).not.toBe(0);
      const next = await serve(["--data-dir", dir]);
      expect((await fetch(next.url + "/v1/health")).status).toBe(200);
      expect(await next.stop()).toBe(0);
    }, 30_000);
  });

// SQLite's: the demo runs on SQLite in its own data dir, by design.
if (testEngine === "sqlite")
  describe("the demo is never mixed with live data", () => {
    const xdg = tempDir("cal-trust-xdg-");
    const live = join(tempDir(), "live");
    const demoDir = join(xdg, "ca-ledger-demo");
    let firstKey: string;

    test("serve --demo without --data-dir uses the demo's own dir (never CA_LEDGER_DATA_DIR) and prints it", async () => {
      const demo = await serve(["--demo"], { XDG_DATA_HOME: xdg, CA_LEDGER_DATA_DIR: live });
      expect(demo.stdout()).toContain(`Data dir: ${demoDir}`);
      expect(existsSync(ledgerFile(demoDir))).toBe(true);
      expect(existsSync(live)).toBe(false);
      firstKey = /\b(cal_[A-Za-z0-9_-]{43})\b/.exec(demo.stdout())![1]!;

      // Another wallet: the offline demo says so and registers nothing; a demo wallet still syncs.
      const other = randomAddress();
      const refused = await api(demo.url, "/v1/wallets/sync", firstKey, { owner: other });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("demo_offline");
      expect(refused.body.error).toMatch(/demo/);
      expect((await api(demo.url, "/v1/wallets/sync", firstKey, { owner: demoOwners()[0] })).status).toBe(202);
      const wallets = await api(demo.url, "/v1/wallets", firstKey);
      expect(wallets.body.wallets.map((w: { owner: string }) => w.owner)).not.toContain(other);
      expect(await demo.stop()).toBe(0);
      await withLedger(demoDir, async (l) => expect(await l.db.get(...q`SELECT count(*) AS n FROM tenant_wallets WHERE owner = ${other}`)).toEqual({ n: 0 }));
    }, 30_000);

    test("a second serve --demo revokes the earlier demo key, prints a fresh one and says so", async () => {
      const demo = await serve(["--demo"], { XDG_DATA_HOME: xdg });
      const key = /\b(cal_[A-Za-z0-9_-]{43})\b/.exec(demo.stdout())![1]!;
      expect(key).not.toBe(firstKey);
      expect(demo.stdout()).toMatch(/earlier demo start.*revoked/);
      expect((await api(demo.url, "/v1/assets", key)).status).toBe(200);
      expect((await api(demo.url, "/v1/assets", firstKey)).body.code).toBe("invalid_api_key");
      expect(await demo.stop()).toBe(0);
      const keys = JSON.parse(cli(["keys", "list", "--json", "--tenant", "demo", "--data-dir", demoDir], env).stdout) as { revoked: boolean }[];
      expect(keys.filter((k) => !k.revoked)).toHaveLength(1);
    }, 30_000);

    test("serve without --demo and sync refuse the demo's data dir, naming the flag, and write nothing", async () => {
      const before = await withLedger(
        demoDir,
        async (l) => await l.db.get(...q`SELECT (SELECT count(*) FROM tenant_wallets) AS w, (SELECT count(*) FROM tenants) AS t, (SELECT count(*) FROM issuer_revisions) AS r`),
      );
      const served = await runFor(["serve", "--port", String(await freePort()), "--data-dir", demoDir], env, 8_000);
      expect(served.code).toBe(1);
      expect(served.stderr).toMatch(/synthetic demo ledger.*--demo/);
      const synced = await runFor(["sync", randomAddress(), "--data-dir", demoDir], env, 8_000);
      expect(synced.code).toBe(1);
      expect(synced.stderr).toMatch(/synthetic demo ledger.*--data-dir/);
      const after = await withLedger(
        demoDir,
        async (l) => await l.db.get(...q`SELECT (SELECT count(*) FROM tenant_wallets) AS w, (SELECT count(*) FROM tenants) AS t, (SELECT count(*) FROM issuer_revisions) AS r`),
      );
      expect(after).toEqual(before);
    }, 30_000);
  });

describe("a strict CLI", () => {
  const dir = join(tempDir(), "s");
  const owner = randomAddress();
  const commands: string[][] = [
    ["serve"],
    ["keys", "create", "n", "--tenant", "acme"],
    ["keys", "list"],
    ["keys", "revoke", "key_aaaaaaaaaaaa"],
    ["sync", owner],
    ["backup", "/nonexistent/b.db"],
    ["restore", "/nonexistent/b.db"],
    ["verify"],
    ["migrate"],
  ];

  test("an unknown flag is a usage error naming it, on every command, and changes nothing", async () => {
    for (const c of commands) {
      const r = await runFor([...c, "--bogus-flag", "--data-dir", dir], env, 8_000);
      expect({ c, code: r.code, named: r.stderr.includes("--bogus-flag") }).toEqual({ c, code: 2, named: true });
    }
    // The reported case: --scope for --scopes used to create a key with the default scopes.
    const r = cli(["keys", "create", "n", "--tenant", "acme", "--scope", "ops:read", "--data-dir", dir], env);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("--scope")]);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  test("an extra positional argument is a usage error", () => {
    for (const c of [
      ["keys", "list", "extra"],
      ["keys", "revoke", "key_aaaaaaaaaaaa", "extra"],
      ["verify", "extra"],
      ["sync", owner, "extra"],
      ["backup", "a.db", "b.db"],
    ]) {
      const r = cli([...c, "--data-dir", dir], env);
      expect({ c, code: r.code, named: r.stderr.includes("extra") || r.stderr.includes("b.db") }).toEqual({ c, code: 2, named: true });
    }
    expect(existsSync(dir)).toBe(false);
  });

  test("every setting a command reads is one of its flags (generated from the settings table)", () => {
    for (const command of ["serve", "sync", "keys create", "keys list", "backup", "verify", "migrate"] as const) {
      const help = cli([...command.split(" "), "--help"], env).stdout;
      for (const s of settingsFor(command.split(" ")[0] as CommandName)) expect({ command, flag: help.includes(`--${s.flag}`) }).toEqual({ command, flag: true });
    }
  });

  test("sync --solana-rpc-url and --xstocks-api-url are used (no env set); without --tenant it says which tenant", async () => {
    const s = buildWalletScenario({ transfers: 5 });
    const rpc = startRpcServer(s.chain);
    const issuer = startIssuerServer(loadIssuerFixture());
    try {
      const r = await cliAsync(["sync", s.owner, "--solana-rpc-url", rpc.url, "--xstocks-api-url", issuer.url, "--data-dir", join(tempDir(), "sy")], { PATH: env.PATH!, HOME: home });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.stringContaining("sync complete") });
      expect(r.stderr).toContain("tenant local (the default");
      expect(rpc.requests).toBeGreaterThan(0);
      expect(issuer.requests).toBeGreaterThan(0);
    } finally {
      rpc.stop();
      issuer.stop();
    }
  }, 30_000);

  test("sync runs its own wallet's job, and after a failure says the job's error and exits 1 every time", async () => {
    const rpc = startRpcServer(emptyChain());
    rpc.inject({ fault: { kind: "status", status: 401 }, times: 1_000 }); // a provider refusing the key
    const d = join(tempDir(), "f");
    // Another wallet's job, older and due: a foreground sync must not take it.
    const waiting = randomAddress();
    const created = cli(["keys", "create", "x", "--tenant", "local", "--data-dir", d], env);
    expect(created.code).toBe(0);
    await withLedger(d, async (l) => await registerAndEnqueue(l.db, await ensureTenant(l.db, "local"), 100, waiting));
    try {
      for (let run = 1; run <= 2; run++) {
        const r = await cliAsync(["sync", owner, "--skip-issuer", "--solana-rpc-url", rpc.url, "--data-dir", d], env);
        expect({ run, code: r.code }).toEqual({ run, code: 1 });
        expect(r.stderr).toContain("sync failed");
        expect(r.stderr).toMatch(/error: .*401/);
        expect(r.stderr).not.toContain("taken by");
      }
      await withLedger(d, async (l) => expect(await l.db.get(...q`SELECT status, attempts FROM sync_jobs WHERE owner = ${waiting}`)).toEqual({ status: "queued", attempts: 0 }));
    } finally {
      rpc.stop();
    }
  }, 60_000);

  test("writing into a closed pipe exits quietly (keys list | head -1, --help | true)", async () => {
    const d = join(tempDir(), "p");
    newKey(d);
    // Enough keys that the listing overflows the pipe after head has gone.
    await withLedger(d, (l) =>
      l.db.write(async (tx) => {
        for (let i = 0; i < 1500; i++) await createKey(tx, { name: `pipe-${i}`, tenant: "acme" });
      }),
    );
    const bin = ensureBinary();
    for (const script of [`set -o pipefail; "$0" keys list --data-dir "$1" | head -1 >/dev/null`, `set -o pipefail; { sleep 0.3; exec "$0" serve --help; } | true`]) {
      const r = Bun.spawnSync(["bash", "-c", script, bin, d], { env: { ...env, ...ledgerEnv(d) }, stdout: "pipe", stderr: "pipe" });
      expect({ script, code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ script, code: 0, stderr: "" });
    }
  });

  test("serve --help fits 80 columns and shows every default, the data dir as its resolved path", () => {
    const r = cli(["serve", "--help"], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    // Each flag's paragraph: its line and the indented description lines below it.
    const paragraphs = r.stdout.split(/\n(?= {2}--)/).map((p) => p.replace(/\n\s+/g, " "));
    for (const s of settingsFor("serve")) {
      const text = paragraphs.find((p) => p.startsWith(`  --${s.flag} `) || p.startsWith(`  --${s.flag}\n`)) ?? "";
      expect({ flag: s.flag, shows: /default \S/.test(text) }).toEqual({ flag: s.flag, shows: true });
    }
    const flat = r.stdout.replace(/\n\s+/g, " ");
    expect(flat).toContain(`default ${join(home, ".local", "share", "ca-ledger")}`);
    expect(flat).toContain(join(home, ".local", "share", "ca-ledger-demo"));
  });

  test("migrate --status says when each migration was applied", () => {
    const d = join(tempDir(), "m");
    const before = new Date().toISOString();
    newKey(d);
    const after = new Date().toISOString();
    const lines = cli(["migrate", "--status", "--data-dir", d], env).stdout.trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      const at = /^applied {2}\S+ {2}applied (\S+),/.exec(line)?.[1];
      expect({ line, inWindow: at !== undefined && at >= before && at <= after }).toEqual({ line, inWindow: true });
    }
  });

  // SQLite's: only there is a missing data dir a missing ledger (an empty PostgreSQL database is
  // one too, as verify.test.ts and migrate.test.ts show).
  if (testEngine === "sqlite")
    test("read-only commands on a missing data dir create nothing: exit 1, no ledger at …", () => {
      const missing = join(tempDir(), "none");
      for (const c of [["keys", "list"], ["keys", "revoke", "key_aaaaaaaaaaaa"], ["verify"], ["backup", join(tempDir(), "x.db")], ["migrate", "--status"]]) {
        const r = cli([...c, "--data-dir", missing], env);
        expect({ c, code: r.code, says: r.stderr.includes(`no ledger at ${ledgerFile(missing)}`) }).toEqual({ c, code: 1, says: true });
        expect(existsSync(missing)).toBe(false);
      }
    });
});

describe("the wallet quota", () => {
  test("--max-wallets holds for a tenant made by keys create, under 150 concurrent registrations, and GET /v1/wallets reports it", async () => {
    const dir = join(tempDir(), "q");
    const key = newKey(dir);
    // The tenant row keys create wrote carries its own (unused) number: the server's setting rules.
    await withLedger(dir, async (l) => expect(await l.db.get(...q`SELECT max_wallets AS n FROM tenants WHERE slug = 'acme'`)).toEqual({ n: 100 }));
    const srv = await serve(["--data-dir", dir, "--max-wallets", "2", "--rate-limit-per-minute", "100000"], ledgerEnv(dir));
    const answers = await Promise.all(Array.from({ length: 150 }, () => api(srv.url, "/v1/wallets/sync", key, { owner: randomAddress() })));
    const tally: Record<string, number> = {};
    for (const a of answers) tally[`${a.status} ${a.body.code ?? "accepted"}`] = (tally[`${a.status} ${a.body.code ?? "accepted"}`] ?? 0) + 1;
    expect(tally).toEqual({ "202 accepted": 2, "403 wallet_quota_exceeded": 148 });
    const wallets = await api(srv.url, "/v1/wallets", key);
    expect(wallets.body.maxWallets).toBe(2);
    expect(wallets.body.wallets).toHaveLength(2);
    expect(await srv.stop()).toBe(0);
  }, 30_000);
});

// SQLite's: the modes of the data dir and of SQLite's files.
if (testEngine === "sqlite")
  describe("private files whatever the umask", () => {
    test("keys create, serve and backup under umask 022: data dir 0700, ledger.db, -wal, -shm, serve.lock and backups 0600", async () => {
      const dir = join(tempDir(), "u");
      const created = await runFor(["keys", "create", "x", "--tenant", "acme", "--data-dir", dir], env, 8_000, "022");
      expect(created.code).toBe(0);
      expect([mode(dir), mode(ledgerFile(dir))]).toEqual(["700", "600"]);
      const srv = await serve(["--data-dir", dir], {}, { umask: "022" });
      expect(await fetch(srv.url + "/v1/health").then((r) => r.status)).toBe(200);
      const files = ["ledger.db", "ledger.db-wal", "ledger.db-shm", "serve.lock"].map((f) => join(dir, f));
      expect(files.map(mode)).toEqual(["600", "600", "600", "600"]);
      const backupFile = join(tempDir(), "backup.db");
      const b = await runFor(["backup", backupFile, "--data-dir", dir], env, 8_000, "022");
      expect(b.code).toBe(0);
      expect(mode(backupFile)).toBe("600");
      expect(await srv.stop()).toBe(0);
    }, 30_000);

    test("a data dir and ledger an older version left 0755 and 0644 are narrowed on the next command", () => {
      const dir = join(tempDir(), "old");
      mkdirSync(dir, { mode: 0o755 });
      chmodSync(dir, 0o755);
      new Database(ledgerFile(dir), { create: true }).close();
      chmodSync(ledgerFile(dir), 0o644);
      const r = cli(["keys", "create", "x", "--tenant", "acme", "--data-dir", dir], env);
      expect(r.code).toBe(0);
      expect([mode(dir), mode(ledgerFile(dir))]).toEqual(["700", "600"]);
    });
  });
