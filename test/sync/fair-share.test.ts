// Fair share of the sync slots between tenants (docs/operations.md#fair-share): claims go
// round-robin by tenant, a tenant with nothing running gets the worker's spare slot while another
// tenant's syncs hang, and the ops status notices a wallet waiting behind stuck syncs. Driven by
// states (hung loopback RPC answers, an injected clock), never by durations. On both engines.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { createKey, ensureTenant } from "../../src/ledger/keys.ts";
import { opsStatus } from "../../src/ledger/queries/ops.ts";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { claimJob, finishJob, leaseSeconds, registerAndEnqueue } from "../../src/ledger/queue.ts";
import { address, call, tempDir } from "../harness/index.ts";
import { ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { loadIssuerFixture, startIssuerServer, type IssuerServer } from "../support/issuer-server.ts";
import { startRpcServer, type RpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";

const dirs: string[] = [];
const ledgers: Ledger[] = [];
afterEach(async () => {
  for (const l of ledgers.splice(0)) await l.close();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function ledger(): Promise<Ledger> {
  const dir = tempDir("cal-fair-");
  dirs.push(dir);
  const l = await openLedger(ledgerTarget(dir));
  ledgers.push(l);
  return l;
}

const T0 = Date.parse("2026-09-20T00:00:00Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);

describe("claims: round-robin by tenant", () => {
  test("a tenant that registered 100 wallets first does not hold back another tenant's first sync", async () => {
    const { db } = await ledger();
    const [a, b, c] = [await ensureTenant(db, "alpha"), await ensureTenant(db, "beta"), await ensureTenant(db, "gamma")];
    const tenantOf = new Map([
      [a, "alpha"],
      [b, "beta"],
      [c, "gamma"],
    ]);
    for (let i = 0; i < 100; i++) await registerAndEnqueue(db, a, 1000, address(`fair:a:${i}`), at(i));
    await registerAndEnqueue(db, b, 1000, address("fair:b:0"), at(200));
    await registerAndEnqueue(db, b, 1000, address("fair:b:1"), at(201));
    await registerAndEnqueue(db, c, 1000, address("fair:c:0"), at(202));
    const order: string[] = [];
    for (let i = 0; i < 7; i++) order.push(tenantOf.get((await claimJob(db, at(300 + i)))!.tenant_id)!);
    // The tenant with the fewest syncs running goes first; among equals, the one served longest ago.
    expect(order).toEqual(["alpha", "beta", "gamma", "alpha", "beta", "alpha", "alpha"]);
  });

  test("when a slot frees, it goes to the tenant with fewer syncs running, whatever the other has queued", async () => {
    const { db } = await ledger();
    const [a, b] = [await ensureTenant(db, "alpha"), await ensureTenant(db, "beta")];
    for (let i = 0; i < 10; i++) await registerAndEnqueue(db, a, 1000, address(`free:a:${i}`), at(i));
    const first = (await claimJob(db, at(20)))!;
    const second = (await claimJob(db, at(21)))!;
    expect([first.tenant_id, second.tenant_id]).toEqual([a, a]); // alone, a tenant gets every slot
    await registerAndEnqueue(db, b, 1000, address("free:b:0"), at(30));
    await finishJob(db, first.id, { gaps: [], transactionsFetched: 0 }, at(40));
    expect((await claimJob(db, at(41)))!.tenant_id).toBe(b);
  });

  test("the spare slot takes only a tenant with nothing running", async () => {
    const { db } = await ledger();
    const [a, b] = [await ensureTenant(db, "alpha"), await ensureTenant(db, "beta")];
    for (let i = 0; i < 4; i++) await registerAndEnqueue(db, a, 1000, address(`spare:a:${i}`), at(i));
    await claimJob(db, at(10));
    await claimJob(db, at(11));
    expect(await claimJob(db, at(12), { idleTenantOnly: true })).toBeNull(); // alpha's queued wallets wait for a slot of their own
    const wallet = address("spare:b:0");
    await registerAndEnqueue(db, b, 1000, wallet, at(13));
    const spare = (await claimJob(db, at(14), { idleTenantOnly: true }))!;
    expect([spare.tenant_id, spare.owner]).toEqual([b, wallet]);
    expect(await claimJob(db, at(15), { idleTenantOnly: true })).toBeNull();
  });
});

describe("ops status: a wallet waiting behind stuck syncs", () => {
  const ops = (db: Ledger["db"], now: Date) => opsStatus(db, { now, issuerPollSeconds: 3600, mintPollSeconds: 300, jobDeadlineSeconds: 1800, rpcErrors: () => ({ errors: 0, total: 0 }) });

  test("warns, naming no tenant or wallet, while a due sync waits and the running ones show no progress", async () => {
    const { db } = await ledger();
    const [a, b] = [await ensureTenant(db, "alpha"), await ensureTenant(db, "beta")];
    for (let i = 0; i < 2; i++) await registerAndEnqueue(db, a, 1000, address(`stuck:a:${i}`), at(i));
    await claimJob(db, at(10));
    await claimJob(db, at(10));
    const waiting = address("stuck:b:0");
    await registerAndEnqueue(db, b, 1000, waiting, at(20));

    // Moments later nothing is wrong yet.
    expect((await ops(db, at(30))).checks.find((c) => c.name === "sync_waiting_behind_stuck")).toMatchObject({ status: "ok", value: 0 });
    // Half a lease on, the two running syncs have said nothing since they started, and the wallet still waits.
    const later = at(10 + leaseSeconds / 2 + 60);
    const report = await ops(db, later);
    const check = report.checks.find((c) => c.name === "sync_waiting_behind_stuck")!;
    expect(check).toMatchObject({ status: "warn", value: 1 });
    expect(check.message).toMatch(/1 due sync has waited over 60 s while 2 running syncs show no progress for over 60 s/);
    const text = JSON.stringify(report);
    for (const secret of ["alpha", "beta", waiting, address("stuck:a:0")]) expect(text).not.toContain(secret);
  });
});

describe("the worker: another tenant's healthy wallet syncs while one tenant's syncs hang", () => {
  let running: { server: ServerHandle; rpc: RpcServer; issuer: IssuerServer } | null = null;
  afterEach(async () => {
    if (!running) return;
    await running.server.stop();
    running.rpc.stop();
    running.issuer.stop();
    running = null;
  });

  test("every slot held by hung syncs of tenant A: tenant B's wallet still reaches complete while A's hang", async () => {
    const s = buildWalletScenario({ transfers: 4, seed: 71 });
    const hung = [address("hung:a:0"), address("hung:a:1")];
    const rpc = startRpcServer(s.chain);
    // Tenant A's provider answers never come (within the test): every request about its wallets hangs.
    rpc.inject({ times: Infinity, match: (p) => hung.includes(p[0]), fault: { kind: "hang", ms: 120_000 } });
    const issuer = startIssuerServer(loadIssuerFixture());
    const dataDir = tempDir("cal-fair-worker-");
    dirs.push(dataDir);
    const server = await startServer(
      { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
      {
        quiet: true,
        env: { LOG_LEVEL: "error", SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: issuer.url, ISSUER_POLL_SECONDS: "3600", MINT_POLL_SECONDS: "3600", RESYNC_SECONDS: "0", SYNC_CONCURRENCY: "2" },
      },
    );
    running = { server, rpc, issuer };
    const keyOf = async (tenant: string) => (await createKey(server.ledger.db, { name: `k-${tenant}`, tenant, scopes: ["wallets:sync", "ledger:read"] })).key;
    const [ka, kb] = [await keyOf("alpha"), await keyOf("beta")];
    const status = async (key: string, owner: string) => (await call(server.url, `/v1/wallets/${owner}/status`, { key })).body.status as string;
    const until = async (what: string, check: () => Promise<boolean>) => {
      for (const end = Date.now() + 30_000; !(await check()); await Bun.sleep(50)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };

    for (const owner of hung) expect((await call(server.url, "/v1/wallets/sync", { key: ka, body: { owner } })).status).toBe(202);
    // Both slots are A's, and A's requests have reached the provider, which does not answer.
    await until("A's syncs to hang", async () => (await Promise.all(hung.map((o) => status(ka, o)))).every((x) => x === "running") && hung.every((o) => rpc.log.some((l) => l.params[0] === o)));

    expect((await call(server.url, "/v1/wallets/sync", { key: kb, body: { owner: s.owner } })).status).toBe(202);
    await until("B's wallet to complete", async () => (await status(kb, s.owner)) === "complete");
    expect(await Promise.all(hung.map((o) => status(ka, o)))).toEqual(["running", "running"]); // still hung
  }, 60_000);
});
