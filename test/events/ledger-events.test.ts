// The events the ledger writes to its outbox, through the real server (its worker thread, its own
// connection; SQLite, or PostgreSQL with CA_LEDGER_TEST_ENGINE) against loopback servers speaking
// the Solana JSON-RPC and xStocks wire formats: each change's event, written with it, for each
// tenant that follows the wallet and only for those (docs/events.md#event-types).
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { createSharedClock } from "../../src/sync/shared-clock.ts";
import { buildClosedScenario } from "../support/closed-chain.ts";
import { eventually, removeEventDirs, startEventServer, stopEventServers } from "../support/event-server.ts";
import { q } from "../support/sql.ts";
import { until } from "../support/until.ts";
import { addHolders, buildWalletScenario } from "../support/wallet-chain.ts";
import { seededRandom } from "../support/chain.ts";

afterEach(stopEventServers);
afterAll(removeEventDirs);
const start = startEventServer;

describe("the ledger's events", () => {
  test("registration ends with wallet.synced; the history its first sync booked is not replayed; a later change is action.booked, as GET /v2/actions lists it, then wallet.synced", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 51 });
    // Changes in force from their block times (a schedule in the past overwritten later would be superseded).
    s.addUpdate(1.0031, 1_789_000_000); // a change the wallet held through: its first sync books it
    const { key, events, register, read } = await start(s, { RESYNC_SECONDS: "1" });
    const k = await key("acme");
    expect((await register(k, s.owner)).status).toBe(202);
    const first = await eventually("the first sync's event", events, (e) => e.length > 0);
    expect(first.map((e) => [e.tenant, e.type, e.owner])).toEqual([["acme", "wallet.synced", s.owner]]);
    const status = await read(k, `/v1/wallets/${s.owner}/status`);
    expect(first[0]!.parsed.data).toMatchObject({ owner: s.owner, status: "complete", gaps: [], finishedAt: status.finishedAt });
    expect((await read(k, `/v2/actions?owner=${s.owner}`)).total).toBe(1); // booked, not told as an event

    // Re-syncs with nothing new tell nothing: wait for two more to finish.
    const finishedAt = async () => (await read(k, `/v1/wallets/${s.owner}/status`)).finishedAt as string;
    const seen = new Set([await finishedAt()]);
    await until("two more syncs", async () => seen.add(await finishedAt()).size >= 3, 60_000);
    expect((await events()).length).toBe(1);

    s.addUpdate(1.0042, 1_789_000_000); // a change already in force: the next sync books it
    const told = (x: { type: string; seq: number }) => x.type === "wallet.synced" && x.seq > 1;
    const all = await eventually("the change told", events, (e) => e.some(told));
    // What the sync that booked the change told, up to its wallet.synced. The next re-sync is a
    // second later (RESYNC_SECONDS), and on a busy machine it may have told more by the time the
    // list is read (a wallet.gap once, in CI): not this test's subject.
    const after = all.slice(0, all.findIndex(told) + 1);
    expect(after.map((e) => e.type)).toEqual(["wallet.synced", "action.booked", "wallet.synced"]);
    const booked = after[1]!;
    const listed = (await read(k, `/v2/actions?owner=${s.owner}`)).actions.find((a: { id: string }) => a.id === booked.parsed.data.id);
    expect(booked.parsed.data).toEqual(listed);
    expect(booked.parsed.data.lifecycle.state).toBe("activated");
    expect(booked.parsed.type).toBe("action.booked");
    expect(booked.parsed.timestamp).toBe(booked.parsed.timestamp.replace(/Z$/, "") + "Z");
    expect(Object.keys(booked.parsed)).toEqual(["type", "timestamp", "data"]);
  }, 120_000);

  test("the mint poll seeing a scheduled multiplier: action.scheduled once, then action.booked for the same action when it takes force", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 52 });
    const clock = createSharedClock();
    const { key, db, events, register, read } = await start(s, { MINT_POLL_SECONDS: "1" }, clock);
    const k = await key("acme");
    await register(k, s.owner);
    await eventually("registration", events, (e) => e.length === 1);

    const activation = Math.floor(Date.now() / 1000) + 3600; // an hour ahead: seen before it takes force
    s.addUpdate(1.0042, activation);
    const scheduled = await eventually("action.scheduled", events, (e) => e.some((x) => x.type === "action.scheduled"));
    const action = scheduled.find((x) => x.type === "action.scheduled")!.parsed.data;
    expect(action.lifecycle.state).toBe("confirmed");
    expect(action.owner).toBe(s.owner);
    expect((await read(k, `/v2/actions?owner=${s.owner}`)).actions).toEqual([action]);

    // Later polls and bookings of the unchanged schedule tell nothing more.
    const lastPoll = async () => (await db.get(...q<{ at: string }>`SELECT last_success_at AS at FROM feed_status WHERE name = 'mint_poll'`))?.at;
    const polls = new Set([await lastPoll()]);
    await until("two more mint polls", async () => polls.add(await lastPoll()).size >= 3, 60_000);
    expect((await events()).filter((e) => e.type === "action.scheduled")).toHaveLength(1);

    clock.set(new Date((activation + 1) * 1000));
    const booked = await eventually("action.booked", events, (e) => e.some((x) => x.type === "action.booked"));
    const b = booked.find((x) => x.type === "action.booked")!.parsed.data;
    expect(b.id).toBe(action.id);
    expect(b.lifecycle.state).toBe("activated");
    expect(booked.map((e) => e.type)).toEqual(["wallet.synced", "action.scheduled", "action.booked"]);
  }, 120_000);

  test("an issuer revision that changes a booked figure: action.revised, with the action as it now stands", async () => {
    const s = buildClosedScenario({ seed: 53 });
    const { key, events, register, read, issuer } = await start(s, { ISSUER_POLL_SECONDS: "1" });
    const k = await key("acme");
    await register(k, s.owner);
    await eventually("registration", events, (e) => e.length === 1);
    const [dividend] = (await read(k, `/v2/actions?owner=${s.owner}`)).actions;
    expect(dividend.type).toBe("cash_dividend");

    issuer.editRecord("7d20da53-6639-4781-bfa3-806ffa86f5cb", 2, { netCashflowUsd: "0.48" });
    const revised = await eventually("action.revised", events, (e) => e.some((x) => x.type === "action.revised"));
    expect(revised.map((e) => e.type)).toEqual(["wallet.synced", "action.revised"]);
    const data = revised[1]!.parsed.data;
    expect(data.id).toBe(dividend.id);
    expect(data.usd).not.toBe(dividend.usd);
    expect((await read(k, `/v2/actions?owner=${s.owner}`)).actions).toEqual([data]);
  }, 120_000);

  test("a sync ending with a named gap: wallet.gap with the gaps, once while they stay the same", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 54 });
    const victim = s.transfers[2]!.signature;
    const { rpc, key, events, register, read } = await start(s, { RESYNC_SECONDS: "1" });
    // The node cannot serve one of the wallet's transactions: every sync names it as a gap.
    rpc.inject({ method: "getTransaction", times: Infinity, match: (p) => p[0] === victim, fault: { kind: "answer", respond: (_p, id) => Response.json({ jsonrpc: "2.0", id, result: null }) } });
    const k = await key("acme");
    await register(k, s.owner);
    const told = await eventually("wallet.gap", events, (e) => e.some((x) => x.type === "wallet.gap"));
    const gap = told.find((x) => x.type === "wallet.gap")!.parsed.data;
    expect(gap.status).toBe("partial");
    expect(gap.gaps.map((g: { reason: string }) => g.reason).join(" ")).toContain(victim);

    const finishedAt = async () => (await read(k, `/v1/wallets/${s.owner}/status`)).finishedAt as string;
    const seen = new Set([await finishedAt()]);
    await until("two more syncs with the same gap", async () => seen.add(await finishedAt()).size >= 3, 60_000);
    expect((await events()).filter((e) => e.type === "wallet.gap")).toHaveLength(1);
    expect((await read(k, `/v1/wallets/${s.owner}/status`)).gaps).toEqual(gap.gaps);
  }, 120_000);

  test("tenancy: each tenant is told of its own wallets only, and of a wallet both follow, each with its own event", async () => {
    const s = buildWalletScenario({ transfers: 6, seed: 55 });
    const [other] = addHolders(s, 1, seededRandom(56), 3);
    const { key, db, events, register } = await start(s, { RESYNC_SECONDS: "1" });
    const acme = await key("acme"),
      globex = await key("globex");
    await register(acme, s.owner);
    await register(globex, other!.owner);
    await eventually("both registrations", events, (e) => e.length === 2);
    await register(globex, s.owner); // globex follows acme's wallet too
    await eventually("globex's second registration", events, (e) => e.length === 3);

    s.addUpdate(1.0042, 1_790_100_000); // a change in force for every HONx holder
    const all = await eventually("the change told to both tenants", events, (e) => e.filter((x) => x.type === "action.booked").length === 3);
    const booked = all
      .filter((e) => e.type === "action.booked")
      .map((e) => [e.tenant, e.owner, e.parsed.data.owner])
      .sort();
    expect(booked).toEqual(
      [
        ["acme", s.owner, s.owner],
        ["globex", other!.owner, other!.owner],
        ["globex", s.owner, s.owner],
      ].sort(),
    );
    // acme is never told of the wallet only globex follows, in any event's row or body.
    expect(all.filter((e) => e.tenant === "acme" && (e.owner === other!.owner || e.body.includes(other!.owner)))).toEqual([]);

    // Stored as the wallet's values and a template the chunk's events share (docs/events.md#what-the-outbox-stores):
    // both tenants' events of the wallet they both follow are one template and the same values,
    // a fraction of the body each is sent with.
    const stored = await db.all(
      ...q<{ seq: number; owner: string; template_id: number | null; body: string }>`SELECT seq, owner, template_id, body FROM events WHERE type = 'action.booked' ORDER BY seq`,
    );
    const shared = stored.filter((r) => r.owner === s.owner);
    expect(shared).toHaveLength(2);
    expect(shared[0]!.template_id).not.toBeNull();
    expect({ ...shared[1]!, seq: 0 }).toEqual({ ...shared[0]!, seq: 0 });
    for (const r of stored) expect(r.body.length).toBeLessThan(all.find((e) => Number(e.seq) === Number(r.seq))!.body.length / 2);
  }, 120_000);
});
