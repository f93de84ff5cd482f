// bench/sync: one wallet with 5,000 transactions across 20 Token-2022 mints, synced through the
// real adapters against a loopback JSON-RPC server, then stored and re-booked; and a full demo
// load. Baseline, in the same process: the bare HTTP round trips of the same getTransaction
// calls at the same concurrency (the minimum any sync must pay), so the ratio shows our overhead.
//
// RPC calls per wallet, with and without the getTransactionsForAddress fast path (same run, same
// wallet, a fresh ledger each): the large wallet above and a typical one (4 mints, 25
// transactions each, one of them in an account it has since closed).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { openLedger } from "../src/ledger/db.ts";
import { ensureTenant } from "../src/ledger/keys.ts";
import { createLogger } from "../src/log.ts";
import { TOKEN_2022_PROGRAM_ID } from "../src/sources/solana/wire.ts";
import { claimJob, registerAndEnqueue } from "../src/ledger/queue.ts";
import { runSyncJob } from "../src/sync/job.ts";
import { bookEverythingDirty } from "../src/ledger/booking.ts";
import { loadDemo } from "../src/demo/load.ts";
import { closeAccountTx, encodeMint, encodeTokenAccount, randomAddress, randomSignature, seededRandom, transferTx, updateMultiplierTx, XSTOCKS_AUTHORITY } from "../test/support/chain.ts";
import { addTransaction, emptyChain, startRpcServer, type ChainState } from "../test/support/rpc-server.ts";
import { q } from "../test/support/sql.ts";

const STEPS = 8;

/** A wallet with `mints` accounts of `perMint` transfers each; the last `closed` accounts end sold and closed. */
function buildWallet(mints: number, perMint: number, seed: number, closed = 0): { chain: ChainState; owner: string } {
  const random = seededRandom(seed);
  const chain = emptyChain(460_000_000);
  const owner = randomAddress(random);
  let slot = 400_000_000;
  for (let m = 0; m < mints; m++) {
    const mint = randomAddress(random);
    let multiplier = 1,
      previous = 1,
      lastTs = 0;
    for (let s = 0; s < STEPS; s++) {
      const next = multiplier * (1 + 0.001 * (1 + (s % 3)));
      const sig = randomSignature(random);
      lastTs = 1_750_000_000 + 86_400 * 30 * s;
      slot += 100;
      addTransaction(
        chain,
        sig,
        updateMultiplierTx({ signature: sig, slot, blockTime: lastTs - 3600, authority: XSTOCKS_AUTHORITY, updates: [{ mint, multiplier: next, effectiveTimestamp: lastTs }] }),
        [XSTOCKS_AUTHORITY, mint],
      );
      previous = multiplier;
      multiplier = next;
    }
    // The mint as the program leaves it: the last update's value and timestamp, the one before it.
    chain.accounts.set(mint, {
      data: encodeMint({ decimals: 8, authority: XSTOCKS_AUTHORITY, multiplier: previous, newMultiplier: multiplier, newMultiplierEffectiveTimestamp: lastTs }),
      owner: TOKEN_2022_PROGRAM_ID,
    });
    const tokenAccount = randomAddress(random);
    const closes = m >= mints - closed;
    let balance = 0n;
    for (let i = 0; i < perMint; i++) {
      const sig = randomSignature(random);
      slot += 100;
      const last = closes && i === perMint - 1;
      const delta = last ? -balance : BigInt(1 + Math.floor(random() * 1e8));
      addTransaction(chain, sig, transferTx({ signature: sig, slot, blockTime: 1_740_000_000 + i * 20_000 + m, owner, tokenAccount, mint, pre: i === 0 ? null : balance, post: balance + delta }), [
        tokenAccount,
        owner,
      ]);
      balance += delta;
    }
    if (closes) {
      const sig = randomSignature(random);
      addTransaction(chain, sig, closeAccountTx({ signature: sig, slot: (slot += 100), blockTime: 1_740_000_000 + perMint * 20_000, owner, tokenAccount, mint }), [tokenAccount, owner]);
    } else chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint, owner, amount: balance }), owner: TOKEN_2022_PROGRAM_ID });
  }
  chain.slot = slot + 1000;
  return { chain, owner };
}

interface SyncRun {
  outcome: string;
  calls: number;
  byMethod: Record<string, number>;
  seconds: number;
  actions: number;
  gaps: { address: string; reason: string }[];
}

/** One first sync of the wallet into a fresh ledger, against a provider with or without the fast path. */
async function syncOnce(wallet: { chain: ChainState; owner: string }, fastPath: boolean): Promise<SyncRun> {
  const server = startRpcServer({ ...wallet.chain, servesTransactionsForAddress: fastPath });
  const dir = mkdtempSync(join(tmpdir(), "cal-bench-sync-"));
  try {
    const ledger = await openLedger(dir);
    const { db } = ledger;
    const config = loadConfig({ "data-dir": dir, "solana-rpc-url": server.url }, {});
    await registerAndEnqueue(db, await ensureTenant(db, "bench"), 100, wallet.owner);
    const t = performance.now();
    const outcome = await runSyncJob({ db, config, logger: createLogger("error"), book: async () => void (await bookEverythingDirty(db)) }, (await claimJob(db))!);
    const seconds = (performance.now() - t) / 1000;
    const byMethod: Record<string, number> = {};
    for (const l of server.log) byMethod[l.method] = (byMethod[l.method] ?? 0) + 1;
    const actions = (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM actions`))!.n;
    const gaps = await db.all(...q<{ address: string; reason: string }>`SELECT address, reason FROM wallet_gaps`);
    await ledger.close();
    return { outcome, calls: server.requests, byMethod, seconds, actions, gaps };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const large = buildWallet(20, 250, 42);
const typical = buildWallet(4, 25, 7, 1);

let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const server = startRpcServer(large.chain);

try {
  // Baseline: the same getTransaction round trips, 4 at a time, parsed and dropped.
  const sigs = [...large.chain.transactions.keys()];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < sigs.length) {
        const sig = sigs[next++]!;
        const res = await fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getTransaction", params: [sig, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "finalized" }] }),
        });
        await res.json();
      }
    }),
  );
  const baseline = (performance.now() - t0) / 1000;

  peak = 0;
  const standard = await syncOnce(large, false);
  const syncPeak = peak;
  const fast = await syncOnce(large, true);
  if (standard.gaps.length) console.log(`  gaps: ${standard.gaps.length}, e.g. ${standard.gaps[0]!.reason}`);

  const demoDir = mkdtempSync(join(tmpdir(), "cal-bench-demo-"));
  const demoLedger = await openLedger(demoDir);
  const t2 = performance.now();
  const demo = await loadDemo(demoLedger, new Date("2026-09-20T00:00:00Z"));
  const demoSeconds = (performance.now() - t2) / 1000;
  await demoLedger.close();
  rmSync(demoDir, { recursive: true, force: true });

  console.log(`sync of one wallet: ${large.chain.transactions.size} transactions, 20 mints -> ${standard.outcome}, ${standard.actions} actions`);
  console.log(`  RPC calls        ${standard.calls}`);
  console.log(`  seconds          ${standard.seconds.toFixed(2)}`);
  console.log(`  peak RSS         ${(syncPeak / 2 ** 20).toFixed(0)} MiB`);
  console.log(`  baseline         ${baseline.toFixed(2)} s for ${sigs.length} bare getTransaction round trips (concurrency 4)`);
  console.log(`  ratio            ${(standard.seconds / baseline).toFixed(2)}x the bare round trips`);
  console.log(`demo load: ${demo.synced} wallets in ${demoSeconds.toFixed(2)} s`);

  const typicalStandard = await syncOnce(typical, false);
  const typicalFast = await syncOnce(typical, true);
  console.log("RPC calls for one wallet's first sync, standard methods vs getTransactionsForAddress (same wallet, fresh ledgers):");
  for (const [name, runs] of [
    ["large (20 mints, 5,000 transfers)", [standard, fast]],
    ["typical (4 mints, 100 transfers, 1 account closed)", [typicalStandard, typicalFast]],
  ] as const) {
    const [s, f] = runs;
    if (s.actions !== f.actions || s.outcome !== f.outcome) throw new Error(`the two paths disagree: ${s.outcome}/${s.actions} vs ${f.outcome}/${f.actions}`);
    console.log(
      `  ${name}: ${s.calls} standard, ${f.calls} with the fast path (${(s.calls / f.calls).toFixed(1)}x fewer), ${s.actions} actions both, ${f.seconds.toFixed(2)} s vs ${s.seconds.toFixed(2)} s`,
    );
    console.log(`    standard  ${JSON.stringify(s.byMethod)}`);
    console.log(`    fast path ${JSON.stringify(f.byMethod)}`);
  }
} finally {
  clearInterval(sampler);
  server.stop();
}
