// A worker step that keeps failing (the ledger file gone under the server, a disk full) is logged
// once per cause, tried with a growing pause, and logged again when it works (docs/operations.md#worker).
// Driven by states: the steps are counted through the worker's injected clock, which each step
// reads once to claim a job, never by durations.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { createLogger } from "../../src/log.ts";
import { startWorker } from "../../src/sync/worker.ts";
import { tempDir } from "../harness/index.ts";
import { ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean): Promise<void> {
  for (const end = Date.now() + 60_000; !check(); await Bun.sleep(20)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

test("a step that fails again and again is logged once, not on every step; when it works again that is logged once", async () => {
  const dir = tempDir("cal-failing-step-");
  dirs.push(dir);
  const ledger = await openLedger(ledgerTarget(dir));
  const config = loadConfig({ ...ledgerFlags(dir), "solana-rpc-url": "http://127.0.0.1:9/", "xstocks-api-url": "off", "mint-poll-seconds": "3600" }, {});
  const lines: { msg: string; error?: string }[] = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  let reads = 0;
  const now = () => {
    reads++;
    return new Date();
  };
  // Every step claims from the queue first: with its table gone, every step fails the same way.
  await ledger.db.run(...q`ALTER TABLE sync_jobs RENAME TO sync_jobs_away`);
  const worker = startWorker({ db: ledger.db, config, logger, now, pollNetwork: true });
  try {
    await until("the first failure", () => lines.some((l) => l.msg === "worker step failed"));
    const after = reads;
    await until("three more failing steps", () => reads >= after + 3);
    const failures = lines.filter((l) => l.msg === "worker step failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]!.error).toMatch(/sync_jobs/);

    await ledger.db.run(...q`ALTER TABLE sync_jobs_away RENAME TO sync_jobs`);
    worker.wake();
    await until("the step to work again", () => lines.some((l) => l.msg === "worker step works again"));
    const settled = reads;
    await until("two more steps", () => reads >= settled + 2);
    expect(lines.filter((l) => l.msg === "worker step failed" || l.msg === "worker step works again").map((l) => l.msg)).toEqual(["worker step failed", "worker step works again"]);
  } finally {
    await worker.stop();
    await ledger.close();
  }
}, 90_000);
