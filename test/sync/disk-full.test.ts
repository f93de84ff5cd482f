// A full disk under the ledger: the sync job that hits it is marked for a retry with the cause
// "disk full" at once, instead of showing `running` for its whole lease; once there is room again
// the retry completes. A real small filesystem (a tmpfs of 16 MiB, filled to the last block) when
// this machine lets the test mount one (root); otherwise SQLite's own limit on the file's pages
// (`PRAGMA max_page_count`), which makes SQLite fail the write with SQLITE_FULL just the same.
// SQLite's: a PostgreSQL server's disk is its own.
import { afterAll, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { walletStatus } from "../../src/ledger/queries/wallets.ts";
import { createLogger } from "../../src/log.ts";
import { runSyncJob } from "../../src/sync/job.ts";
import { claimJob, claimWalletJob, registerAndEnqueue } from "../../src/ledger/queue.ts";
import { tempDir } from "../harness/index.ts";
import { testEngine } from "../support/engine.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanups.reverse()) c();
});

/**
 * A folder on a 16 MiB filesystem of its own, or null when this machine does not let us mount one
 * (room for the ledger and its WAL once the filler goes: at 8 KiB pages, 4 MiB was too little).
 */
function smallFilesystem(): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = tempDir("cal-small-disk-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", dir], { stdout: "ignore", stderr: "ignore" }).exitCode !== 0) return null;
  cleanups.push(() => void Bun.spawnSync(["umount", "-l", dir]));
  return dir;
}

/** Writes a file until the filesystem refuses (ENOSPC); returns how to give the space back. */
function fill(dir: string): () => void {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (e) {
    expect((e as { code?: string }).code).toBe("ENOSPC");
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path);
}

if (testEngine === "sqlite")
  test("a sync that meets a full disk is queued for a retry with the cause 'disk full' at once, and completes once there is room", async () => {
    const disk = smallFilesystem();
    const dataDir = disk ? join(disk, "data") : tempDir("cal-full-");
    if (!disk) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(dataDir, { recursive: true });
    const s = buildWalletScenario({ transfers: 300, seed: 81 });
    const rpc = startRpcServer(s.chain);
    cleanups.push(() => rpc.stop());
    const ledger = await openLedger(dataDir);
    const db = ledger.db;
    const config = loadConfig({ "data-dir": dataDir, "solana-rpc-url": rpc.url, "xstocks-api-url": "off" }, {});
    const deps = { db, config, logger: createLogger("error"), rpcOptions: { maxRetries: 0 }, book: async () => void (await bookEverythingDirty(db)) };
    try {
      const tenant = await ensureTenant(db, "acme");
      await registerAndEnqueue(db, tenant, 100, s.owner);
      // A server that has run a while: its write-ahead log copied into the file (SQLite's own
      // checkpoints do this every thousand pages), then the disk fills up.
      sqliteOf(ledger).exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const job = (await claimJob(db))!;
      let makeRoom: () => void;
      if (disk) makeRoom = fill(disk);
      else {
        const sqlite = sqliteOf(ledger);
        const { page_count } = sqlite.query("PRAGMA page_count").get() as { page_count: number };
        sqlite.exec(`PRAGMA max_page_count = ${page_count}`);
        makeRoom = () => sqlite.exec("PRAGMA max_page_count = 1073741823");
      }

      expect(await runSyncJob(deps, job)).toBe("failed");
      const status = (await walletStatus(db, tenant, s.owner))!;
      expect({ status: status.status, attempts: status.attempts, retry: status.nextRetryAt !== null }).toEqual({ status: "queued", attempts: 1, retry: true });
      expect(status.error).toBe("disk full: the ledger could not be written (SQLITE_FULL); free space on the ledger's disk");

      makeRoom();
      const again = await claimWalletJob(db, tenant, s.owner);
      if (!("job" in again)) throw new Error("the retry was not claimed");
      expect(await runSyncJob(deps, again.job)).toBe("complete");
      expect((await walletStatus(db, tenant, s.owner))!).toMatchObject({ status: "complete", error: null });
    } finally {
      await ledger.close();
    }
  }, 60_000);
