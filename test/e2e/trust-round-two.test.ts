// The compiled binary as an operator runs it, for what a sync error says (docs/providers.md#sync-errors)
// and for a ledger.db deleted under a running server
// (docs/operations.md#ledgerdb-gone-under-a-running-server).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomAddress } from "../harness/index.ts";
import { ensureBinary, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { ledgerArgs, ledgerEnv, testEngine } from "../support/engine.ts";
import { api, baseEnv, freePort, runFor, serveBinary, type Served } from "./trust-helpers.ts";

const env = baseEnv(tempDir("cal-round-two-home-"));
const running: Served[] = [];
beforeAll(() => {
  ensureBinary();
}, 120_000);
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  removeTempDirs();
});

async function keyFor(dir: string, extra: Record<string, string> = {}): Promise<string> {
  const r = await runFor(["keys", "create", "k", "--tenant", "acme", "--scopes", "ledger:read,wallets:sync,ops:read", "--json", ...ledgerArgs(dir)], { ...env, ...ledgerEnv(dir), ...extra });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).key;
}

/** Polls `read` until it returns a value (60 s at most: a sync gives up after its 7 attempts). */
async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 60_000; ; await Bun.sleep(250)) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

describe("a sync error", () => {
  test("names the provider's host and the cause; the key in the provider URLs appears in no job error, status answer or log line", async () => {
    const dir = join(tempDir(), "d");
    const key = await keyFor(dir);
    const secret = "SECRET-7b2f0c91";
    const port = await freePort(); // nothing listens there
    const host = `127.0.0.1:${port}`;
    const server = await serveBinary(ledgerArgs(dir), {
      ...env,
      ...ledgerEnv(dir),
      LOG_LEVEL: "debug",
      RATE_LIMIT_PER_MINUTE: "100000",
      SOLANA_RPC_URL: `http://${host}/?api-key=${secret}`,
      XSTOCKS_API_URL: `http://${host}/${secret}/api/v2?token=${secret}`,
    });
    running.push(server);
    const owner = randomAddress();
    expect((await api(server.url, "/v1/wallets/sync", key, { owner })).status).toBe(202);

    const status = await until("the first attempt to fail", async () => {
      const s = (await api(server.url, `/v1/wallets/${owner}/status`, key)).body;
      return s.error ? s : undefined;
    });
    expect(status.error).toMatch(new RegExp(`^\\w+ to ${host.replace(/\./g, "\\.")}: connection refused \\(ECONNREFUSED\\), after 7 attempts$`));
    const ops = await until("the issuer poll's error", async () => {
      const o = (await api(server.url, "/v1/ops/status", key)).body;
      return JSON.stringify(o).includes("last error") ? o : undefined;
    });
    expect(ops.checks.find((c: { name: string }) => c.name === "issuer_feed_freshness").message).toContain(`at ${host}: connection refused (ECONNREFUSED)`);

    for (const [where, text] of [
      ["status", JSON.stringify(status)],
      ["ops status", JSON.stringify(ops)],
      ["log", server.stderr()],
    ] as const) {
      expect({ where, leaks: text.includes(secret) }).toEqual({ where, leaks: false });
      expect({ where, bare: /TypeError/.test(text) }).toEqual({ where, bare: false });
    }
    expect(server.stderr()).toContain(`to ${host}: connection refused`); // the log says it too
  }, 90_000);
});

// SQLite's: a PostgreSQL ledger has no file to delete, and servers sharing it hold no data dir.
if (testEngine === "sqlite")
  describe("ledger.db deleted under a running server", () => {
    test("keys create refuses with exit 1, says why, and writes nothing; once the server is stopped it works", async () => {
      const dir = join(tempDir(), "d");
      await keyFor(dir);
      const server = await serveBinary(["--data-dir", dir], env);
      running.push(server);
      for (const f of ["ledger.db", "ledger.db-wal", "ledger.db-shm"]) rmSync(join(dir, f), { force: true });

      for (const args of [
        ["keys", "create", "ops", "--tenant", "acme"],
        ["sync", randomAddress(), "--tenant", "acme"],
      ]) {
        const r = await runFor([...args, "--data-dir", dir], env);
        expect({ args, code: r.code }).toEqual({ args, code: 1 });
        expect(r.stderr).toContain(`${join(dir, "ledger.db")} is missing, but a ca-ledger server holds data dir ${dir}`);
        expect(r.stdout).not.toContain("cal_"); // no key printed that the server would never know
        expect(existsSync(join(dir, "ledger.db"))).toBe(false);
      }

      expect(await server.stop()).toBe(0);
      const after = await runFor(["keys", "create", "ops", "--tenant", "acme", "--data-dir", dir], env);
      expect(after.code).toBe(0);
      expect(after.stdout).toContain("cal_");
    }, 60_000);
  });
