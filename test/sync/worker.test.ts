// The worker end to end on a real SQLite file against loopback servers that speak the real
// Solana JSON-RPC and xStocks wire formats (real HONx mint bytes and multiplier steps).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { walletStatus } from "../../src/ledger/queries/wallets.ts";
import { createLogger } from "../../src/log.ts";
import { claimJob, registerAndEnqueue } from "../../src/ledger/queue.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { runSyncJob } from "../../src/sync/job.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { bookEverythingDirty, markDueClockChanges } from "../../src/ledger/booking.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";
import { ledgerTarget, ledgerFlags } from "../support/engine.ts";
import { q } from "../support/sql.ts";
import { actionRecords } from "../../src/ledger/queries/actions.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function setup(rpcUrl: string, issuerUrl: string) {
  const dir = mkdtempSync(join(tmpdir(), "cal-sync-"));
  dirs.push(dir);
  const config = loadConfig({ ...ledgerFlags(dir), "solana-rpc-url": rpcUrl, "xstocks-api-url": issuerUrl }, {});
  const ledger = await openLedger(ledgerTarget(dir));
  const now = () => new Date("2026-09-20T00:00:00Z");
  return { config, ledger, db: ledger.db, logger: createLogger("error"), now, book: async () => void (await bookEverythingDirty(ledger.db, now())) };
}

describe("sync worker", () => {
  test("a queued wallet syncs to a complete ledger, and a second sync books nothing new", async () => {
    const s = buildWalletScenario({ transfers: 12 });
    const rpc = startRpcServer(s.chain);
    const issuer = startIssuerServer(loadIssuerFixture());
    try {
      const deps = await setup(rpc.url, issuer.url);
      const tenant = await ensureTenant(deps.ledger.db, "acme");
      await registerAndEnqueue(deps.ledger.db, tenant, 100, s.owner);
      expect((await pollIssuer(deps)).added).toBeGreaterThan(0);
      expect((await pollIssuer(deps)).added).toBe(0); // the same feed again stores nothing

      const job = (await claimJob(deps.ledger.db))!;
      expect(job.owner).toBe(s.owner);
      expect(await runSyncJob(deps, job)).toBe("complete");
      const status = (await walletStatus(deps.ledger.db, tenant, s.owner))!;
      expect(status.status).toBe("complete");
      expect(status.transactionsFetched).toBeGreaterThan(0);
      expect(status.gaps).toEqual([]);

      // The scenario's transfers all come after HONx's recorded steps: nothing touched this wallet.
      expect(((await deps.ledger.db.get(...q`SELECT count(*) AS n FROM actions WHERE owner = ${s.owner}`)) as { n: number }).n).toBe(0);

      // The issuer changes the multiplier while the wallet holds HONx, with no issuer record.
      s.addUpdate(1.0031, 1789500000);
      await registerAndEnqueue(deps.ledger.db, tenant, 100, s.owner);
      expect(await runSyncJob(deps, (await claimJob(deps.ledger.db))!)).toBe("complete");
      const actions = await actionRecords(deps.ledger.db, { owners: [s.owner] });
      expect(actions.map((a) => a.type)).toEqual(["unknown"]);
      expect(actions[0]!.reason).toMatch(/no issuer record/i);
      const journal = ((await deps.ledger.db.get(...q`SELECT count(*) AS n FROM journal`)) as { n: number }).n;
      expect(journal).toBe(1);

      await registerAndEnqueue(deps.ledger.db, tenant, 100, s.owner);
      const again = (await claimJob(deps.ledger.db))!;
      expect(await runSyncJob(deps, again)).toBe("complete");
      expect(((await deps.ledger.db.get(...q`SELECT count(*) AS n FROM journal`)) as { n: number }).n).toBe(journal);
      await deps.ledger.close();
    } finally {
      rpc.stop();
      issuer.stop();
    }
  });

  test("an unreachable RPC fails the attempt, keeps the error, and queues a retry with backoff", async () => {
    const deps = await setup("http://127.0.0.1:9/", "http://127.0.0.1:9/");
    deps.config.solanaRpcUrl = "http://127.0.0.1:9/";
    const tenant = await ensureTenant(deps.ledger.db, "acme");
    const owner = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    await registerAndEnqueue(deps.ledger.db, tenant, 100, owner);
    const job = (await claimJob(deps.ledger.db))!;
    const outcome = await runSyncJob(
      {
        ...deps,
        rpcOptions: { maxRetries: 1, baseDelayMs: 1 },
        fetch: async () => {
          throw new TypeError("connection refused");
        },
      },
      job,
    );
    expect(outcome).toBe("failed");
    const status = (await walletStatus(deps.ledger.db, tenant, owner))!;
    expect(status.status).toBe("queued");
    expect(status.attempts).toBe(1);
    expect(status.error).toBeTruthy();
    expect(Date.parse(status.nextRetryAt!)).toBeGreaterThan(Date.parse("2026-09-20T00:00:00Z"));
    expect(((await deps.ledger.db.get(...q`SELECT count(*) AS n FROM journal`)) as { n: number }).n).toBe(0);
    await deps.ledger.close();
  });
});

describe("mint polling", () => {
  test("a scheduled multiplier that passes its activation is re-booked without any new observation", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cal-activation-"));
    dirs.push(dir);
    const ledger = await openLedger(ledgerTarget(dir));
    const owner = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    const mint = "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2";
    const activation = Date.parse("2026-10-01T00:30:00Z") / 1000;
    await registerAndEnqueue(ledger.db, await ensureTenant(ledger.db, "acme"), 100, owner);
    await storeObservations(ledger.db, {
      instruments: [{ mint, symbol: "HONx", name: null, underlying: "HON", isin: null, decimals: 8 }],
      multiplierUpdates: [{ mint, signature: "sig-schedule", ixIndex: 0, slot: 10, blockTime: activation - 86_400, multiplier: 1.0012, effectiveTimestamp: activation, authority: "auth" }],
      tokenAccounts: [{ owner, tokenAccount: "ata-1", mint, rawBalance: 5_00000000n, slot: 9 }],
      balanceChanges: [{ owner, tokenAccount: "ata-1", mint, signature: "sig-deposit", slot: 5, blockTime: activation - 30 * 86_400, preRaw: 0n, postRaw: 5_00000000n }],
    });
    const before = new Date((activation - 3600) * 1000);
    await bookEverythingDirty(ledger.db, before);
    const state = async () => ((await ledger.db.get(...q`SELECT e.state FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ${owner}`)) as { state: string } | null)?.state;
    const journal = async () => ((await ledger.db.get(...q`SELECT count(*) AS n FROM journal WHERE owner = ${owner}`)) as { n: number }).n;
    expect(await state()).toBe("confirmed"); // written on chain, activation still ahead: nothing booked
    expect(await journal()).toBe(0);

    // The mint's next clock change is its activation: due only once it has passed.
    expect(await markDueClockChanges(ledger.db, new Date((activation - 60) * 1000))).toBe(0);
    const after = new Date((activation + 60) * 1000);
    expect(await markDueClockChanges(ledger.db, after)).toBe(1);
    await bookEverythingDirty(ledger.db, after);
    expect(await state()).toBe("activated");
    expect(await journal()).toBe(1);
    expect(await markDueClockChanges(ledger.db, new Date((activation + 600) * 1000))).toBe(0); // booked once
    await bookEverythingDirty(ledger.db, new Date((activation + 600) * 1000));
    expect(await journal()).toBe(1);
    await ledger.close();
  });
});
