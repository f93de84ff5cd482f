// Following wallets for ever, through the real server (its worker thread, its own SQLite
// connection) against loopback servers speaking the Solana JSON-RPC and xStocks wire formats:
// scheduled re-syncs, the mint poll, and what one tenant sees of a wallet another follows.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { call } from "../harness/index.ts";
import { removeEventDirs, startEventServer, stopEventServers } from "../support/event-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";
import { createSharedClock } from "../../src/sync/shared-clock.ts";

afterEach(stopEventServers);
afterAll(removeEventDirs);

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

const statusOf = (url: string, key: string, owner: string) => call(url, `/v1/wallets/${owner}/status`, { key }).then((r) => r.body);
const finished = (url: string, key: string, owner: string) =>
  until(`${owner} synced`, async () => {
    const s = await statusOf(url, key, owner);
    return s.status === "complete" || s.status === "partial" ? s : undefined;
  });
const actionsOf = (url: string, key: string, owner: string) => call(url, `/v2/actions?owner=${owner}`, { key }).then((r) => r.body);

describe("following", () => {
  test("every followed wallet is re-synced on its schedule: a change after its first sync is booked without anyone asking", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 31 });
    const { server, key } = await startEventServer(s, { RESYNC_SECONDS: "1" });
    const k = await key("acme");
    expect((await call(server.url, "/v1/wallets/sync", { key: k, body: { owner: s.owner } })).status).toBe(202);
    const first = await finished(server.url, k, s.owner);
    expect((await actionsOf(server.url, k, s.owner)).total).toBe(0);
    expect(first.nextRetryAt).toBeNull();

    // The issuer changes HONx's multiplier after the first sync (an unknown change: no record).
    s.addUpdate(1.0031, 1_790_000_000);
    const booked = await until("the re-sync to book the change", async () => {
      const a = await actionsOf(server.url, k, s.owner);
      return a.total > 0 ? a : undefined;
    });
    expect(booked.actions.map((a: { type: string; lifecycle: { state: string } }) => [a.type, a.lifecycle.state])).toEqual([["unknown", "activated"]]);
    const later = await statusOf(server.url, k, s.owner);
    expect(Date.parse(later.requestedAt)).toBeGreaterThan(Date.parse(first.finishedAt)); // requested by the schedule, not by us
    expect(later.attempts).toBe(1);
  }, 30_000);

  test("the mint poll shows a newly scheduled multiplier as confirmed before it takes force, and books it when it does, with no sync", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 32 });
    const clock = createSharedClock(); // the worker's: the wall clock until the test moves it
    const { server, rpc, key } = await startEventServer(s, { MINT_POLL_SECONDS: "1" }, clock);
    const k = await key("acme");
    await call(server.url, "/v1/wallets/sync", { key: k, body: { owner: s.owner } });
    const synced = await finished(server.url, k, s.owner);

    // An hour ahead: however slow the machine, the worker sees it before it takes force.
    const activation = Math.floor(Date.now() / 1000) + 3600;
    s.addUpdate(1.0042, activation);
    const confirmed = await until("a confirmed action", async () => {
      const a = await actionsOf(server.url, k, s.owner);
      return a.total > 0 ? a.actions[0] : undefined;
    });
    expect(confirmed.lifecycle.state).toBe("confirmed");
    expect((await call(server.url, `/v1/journal?owner=${s.owner}`, { key: k })).body.total).toBe(0); // nothing booked before it takes force

    // The worker's clock passes the activation: its next mint poll finds the change due.
    clock.set(new Date((activation + 1) * 1000));
    const activated = await until("the activation to be booked", async () => {
      const a = await actionsOf(server.url, k, s.owner);
      return a.actions[0]?.lifecycle.state === "activated" ? a.actions[0] : undefined;
    });
    expect(activated.id).toBe(confirmed.id);
    expect((await call(server.url, `/v1/journal?owner=${s.owner}`, { key: k })).body.total).toBe(1);
    // No wallet sync ran for it: the job is the one that finished before, and the wallet's token
    // account was never asked for again.
    expect((await statusOf(server.url, k, s.owner)).finishedAt).toBe(synced.finishedAt);
    const listed = rpc.log.filter((l) => l.method === "getTokenAccountsByOwner");
    expect(listed).toHaveLength(1);
    expect(rpc.log.some((l) => l.method === "getMultipleAccounts")).toBe(true);
  }, 30_000);
});

describe("tenancy", () => {
  test("a tenant sees a wallet's books only after its own sync, and its counts are those it would see alone", async () => {
    const s = buildWalletScenario({ transfers: 60, seed: 33 });
    s.addUpdate(1.0031, 1_790_000_000); // one change the wallet held through, so there are books
    const { server, rpc, key } = await startEventServer(s, {});
    const a = await key("acme"),
      b = await key("globex");
    await call(server.url, "/v1/wallets/sync", { key: a, body: { owner: s.owner } });
    const statusA = await finished(server.url, a, s.owner);
    const wanted = s.transfers.length;
    expect(statusA.transactionsFetched).toBe(wanted);
    const booksA = await actionsOf(server.url, a, s.owner);
    expect(booksA.total).toBe(1);

    // B's first sync is held at its first call; meanwhile B sees a registered wallet with no books.
    rpc.inject({ method: "getTokenAccountsByOwner", times: 1, fault: { kind: "hang", ms: 1500 } });
    await call(server.url, "/v1/wallets/sync", { key: b, body: { owner: s.owner } });
    expect((await statusOf(server.url, b, s.owner)).status).toMatch(/queued|running/);
    expect((await actionsOf(server.url, b, s.owner)).total).toBe(0);
    const portfolio = (await call(server.url, `/v1/portfolio?owner=${s.owner}`, { key: b })).body;
    expect(portfolio.positions).toEqual([]);
    expect((await call(server.url, `/v1/journal?owner=${s.owner}`, { key: b })).body.total).toBe(0);
    expect((await call(server.url, `/v2/actions/${booksA.actions[0].id}?owner=${s.owner}`, { key: b })).status).toBe(404);

    // Then B sees the same books, and the same count A was given: no transaction was fetched
    // again for B (they were stored), but B's own walk covered them all.
    const fetchedBefore = rpc.log.filter((l) => l.method === "getTransaction").length;
    const statusB = await finished(server.url, b, s.owner);
    expect(statusB.transactionsFetched).toBe(wanted);
    expect(rpc.log.filter((l) => l.method === "getTransaction").length).toBe(fetchedBefore);
    expect((await actionsOf(server.url, b, s.owner)).actions).toEqual(booksA.actions);
  }, 30_000);
});

describe("what a first sync shows of another tenant's interest", () => {
  test("a wallet another tenant follows: the same status, counts and books as alone; only the provider calls it makes (its time) differ", async () => {
    const scenario = () => {
      const s = buildWalletScenario({ transfers: 60, seed: 34 });
      s.addUpdate(1.0031, 1_790_000_000);
      return s;
    };
    /** B's first sync of the wallet: what B is told, and the provider calls the sync made. */
    const firstSyncOfB = async (others: string[]) => {
      const s = scenario();
      const { server, rpc, key } = await startEventServer(s, {});
      for (const tenant of others) {
        const k = await key(tenant);
        await call(server.url, "/v1/wallets/sync", { key: k, body: { owner: s.owner } });
        await finished(server.url, k, s.owner);
      }
      const b = await key("globex");
      const before = rpc.log.length;
      await call(server.url, "/v1/wallets/sync", { key: b, body: { owner: s.owner } });
      const status = await finished(server.url, b, s.owner);
      const calls: Record<string, number> = {};
      for (const l of rpc.log.slice(before)) calls[l.method] = (calls[l.method] ?? 0) + 1;
      const read = async (path: string) => (await call(server.url, path, { key: b })).body;
      const { requestedAt: _r, startedAt: _s, finishedAt: _f, ...told } = status;
      const { asOf: _a, ...portfolio } = await read(`/v1/portfolio?owner=${s.owner}`);
      return {
        told: { ...told, nextSyncAt: undefined },
        books: { actions: await read(`/v2/actions?owner=${s.owner}`), portfolio, income: await read(`/v1/income?owner=${s.owner}`) },
        calls,
        transfers: s.transfers.length,
      };
    };
    const alone = await firstSyncOfB([]);
    const followed = await firstSyncOfB(["acme"]);
    // Told the same: state, progress, transactionsFetched, gaps, attempts; the same books.
    expect(followed.told).toEqual(alone.told);
    expect(followed.told.transactionsFetched).toBe(alone.transfers);
    expect(followed.books).toEqual(alone.books);
    expect(alone.books.actions.total).toBe(1);
    // What differs is what docs/following.md#what-timing-reveals says: the wallet's transactions
    // were stored by the other tenant's sync, so B's fetches none of them again (and no other
    // call more than alone): fewer calls, so less time, and nothing else.
    expect(alone.calls.getTransaction).toBeGreaterThanOrEqual(alone.transfers);
    expect(followed.calls.getTransaction ?? 0).toBe(0);
    for (const [method, n] of Object.entries(followed.calls)) expect({ method, atMost: n <= (alone.calls[method] ?? 0) }).toEqual({ method, atMost: true });
  }, 60_000);
});
