// Complete histories against a loopback JSON-RPC server and a real SQLite ledger: a wallet that
// sold its HONx and closed the token account keeps the dividend it received before (found
// through its own history with the standard methods, or through getTransactionsForAddress where
// the provider offers it, with the same books and far fewer calls), and a provider without the
// fast path is asked once per process.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { openLedger } from "../../src/ledger/db.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { createLogger } from "../../src/log.ts";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline.ts";
import { createRpc } from "../../src/sources/solana/rpc.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { runSyncJob } from "../../src/sync/job.ts";
import { claimJob, registerAndEnqueue } from "../../src/ledger/queue.ts";
import { buildClosedScenario, HONX_DIVIDEND_AT } from "../support/closed-chain.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer, type RpcServer } from "../support/rpc-server.ts";
import { HONX_MINT } from "../support/wallet-chain.ts";
import { ledgerTarget, ledgerFlags } from "../support/engine.ts";
import { q, type Statement } from "../support/sql.ts";
import { actionRecords } from "../../src/ledger/queries/actions.ts";
import { portfolioQueries } from "../../src/ledger/queries/portfolio.ts";

const dirs: string[] = [];
const servers: { stop(): void }[] = [];
afterAll(() => {
  for (const s of servers) s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function serve(chain: ReturnType<typeof buildClosedScenario>["chain"], fastPath: boolean): RpcServer {
  const server = startRpcServer({ ...chain, servesTransactionsForAddress: fastPath });
  servers.push(server);
  return server;
}

async function ledgerSynced(rpcUrl: string, owner: string, tenants = ["acme"]) {
  const issuer = startIssuerServer(loadIssuerFixture());
  servers.push(issuer);
  const dir = mkdtempSync(join(tmpdir(), "cal-complete-"));
  dirs.push(dir);
  const config = loadConfig({ ...ledgerFlags(dir), "solana-rpc-url": rpcUrl, "xstocks-api-url": issuer.url }, {});
  const ledger = await openLedger(ledgerTarget(dir));
  const now = () => new Date("2026-09-20T00:00:00Z");
  const deps = { config, db: ledger.db, logger: createLogger("error"), now, book: async () => void (await bookEverythingDirty(ledger.db, now())) };
  await pollIssuer(deps);
  const outcomes: string[] = [];
  for (const tenant of tenants) {
    await registerAndEnqueue(ledger.db, await ensureTenant(ledger.db, tenant), 100, owner);
    outcomes.push(await runSyncJob(deps, (await claimJob(ledger.db))!));
  }
  return { ledger, db: ledger.db, outcomes, deps };
}

const rows = <T>(db: Sql, [stmt, values]: Statement<T>) => db.all(stmt, values);

describe("a closed token account", () => {
  test("is found through the wallet's own history; the dividend received before the close stays in the books", async () => {
    const s = buildClosedScenario();
    const rpc = serve(s.chain, false);
    const { db, outcomes } = await ledgerSynced(rpc.url, s.owner);
    expect(outcomes).toEqual(["complete"]);
    expect(await rows(db, q`SELECT address, mint, raw_balance FROM token_accounts WHERE owner = ${s.owner}`)).toEqual([{ address: s.closedAccount, mint: HONX_MINT, raw_balance: "0" }]);
    expect((await rows(db, q<{ signature: string }>`SELECT signature FROM balance_changes WHERE owner = ${s.owner} ORDER BY slot`)).map((r) => r.signature)).toEqual(s.signatures.slice(0, 2));

    // The dividend of 2026-08-14 (matched to the issuer's record) was received while the account held 250 units.
    const actions = await rows(
      db,
      q<{ type: string; usd: string; effective_at: string }>`SELECT e.type, a.usd, a.effective_at FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ${s.owner}`,
    );
    expect(actions.map((a) => [a.type, a.effective_at])).toEqual([["cash_dividend", new Date(HONX_DIVIDEND_AT * 1000).toISOString()]]);
    expect((await actionRecords(db, { owners: [s.owner] }))[0]!.rawBalance).toBe(s.held.toString());
    expect(Number(actions[0]!.usd)).toBeGreaterThan(100); // 0.49 USD a share on about 250 shares
    const journal = await rows(db, q<{ usd: string }>`SELECT usd FROM journal WHERE owner = ${s.owner} AND entry_type = 'recognition'`);
    expect(journal.map((j) => j.usd)).toEqual([actions[0]!.usd]);
    // The position ends at 0 and keeps its income (the portfolio holds both).
    const portfolio = JSON.parse(await portfolioQueries(db).portfolio(s.owner));
    expect(portfolio.totals.exact.incomeUsd).toBe(actions[0]!.usd);
    expect(portfolio.positions).toHaveLength(1);
    expect(portfolio.positions[0]).toMatchObject({ mint: HONX_MINT, rawBalance: "0", status: "ok", exact: { incomeUsd: actions[0]!.usd } });
  });

  test("a second tenant's first sync finds it without fetching the wallet's transactions again; a re-sync books nothing new", async () => {
    const s = buildClosedScenario({ seed: 5 });
    const rpc = serve(s.chain, false);
    const { db, outcomes, deps } = await ledgerSynced(rpc.url, s.owner, ["acme"]);
    expect(outcomes).toEqual(["complete"]);
    const fetched = rpc.log.length;
    const journal = (await rows(db, q`SELECT id FROM journal`)).length;
    await registerAndEnqueue(db, await ensureTenant(db, "globex"), 100, s.owner);
    expect(await runSyncJob(deps, (await claimJob(db))!)).toBe("complete");
    // Only the close is read again: it changed no balance, so no stored change stands for it.
    expect(
      rpc.log
        .slice(fetched)
        .filter((l) => l.method === "getTransaction")
        .map((l) => l.params[0]),
    ).toEqual([s.signatures[2]]);
    expect((await rows(db, q`SELECT id FROM journal`)).length).toBe(journal);
    // Both tenants' walks of the wallet's address and of the closed account stand at their newest signature.
    const cursors = await rows(
      db,
      q<{ scope: string; address: string; newest_signature: string }>`SELECT scope, address, newest_signature FROM walk_cursors WHERE scope LIKE 'tenant:%' ORDER BY scope, address`,
    );
    expect(cursors.map((c) => c.newest_signature)).toEqual(Array(4).fill(s.signatures[2]));
  });
});

describe("getTransactionsForAddress", () => {
  test("the same books with far fewer calls; the closed account comes with the wallet's history", async () => {
    const s = buildClosedScenario({ seed: 8 });
    const standard = serve(s.chain, false);
    const fast = serve(s.chain, true);
    const a = await ledgerSynced(standard.url, s.owner);
    const b = await ledgerSynced(fast.url, s.owner);
    expect(b.outcomes).toEqual(["complete"]);
    const books = (db: Sql) => rows(db, q`SELECT a.id, e.type, a.usd, a.payload_sha256 FROM actions a JOIN action_events e ON e.id = a.event_id ORDER BY a.id`);
    expect(await books(b.db)).toEqual(await books(a.db));
    expect(await books(b.db)).toHaveLength(1);
    const walletCalls = (server: RpcServer) => server.log.filter((l) => l.method !== "getTransaction" || !s.chain.signatures.get(s.authority)!.some((x) => x.signature === l.params[0]));
    const fastMethods = walletCalls(fast).map((l) => l.method);
    expect(fastMethods.filter((m) => m === "getTransactionsForAddress")).toHaveLength(1);
    expect(fastMethods).not.toContain("getTransaction");
    expect(fast.log.filter((l) => l.method === "getSignaturesForAddress").map((l) => l.params[0])).toEqual([s.authority]); // only the authority
    expect(walletCalls(fast).length).toBeLessThan(walletCalls(standard).length);
    // The request as the providers document it.
    expect(fast.log.find((l) => l.method === "getTransactionsForAddress")!.params).toEqual([
      s.owner,
      {
        transactionDetails: "full",
        sortOrder: "asc",
        limit: 100,
        commitment: "finalized",
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        filters: { status: "succeeded", tokenAccounts: "balanceChanged", slot: { gte: 111_491_819 } },
      },
    ]);
  });

  test("pages with paginationToken; the next sync starts at the newest transaction read", async () => {
    const s = buildClosedScenario({ seed: 9 });
    for (let i = 0; i < 240; i++) s.addTransfer(BigInt(1 + i)); // an open account with a long history
    const server = serve(s.chain, true);
    const rpc = createRpc({ url: server.url, baseDelayMs: 1 });
    const first = await syncWalletChain(rpc, s.owner, {}, { now: () => 1_790_000_000 });
    expect(first.gaps).toEqual([]);
    expect(first.historyMethod).toBe("getTransactionsForAddress");
    expect(first.balanceChanges).toHaveLength(2 + 240);
    const pages = server.log.filter((l) => l.method === "getTransactionsForAddress");
    expect(pages.map((l) => l.params[1].paginationToken ?? null)).toEqual([null, expect.stringMatching(/^\d+:\d+$/), expect.stringMatching(/^\d+:\d+$/)]);
    const last = s.transfers.at(-1)!.signature;
    expect(first.cursors.history).toEqual({ newest: last, newestSlot: s.chain.transactions.get(last)!.slot, resume: null });

    const added = s.addTransfer(7n);
    const before = server.log.length;
    const next = await syncWalletChain(rpc, s.owner, first.cursors, { now: () => 1_790_000_000 });
    expect(next.gaps).toEqual([]);
    expect(next.balanceChanges.map((c) => c.signature)).toEqual([added]);
    const again = server.log.slice(before).filter((l) => l.method === "getTransactionsForAddress");
    expect(again.map((l) => l.params[1].filters.slot.gte)).toEqual([first.cursors.history!.newestSlot]);
  });

  test("history from before the provider's token-account filter is read the standard way for that account", async () => {
    const s = buildClosedScenario({ seed: 10, incomingBuy: true });
    const server = serve(s.chain, true);
    const r = await syncWalletChain(createRpc({ url: server.url, baseDelayMs: 1 }), s.owner, {}, { now: () => 1_790_000_000 });
    expect(r.gaps).toEqual([]);
    expect(r.historyMethod).toBe("getTransactionsForAddress");
    expect(r.balanceChanges.map((c) => c.signature)).toEqual(s.signatures.slice(0, 2));
    expect(server.log.filter((l) => l.method === "getSignaturesForAddress").map((l) => l.params[0])).toContain(s.closedAccount);
  });

  test("an account read the standard way with a gap keeps the wallet's history cursor: the next sync reads the stretch again", async () => {
    const s = buildClosedScenario({ seed: 12, incomingBuy: true });
    const buy = s.signatures[0]!;
    const faulty = serve(s.chain, true);
    faulty.inject({ method: "getTransaction", times: Infinity, match: (p) => p[0] === buy, fault: { kind: "status", status: 500 } });
    const now = () => 1_790_000_000;
    const first = await syncWalletChain(createRpc({ url: faulty.url, baseDelayMs: 1, maxRetries: 1 }), s.owner, {}, { now });
    expect(first.historyMethod).toBe("getTransactionsForAddress");
    expect(first.gaps.map((g) => g.address)).toEqual([s.closedAccount]);
    expect(first.gaps[0]!.reason).toContain(buy);
    expect(first.cursors.history).toBeUndefined();
    expect(first.ownerScans).toEqual([]);

    const healthy = serve(s.chain, true);
    const next = await syncWalletChain(createRpc({ url: healthy.url, baseDelayMs: 1 }), s.owner, first.cursors, { now });
    expect(next.gaps).toEqual([]);
    expect(next.balanceChanges.map((c) => c.signature)).toEqual(s.signatures.slice(0, 2));
    expect(next.cursors.history).toBeDefined();
  });

  test("a provider without it answers 'method not found' once: the process remembers its URL", async () => {
    const s = buildClosedScenario({ seed: 11 });
    const server = serve(s.chain, false);
    const first = await syncWalletChain(createRpc({ url: server.url }), s.owner, {}, { now: () => 1_790_000_000 });
    expect(first.historyMethod).toBe("standard");
    expect(first.gaps).toEqual([]);
    expect(first.accounts.map((a) => [a.tokenAccount, a.rawBalance])).toEqual([[s.closedAccount, 0n]]);
    await syncWalletChain(createRpc({ url: server.url }), s.owner, first.cursors, { now: () => 1_790_000_000 });
    expect(server.log.filter((l) => l.method === "getTransactionsForAddress")).toHaveLength(1);
  });
});
