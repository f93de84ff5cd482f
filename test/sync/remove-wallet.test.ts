// Removing a wallet through the real server (its worker thread, its own connection) against a
// loopback Solana JSON-RPC server: the tenant's reads answer 404 at once while another tenant
// following the same wallet keeps being synced; once no tenant follows it, it has no job and the
// mint poll no longer reads its mints; the ledger still verifies, and registering it again serves
// the same books. A run in flight when its wallet is removed stops and frees its worker slot.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { createLogger } from "../../src/log.ts";
import { pollMints } from "../../src/sync/mint-poll.ts";
import { call, tempDir } from "../harness/index.ts";
import { loadIssuerFixture, startIssuerServer, type IssuerServer } from "../support/issuer-server.ts";
import { startRpcServer, type RpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario, type WalletScenario } from "../support/wallet-chain.ts";
import { ledgerFlags } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
const running: { server: ServerHandle; rpc: RpcServer; issuer: IssuerServer }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.stop();
    r.rpc.stop();
    r.issuer.stop();
  }
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(s: WalletScenario, env: Record<string, string>) {
  const rpc = startRpcServer(s.chain);
  const issuer = startIssuerServer(loadIssuerFixture());
  const dataDir = tempDir("cal-remove-");
  dirs.push(dataDir);
  const server = await startServer(
    { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
    {
      quiet: true,
      env: { LOG_LEVEL: "error", SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: issuer.url, ISSUER_POLL_SECONDS: "3600", MINT_POLL_SECONDS: "3600", RESYNC_SECONDS: "0", ...env },
    },
  );
  running.push({ server, rpc, issuer });
  const key = async (tenant: string) => (await createKey(server.ledger.db, { name: `k-${tenant}`, tenant, scopes: ["wallets:sync", "ledger:read"] })).key;
  return { server, rpc, key };
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const statusOf = (url: string, key: string, owner: string) => call(url, `/v1/wallets/${owner}/status`, { key });
const finished = (url: string, key: string, owner: string, after = "") =>
  until(`${owner} synced`, async () => {
    const s = (await statusOf(url, key, owner)).body;
    return (s.status === "complete" || s.status === "partial") && s.requestedAt > after ? s : undefined;
  });
const remove = (url: string, key: string, owner: string) => call(url, `/v1/wallets/${owner}`, { key, method: "DELETE" });
const register = (url: string, key: string, owner: string) => call(url, "/v1/wallets/sync", { key, body: { owner } });
const jobRows = (server: ServerHandle, owner: string) => server.ledger.db.all(...q`SELECT tenant_id, status FROM sync_jobs WHERE owner = ${owner}`);
const polledMints = (server: ServerHandle) => pollMints({ db: server.ledger.db, config: server.config, logger: createLogger("error") }).then((r) => r.mints);

describe("removing a wallet", () => {
  test("the tenant stops following it, another tenant is untouched; once no tenant follows it, nothing syncs it; books stay and come back", async () => {
    const s = buildWalletScenario({ transfers: 8, seed: 41 });
    s.addUpdate(1.0031, 1_790_000_000); // a change the wallet held through: there are books
    const { server, key } = await start(s, { RESYNC_SECONDS: "1" });
    const acme = await key("acme"),
      globex = await key("globex");
    for (const k of [acme, globex]) expect((await register(server.url, k, s.owner)).status).toBe(202);
    await finished(server.url, acme, s.owner);
    await finished(server.url, globex, s.owner);
    const books = (await call(server.url, `/v2/actions?owner=${s.owner}`, { key: acme })).body.actions;
    expect(books).toHaveLength(1);
    const journal = (await call(server.url, `/v1/journal?owner=${s.owner}`, { key: acme })).body;
    expect(await polledMints(server)).toBeGreaterThan(0);

    const removedAt = new Date().toISOString();
    expect((await remove(server.url, acme, s.owner)).status).toBe(204);
    for (const path of [`/v1/wallets/${s.owner}/status`, `/v1/portfolio?owner=${s.owner}`, `/v1/journal?owner=${s.owner}`, `/v2/actions?owner=${s.owner}`]) {
      const a = await call(server.url, path, { key: acme });
      expect({ path, status: a.status, code: a.body.code }).toEqual({ path, status: 404, code: "wallet_not_registered" });
    }
    expect((await call(server.url, "/v1/wallets", { key: acme })).body.wallets).toEqual([]);
    // globex still follows it: its books read as before, and its schedule keeps re-syncing it.
    expect((await call(server.url, `/v2/actions?owner=${s.owner}`, { key: globex })).body.actions).toEqual(books);
    await finished(server.url, globex, s.owner, removedAt);

    expect((await remove(server.url, globex, s.owner)).status).toBe(204);
    expect(await jobRows(server, s.owner)).toEqual([]); // no job: no claim, retry or schedule runs it again
    expect(await polledMints(server)).toBe(0); // and the mint poll no longer reads what it holds
    // Nothing was erased: the ledger holds the same books and still verifies.
    const report = await verifyLedger(server.ledger.db);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect((await server.ledger.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM journal WHERE owner = ${s.owner}`))!.n).toBe(journal.total);

    // Registering again: its own sync first, then the same books (same ids, same journal).
    const again = await register(server.url, acme, s.owner);
    expect(again.body).toMatchObject({ registration: "registered", job: "enqueued" });
    await finished(server.url, acme, s.owner);
    expect((await call(server.url, `/v2/actions?owner=${s.owner}`, { key: acme })).body.actions).toEqual(books);
    expect((await call(server.url, `/v1/journal?owner=${s.owner}`, { key: acme })).body).toEqual(journal);
  }, 60_000);

  test("a run in flight when its wallet is removed stops and frees its worker slot for the next job", async () => {
    const s = buildWalletScenario({ transfers: 4, seed: 42 });
    const { server, rpc, key } = await start(s, { SYNC_CONCURRENCY: "1" });
    const acme = await key("acme"),
      globex = await key("globex");
    // acme's first call hangs far past the RPC client's own 20 s timeout.
    rpc.inject({ method: "getTokenAccountsByOwner", times: 1, fault: { kind: "hang", ms: 60_000 } });
    await register(server.url, acme, s.owner);
    await until("acme's run to hang", async () => (rpc.log.some((l) => l.method === "getTokenAccountsByOwner") ? true : undefined));
    expect((await statusOf(server.url, acme, s.owner)).body.status).toBe("running");
    // globex asks for the same wallet: it waits behind acme's run (one slot, one wallet at a time).
    await register(server.url, globex, s.owner);
    expect((await remove(server.url, acme, s.owner)).status).toBe(204);
    // The removed run is aborted at once: globex's sync gets the slot and finishes long before
    // the hung call would have timed out.
    const done = await finished(server.url, globex, s.owner);
    expect(done.transactionsFetched).toBe(s.transfers.length);
    expect((await jobRows(server, s.owner)).map((r) => r.status)).toEqual(["complete"]);
    expect((await statusOf(server.url, acme, s.owner)).status).toBe(404);
  }, 60_000);
});
