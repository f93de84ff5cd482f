// Crash safety with two servers on one PostgreSQL ledger: both serve and sync from loopback
// Solana RPC and xStocks servers, sharing the queue and the booking; at seeded random points one
// of them (either, sometimes both) is SIGKILLed and started again, while new chain updates,
// issuer records and corrections arrive. A killed server's claimed jobs are taken over after
// their lease and its claimed marks at once (its connections end). At the end both servers have
// synced, every job is finished, and the ledger is exactly what a clean rebuild from the same
// observations gives, and verifies.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sameFigures } from "../../src/domain/journal.ts";
import type { JournalBooking } from "../../src/domain/types.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { cleanRebuild, jobStates, movingWorld, pendingBooking, serve, standing, sumDecimals, type Serving } from "../ops/crash-world.ts";
import { cli, ensureBinary, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { seededRandom } from "../support/chain.ts";
import { freshDatabase } from "../support/engine.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { serverEnv } from "../support/server-env.ts";
import { addHolders, buildWalletScenario } from "../support/wallet-chain.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

const KILLS = Number(process.env.CRASH_TEST_KILLS ?? 40);
const SEED = 20261123;

const rpcRequests = async (s: Serving, key: string) => {
  const text = await (await fetch(`${s.url}/v1/ops/metrics`, { headers: { authorization: `Bearer ${key}` } })).text();
  return [...text.matchAll(/^caledger_rpc_requests_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
};

describe("crash safety, two servers on one PostgreSQL ledger", () => {
  test(`SIGKILL of either server at ${KILLS} seeded points: the ledger settles to a clean rebuild`, async () => {
    const bin = ensureBinary();
    const random = seededRandom(SEED + 1);
    const s = buildWalletScenario({ transfers: 16, seed: SEED });
    const owners = [s.owner, ...addHolders(s, 5, random).map((h) => h.owner)];
    const rpc = startRpcServer(s.chain);
    const issuer = startIssuerServer(loadIssuerFixture());
    const url = freshDatabase("crash");
    const dirs = [tempDir("cal-crash-a-"), tempDir("cal-crash-b-")];
    const env = serverEnv(
      dirs[0]!,
      { rpcUrl: rpc.url, issuerUrl: issuer.url },
      { DATABASE_URL: url, ISSUER_POLL_SECONDS: "1", MINT_POLL_SECONDS: "1", CA_LEDGER_SYNC_LEASE_SECONDS: "2", CA_LEDGER_BOOKING_CHUNK_WALLETS: "1" },
    );
    const watch = await openLedger({ dataDir: dirs[0]!, databaseUrl: url });
    const db = watch.db;
    const servers: (Serving | null)[] = [null, null];
    try {
      const keys = ["crash-a", "crash-b"].map((tenant) => {
        const r = cli(["keys", "create", tenant, "--tenant", tenant, "--scopes", "wallets:sync,ledger:read,ops:read", "--json", "--data-dir", dirs[0]!], env);
        expect(r.code).toBe(0);
        return JSON.parse(r.stdout).key as string;
      });
      const up = async (i: number) => (servers[i] ??= await serve(bin, dirs[i]!, env, join(dirs[i]!, "serve.log")));
      const kill = async (i: number) => {
        const server = servers[i];
        if (!server) return;
        server.proc.kill("SIGKILL");
        await server.proc.exited;
        expect(server.proc.signalCode).toBe("SIGKILL");
        servers[i] = null;
      };
      const requestSync = (server: Serving, key: string, owner: string) =>
        fetch(`${server.url}/v1/wallets/sync`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ owner }) })
          .then(
            (r) => r.status,
            () => 202,
          )
          .then((status) => expect(status).toBe(202));

      const world = movingWorld(s, issuer, random);
      const events = world.events;
      let kills = 0,
        killsWithBookingPending = 0;
      const killed = [0, 0];
      for (let round = 0; round < KILLS; round++) {
        world.step();
        const both = [await up(0), await up(1)];
        const requests = owners.filter(() => random() < 0.5).map((o) => requestSync(both[Math.floor(random() * 2)]!, keys[Math.floor(random() * keys.length)]!, o));
        if (random() < 0.3) {
          for (let waited = 0; waited < 1500 && !(await pendingBooking(db)); waited += 5) await Bun.sleep(5);
        } else {
          await Bun.sleep(10 + Math.floor(random() * 600));
        }
        const victims = random() < 0.15 ? [0, 1] : [Math.floor(random() * 2)];
        for (const i of victims) {
          await kill(i);
          killed[i]!++;
        }
        await Promise.all(requests);
        kills++;
        if (await pendingBooking(db)) killsWithBookingPending++;
      }

      // Both up; every wallet of every tenant asked once more, through either server; wait for the queue.
      const both = [await up(0), await up(1)];
      let n = 0;
      for (const key of keys)
        for (const o of owners)
          expect(
            (
              await fetch(`${both[n++ % 2]!.url}/v1/wallets/sync`, {
                method: "POST",
                headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
                body: JSON.stringify({ owner: o }),
              })
            ).status,
          ).toBe(202);
      const deadline = Date.now() + 150_000;
      let states = await jobStates(db);
      while (Date.now() < deadline && ((states.queued ?? 0) + (states.running ?? 0) > 0 || (states.complete ?? 0) + (states.partial ?? 0) < owners.length * keys.length)) {
        await Bun.sleep(250);
        states = await jobStates(db);
      }
      await Bun.sleep(2500);
      // Both workers synced: each server asked the RPC provider for something since its last start.
      const asked = await Promise.all(both.map((server) => rpcRequests(server, keys[0]!)));
      for (const server of both) server.proc.kill("SIGTERM");
      expect(await Promise.all(both.map((server) => server.proc.exited))).toEqual([0, 0]);
      servers.fill(null);

      console.log(
        `crash test (PostgreSQL, two servers): ${kills} kill points (${killed.join(" and ")} per server, ${killsWithBookingPending} with observations not yet booked), ${events.length} dividends, jobs ${JSON.stringify(states)}`,
      );
      expect(killed.every((k) => k >= 10)).toBe(true);
      expect(killsWithBookingPending).toBeGreaterThan(0);
      expect(asked.every((calls) => calls > 0)).toBe(true);
      expect(Object.keys(states).filter((k) => k !== "complete" && k !== "partial")).toEqual([]);
      expect((states.complete ?? 0) + (states.partial ?? 0)).toBe(owners.length * keys.length);
      expect((await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM journal WHERE entry_type = 'reversal'`))!.n).toBeGreaterThan(0);

      const crashed = await standing(db);
      const clean = await cleanRebuild(db);
      const keyOf = (r: { owner: string; action_id: string }) => `${r.owner} ${r.action_id}`;
      expect(new Set(crashed.rows.map(keyOf)).size).toBe(crashed.rows.length);
      expect(crashed.rows.map(keyOf).sort()).toEqual(clean.rows.map(keyOf).sort());
      const cleanByKey = new Map(clean.rows.map((r) => [keyOf(r), JSON.parse(r.payload) as JournalBooking]));
      for (const r of crashed.rows) expect({ key: keyOf(r), same: sameFigures(JSON.parse(r.payload), cleanByKey.get(keyOf(r))!) }).toEqual({ key: keyOf(r), same: true });
      const incomeOf = (x: typeof crashed) => Object.fromEntries(x.income.map((i) => [i.owner, sumDecimals(i.usd)]).filter(([, v]) => v !== "0"));
      expect(incomeOf(crashed)).toEqual(incomeOf(clean));
      expect(crashed.rows.length).toBeGreaterThan(0);

      const v = cli(["verify", "--data-dir", dirs[0]!], env);
      if (v.code !== 0) console.log(v.stdout, v.stderr);
      expect(v.code).toBe(0);
    } finally {
      for (const server of servers) server?.proc.kill("SIGKILL");
      await watch.close();
      rpc.stop();
      issuer.stop();
    }
  }, 300_000);
});
