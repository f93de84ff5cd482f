import { afterEach, describe, expect, test } from "bun:test";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline";
import type { SyncProgress, WalletChainSync } from "../../src/sources/solana/chain-read/types";
import { DEADLINE_GAP } from "../../src/sources/solana/chain-read/walk-common";
import { findMultiplierUpdates } from "../../src/sources/solana/decode";
import type { WalkCursor } from "../../src/sources/solana/signatures";
import { createRpc, RpcTransportError, type RpcConfig } from "../../src/sources/solana/rpc";
import { TOKEN_2022_PROGRAM_ID } from "../../src/sources/solana/wire";
import { XSTOCKS_AUTHORITY, encodeMint, encodeTokenAccount, randomAddress, randomSignature, readFixture, seededRandom, updateMultiplierTx } from "../support/chain";
import { addTransaction, startRpcServer, type RpcServer } from "../support/rpc-server";
import { HONX_MINT, buildWalletScenario, type WalletScenario } from "../support/wallet-chain";

const HONX_STEPS = readFixture("xstocks/HONx.json").multiplierHistory.length; // 8 real steps
const servers: RpcServer[] = [];
afterEach(() => {
  while (servers.length) servers.pop()!.stop();
});

function serve(s: WalletScenario): RpcServer {
  const server = startRpcServer(s.chain);
  servers.push(server);
  return server;
}

function client(server: RpcServer, extra: Partial<RpcConfig> = {}) {
  return createRpc({ url: server.url, concurrency: 16, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 2000, ...extra });
}

/** What a sync says about the world, without its bookkeeping. */
function observations(r: WalletChainSync) {
  return { accounts: r.accounts, balanceChanges: r.balanceChanges, mints: r.mints, multiplierUpdates: r.multiplierUpdates, cursors: r.cursors, gaps: r.gaps };
}

const now = () => 1_790_000_000;
const at = (newest: string): WalkCursor => ({ newest, resume: null });

/** Every UpdateMultiplier the authority ever signed in the scenario's chain, oldest first. */
function allAuthorityUpdates(s: WalletScenario) {
  return [...s.chain.signatures.get(XSTOCKS_AUTHORITY)!].reverse().flatMap((x) => findMultiplierUpdates(s.chain.transactions.get(x.signature)!, { signature: x.signature }));
}

describe("a full sync, then incremental ones", () => {
  test("2,500 signatures across three pages; cursors make the next syncs fetch only what is new", async () => {
    const s = buildWalletScenario({ transfers: 2500 });
    const server = serve(s);
    const rpc = client(server);
    const phases = new Map<string, SyncProgress>();
    const first = await syncWalletChain(rpc, s.owner, {}, { now, onProgress: (p) => phases.set(p.phase, p) });

    expect(first.gaps).toEqual([]);
    expect(first.accounts).toEqual([{ owner: s.owner, tokenAccount: s.tokenAccount, mint: HONX_MINT, rawBalance: s.balance, slot: s.chain.slot }]);
    // Every successful transfer, oldest first, raw amounts exactly.
    expect(first.balanceChanges.map((c) => [c.signature, c.preRaw, c.postRaw])).toEqual(s.transfers.map((t) => [t.signature, t.pre, t.post]));
    expect(first.balanceChanges.at(-1)!.postRaw).toBe(s.balance);
    const signaturePages = server.log.filter((l) => l.method === "getSignaturesForAddress" && l.params[0] === s.tokenAccount);
    expect(signaturePages.map((l) => l.params[1].before ?? null)).toHaveLength(3);
    expect(s.chain.signatures.get(s.tokenAccount)!.length).toBe(2500);

    expect(first.mints).toEqual([
      {
        mint: HONX_MINT,
        slot: s.chain.slot,
        decimals: 8,
        multiplierAuthority: XSTOCKS_AUTHORITY,
        multiplier: 0.9990655067370947,
        newMultiplier: 1.0011576563945983,
        newMultiplierEffectiveTimestamp: 1786667400,
        observedAt: now(),
      },
    ]);
    // The authority's whole history is kept, for every mint it controls (walked once, for every
    // wallet): HONx's steps and the recorded VRTx/UNHx updates in the same history.
    expect(first.multiplierUpdates.filter((u) => u.mint === HONX_MINT)).toHaveLength(2 * HONX_STEPS);
    expect(first.multiplierUpdates).toEqual(allAuthorityUpdates(s));
    expect(new Set(first.multiplierUpdates.map((u) => u.mint)).size).toBeGreaterThan(1);
    expect(first.multiplierUpdates.filter((u) => u.mint === HONX_MINT).at(-1)).toMatchObject({
      multiplier: 1.0011576563945983,
      effectiveTimestamp: 1786667400,
      authority: XSTOCKS_AUTHORITY,
      ixIndex: 1000,
    });

    const transfersListed = 2500;
    const failed = s.chain.signatures.get(s.tokenAccount)!.filter((x) => x.err != null).length;
    const authorityListed = s.chain.signatures.get(XSTOCKS_AUTHORITY)!.length;
    expect(first.transactionsFetched).toBe(transfersListed - failed + authorityListed);
    expect(first.walletTransactions).toBe(transfersListed - failed); // the wallet's own history only
    expect(first.rpcCalls).toBe(server.requests);
    // The wallet's own address is walked too (closed accounts are found there).
    expect(first.cursors).toEqual({
      accounts: { [s.tokenAccount]: at(s.chain.signatures.get(s.tokenAccount)![0]!.signature), [s.owner]: at(s.chain.signatures.get(s.owner)![0]!.signature) },
      authorities: { [XSTOCKS_AUTHORITY]: at(s.chain.signatures.get(XSTOCKS_AUTHORITY)![0]!.signature) },
    });
    for (const phase of ["accounts", "mints", "account_history", "multiplier_history"]) {
      const p = phases.get(phase)!;
      expect(p.done).toBe(p.total);
    }
    expect(phases.get("account_history")!.total).toBe(transfersListed - failed);

    // Nothing new: one page per address, stopped at the cursor, no transaction fetched.
    const before = server.requests;
    const idle = await syncWalletChain(rpc, s.owner, first.cursors, { now });
    expect(idle.transactionsFetched).toBe(0);
    expect(idle.balanceChanges).toEqual([]);
    expect(idle.multiplierUpdates).toEqual([]);
    expect(idle.gaps).toEqual([]);
    expect(idle.cursors).toEqual(first.cursors);
    const pages = server.log.slice(before).filter((l) => l.method === "getSignaturesForAddress");
    expect(pages.map((l) => [l.params[0], l.params[1].until])).toEqual([
      [s.owner, first.cursors.accounts[s.owner]!.newest],
      [s.tokenAccount, first.cursors.accounts[s.tokenAccount]!.newest],
      [XSTOCKS_AUTHORITY, first.cursors.authorities[XSTOCKS_AUTHORITY]!.newest],
    ]);

    // Three transfers and a new scheduled multiplier: only those four transactions are fetched.
    const added = [s.addTransfer(5n), s.addTransfer(-3n), s.addTransfer(1_000_000n)];
    const update = s.addUpdate(1.0030000000000001, 1_792_000_000);
    const next = await syncWalletChain(rpc, s.owner, first.cursors, { now });
    expect(next.gaps).toEqual([]);
    expect(next.transactionsFetched).toBe(4);
    expect(next.balanceChanges.map((c) => c.signature)).toEqual(added);
    expect(next.accounts[0]!.rawBalance).toBe(s.balance);
    expect(next.multiplierUpdates.map((u) => [u.signature, u.multiplier, u.effectiveTimestamp])).toEqual([
      [update, 1.0011576563945983, 1786667400],
      [update, 1.0030000000000001, 1_792_000_000],
    ]);
    expect(next.mints[0]).toMatchObject({ multiplier: 1.0011576563945983, newMultiplier: 1.0030000000000001, newMultiplierEffectiveTimestamp: 1_792_000_000 });
    expect(next.cursors.accounts[s.tokenAccount]).toEqual(at(added[2]!));
    expect(next.cursors.accounts[s.owner]).toEqual(at(added[2]!));
    expect(next.cursors.authorities[XSTOCKS_AUTHORITY]).toEqual(at(update));
  });

  test("an authority is walked once for every mint it controls: a second mint needs no re-walk", async () => {
    const random = seededRandom(99);
    const s = buildWalletScenario({ transfers: 3, seed: 3 });
    // A second xStocks mint under the same authority, with its own updates.
    const other = randomAddress(random);
    const otherAccount = randomAddress(random);
    let slot = 446_500_000;
    for (const [multiplier, ts] of [
      [1.01, 1_780_000_000],
      [1.02, 1_785_000_000],
    ] as const) {
      const signature = randomSignature(random);
      slot += 100;
      addTransaction(s.chain, signature, updateMultiplierTx({ signature, slot, blockTime: ts - 100, authority: XSTOCKS_AUTHORITY, updates: [{ mint: other, multiplier, effectiveTimestamp: ts }] }), [
        XSTOCKS_AUTHORITY,
      ]);
    }
    s.chain.accounts.set(other, {
      data: encodeMint({ authority: XSTOCKS_AUTHORITY, multiplier: 1.01, newMultiplier: 1.02, newMultiplierEffectiveTimestamp: 1_785_000_000 }),
      owner: TOKEN_2022_PROGRAM_ID,
    });
    const server = serve(s);
    const rpc = client(server);

    // A first wallet (HONx only) walks the whole authority history: the other mint's updates come too.
    const first = await syncWalletChain(rpc, s.owner, {}, { now });
    expect(first.gaps).toEqual([]);
    expect(first.multiplierUpdates.filter((u) => u.mint === other).map((u) => u.multiplier)).toEqual([1.01, 1.02]);

    // The wallet opens an account of the other mint: only the authority's newest page is asked for,
    // until the shared cursor; no transaction of its history is fetched again.
    s.chain.accounts.set(otherAccount, { data: encodeTokenAccount({ mint: other, owner: s.owner, amount: 0n }), owner: TOKEN_2022_PROGRAM_ID });
    const before = server.log.length;
    const again = await syncWalletChain(rpc, s.owner, first.cursors, { now });
    expect(again.gaps).toEqual([]);
    expect(again.multiplierUpdates).toEqual([]);
    const authorityCalls = server.log.slice(before).filter((l) => l.method === "getSignaturesForAddress" && l.params[0] === XSTOCKS_AUTHORITY);
    expect(authorityCalls.map((l) => l.params[1].until)).toEqual([first.cursors.authorities[XSTOCKS_AUTHORITY]!.newest]);
    expect(server.log.slice(before).filter((l) => l.method === "getTransaction")).toHaveLength(0);
  });
});

describe("faults: correct data, a named gap, or a clear error", () => {
  const small = () => buildWalletScenario({ transfers: 300, seed: 11 });
  const opts = { now, pageLimit: 100 };

  test("429 bursts, 5xx, hangs, truncated and non-JSON bodies: the same observations as a clean run", async () => {
    const clean = await syncWalletChain(client(serve(small())), small().owner, {}, opts);
    expect(clean.gaps).toEqual([]);
    const s = small();
    const server = serve(s);
    server.inject({ method: "getTransaction", times: 25, fault: { kind: "status", status: 429, retryAfter: "0" } });
    server.inject({ method: "getSignaturesForAddress", times: 3, fault: { kind: "status", status: 500 } });
    server.inject({ method: "getTransaction", times: 5, fault: { kind: "truncate" } });
    server.inject({ method: "getTransaction", times: 2, fault: { kind: "hang", ms: 800 } });
    server.inject({ method: "getMultipleAccounts", times: 2, fault: { kind: "not_json" } });
    server.inject({ method: "getTokenAccountsByOwner", times: 1, fault: { kind: "status", status: 503 } });
    server.inject({ method: "getTransaction", times: 3, fault: { kind: "rpc_error", code: -32005, message: "Node is behind" } });
    // Walks keep only a few requests in flight, so a burst lands on the same few requests: they
    // need more retries than when every request of the history was in flight at once.
    const faulty = await syncWalletChain(client(server, { timeoutMs: 150, maxRetries: 40 }), s.owner, {}, opts);
    expect(observations(faulty)).toEqual(observations(clean));
    expect(faulty.rpcCalls).toBeGreaterThan(clean.rpcCalls + 30);
  });

  test("a transaction that never comes back is a named gap; the account's cursor does not advance", async () => {
    const s = small();
    const lost = s.transfers[120]!.signature;
    const server = serve(s);
    server.inject({ method: "getTransaction", times: Infinity, match: (p) => p[0] === lost, fault: { kind: "status", status: 500 } });
    const r = await syncWalletChain(client(server, { maxRetries: 2 }), s.owner, {}, opts);
    // Listed under the wallet's address too: the walk there (closed accounts) names it as well.
    expect(r.gaps.map((g) => g.address)).toEqual([s.owner, s.tokenAccount]);
    for (const g of r.gaps) expect(g.reason).toContain(lost);
    expect(r.balanceChanges.map((c) => c.signature)).toEqual(s.transfers.filter((t) => t.signature !== lost).map((t) => t.signature));
    expect(r.cursors.accounts[s.tokenAccount]).toBeUndefined();
    expect(r.cursors.accounts[s.owner]).toBeUndefined();
    expect(r.cursors.authorities[XSTOCKS_AUTHORITY]).toBeDefined(); // an unrelated walk still advances
  });

  test("a transaction the node does not have (null) is a named gap", async () => {
    const s = small();
    const missing = s.transfers[5]!.signature;
    s.chain.transactions.delete(missing);
    // Walked from before the start: pretend an earlier sync's cursor is an unknown signature.
    const r = await syncWalletChain(client(serve(s)), s.owner, { accounts: { [s.tokenAccount]: at("keep-me") } }, opts);
    expect(r.gaps.map((g) => g.address)).toEqual([s.owner, s.tokenAccount]);
    for (const g of r.gaps) expect(g.reason).toContain("not available");
    expect(r.cursors.accounts[s.tokenAccount]).toEqual(at("keep-me"));
  });

  test("a signature page that cannot be fetched is a named gap; older history is not invented", async () => {
    const s = small();
    const server = serve(s);
    server.inject({ method: "getSignaturesForAddress", times: Infinity, match: (p) => p[0] === s.tokenAccount && p[1].before !== undefined, fault: { kind: "status", status: 503 } });
    const r = await syncWalletChain(client(server, { maxRetries: 1 }), s.owner, {}, opts);
    expect(r.gaps).toHaveLength(1);
    expect(r.gaps[0]).toMatchObject({ address: s.tokenAccount });
    expect(r.gaps[0]!.reason).toMatch(/^signature page \(before \w+\) unavailable/);
    const firstPage = new Set(
      s.chain.signatures
        .get(s.tokenAccount)!
        .slice(0, 100)
        .map((x) => x.signature),
    );
    expect(r.balanceChanges.length).toBeGreaterThan(0);
    expect(r.balanceChanges.every((c) => firstPage.has(c.signature))).toBe(true);
    expect(r.cursors.accounts[s.tokenAccount]).toBeUndefined();
  });

  test("a balance misreported by one raw unit is caught as a mismatch, not booked silently", async () => {
    const s = small();
    const server = serve(s);
    server.misreport({ tokenAccount: s.tokenAccount, delta: 1n });
    const r = await syncWalletChain(client(server), s.owner, {}, opts);
    expect(r.gaps).toEqual([{ address: s.tokenAccount, reason: `balance mismatch: the chain reports raw ${s.balance + 1n}, the transaction history gives ${s.balance}` }]);
  });

  test("a transaction whose balances are off by one unit breaks the chain of balances: a named gap", async () => {
    const s = small();
    const bad = s.transfers[200]!.signature;
    const tx = s.chain.transactions.get(bad)!;
    const row = tx.meta!.postTokenBalances!.find((b) => b.owner === s.owner)!;
    row.uiTokenAmount.amount = (BigInt(row.uiTokenAmount.amount) + 1n).toString();
    const r = await syncWalletChain(client(serve(s)), s.owner, {}, opts);
    expect(r.gaps).toHaveLength(1);
    expect(r.gaps[0]!.reason).toContain("does not chain");
    expect(r.gaps[0]!.reason).toContain(s.transfers[201]!.signature);
  });

  test("a node whose history stops short (pruned) is a named gap: the history does not start at 0", async () => {
    const s = small();
    s.chain.signatures.get(s.tokenAccount)!.splice(-10); // the 10 oldest are gone
    const r = await syncWalletChain(client(serve(s)), s.owner, {}, opts);
    expect(r.gaps.map((g) => g.address)).toEqual([s.tokenAccount]);
    expect(r.gaps[0]!.reason).toContain("not 0");
  });

  test("a mint whose state no update found explains is a named gap (missing multiplier history)", async () => {
    const s = small();
    const list = s.chain.signatures.get(XSTOCKS_AUTHORITY)!;
    list.splice(
      list.findIndex((x) => x.signature === s.updateSignatures.at(-1)),
      1,
    );
    const r = await syncWalletChain(client(serve(s)), s.owner, {}, opts);
    expect(r.gaps.map((g) => g.address)).toEqual([HONX_MINT]);
    expect(r.gaps[0]!.reason).toContain("updates are missing");
    expect(r.cursors.authorities[XSTOCKS_AUTHORITY]).toBeUndefined();
  });

  test("mint state unavailable: a named gap per mint, accounts and balances still synced", async () => {
    const s = small();
    const server = serve(s);
    server.inject({ method: "getMultipleAccounts", times: Infinity, fault: { kind: "status", status: 500 } });
    const r = await syncWalletChain(client(server, { maxRetries: 1 }), s.owner, {}, opts);
    expect(r.gaps.map((g) => g.address)).toEqual([HONX_MINT]);
    expect(r.gaps[0]!.reason).toContain("mint state unavailable");
    expect(r.mints).toEqual([]);
    expect(r.balanceChanges).toHaveLength(s.transfers.length);
  });

  test("the wallet's accounts cannot be listed: a clear error, no partial result", async () => {
    const s = small();
    const server = serve(s);
    server.inject({ method: "getTokenAccountsByOwner", times: Infinity, fault: { kind: "status", status: 429, retryAfter: "0" } });
    const err = await syncWalletChain(client(server, { maxRetries: 2 }), s.owner, {}, opts).catch((e) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err.kind).toBe("rate_limited");
  });
});

describe("the deadline", () => {
  /** A client whose sync deadline passes the moment the request `when` picks has its answer (received whole). */
  function deadlineAt(server: RpcServer, when: (method: string, params: any[]) => boolean) {
    const deadline = new AbortController();
    const rpc = client(server, {
      signal: deadline.signal,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const body = await res.text();
        const { method, params } = JSON.parse(String(init?.body));
        if (when(method, params)) deadline.abort(new Error("the sync's deadline"));
        return new Response(body, { status: res.status, headers: res.headers });
      },
    });
    return { rpc, signal: deadline.signal };
  }

  const walks = [
    { walk: "a token account's", address: (s: WalletScenario) => s.tokenAccount, cursor: (r: WalletChainSync, s: WalletScenario) => r.cursors.accounts[s.tokenAccount] },
    { walk: "the wallet's own", address: (s: WalletScenario) => s.owner, cursor: (r: WalletChainSync, s: WalletScenario) => r.cursors.accounts[s.owner] },
    { walk: "the multiplier authority's", address: () => XSTOCKS_AUTHORITY, cursor: (r: WalletChainSync) => r.cursors.authorities[XSTOCKS_AUTHORITY] },
  ];
  for (const { walk, address, cursor } of walks) {
    test(`${walk} walk stopped by its page budget and the deadline at once keeps its cursor: what it listed was not read`, async () => {
      const s = buildWalletScenario({ transfers: 300, seed: 11 });
      const { rpc, signal } = deadlineAt(serve(s), (method, params) => method === "getSignaturesForAddress" && params[0] === address(s));
      const r = await syncWalletChain(rpc, s.owner, {}, { now, pageLimit: 5, maxPages: 1, signal });
      expect(signal.aborted).toBe(true);
      expect(r.gaps).toContainEqual({ address: address(s), reason: DEADLINE_GAP });
      expect(cursor(r, s)).toBeUndefined();
    });
  }
});
