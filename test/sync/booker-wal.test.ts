// Once booking goes idle after a round that wrote, the ledger's WAL is copied into the database and
// its file emptied (docs/storage.md#the-wal), without waiting for another connection: while one
// still reads an older snapshot the round ends all the same and the WAL waits, and the worker's
// next try empties it. On a real SQLite file (a PostgreSQL ledger has no WAL file of its own).
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { loadDemo } from "../../src/demo/load.ts";
import { ledgerPath, openLedger } from "../../src/ledger/db.ts";
import { markEverythingDirty } from "../../src/ledger/dirty.ts";
import { createLogger } from "../../src/log.ts";
import { createBooker } from "../../src/sync/booker.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";
import { until } from "../support/until.ts";
import { walBytes } from "../support/wal.ts";

afterAll(removeTempDirs);

describe("the booker's WAL", () => {
  test("is 0 bytes once booking is idle after a round that wrote", async () => {
    const dir = tempDir("cal-booker-wal-");
    const l = await openLedger(dir);
    try {
      await loadDemo(l);
      await l.db.write((tx) => markEverythingDirty(tx, new Date().toISOString()));
      expect(walBytes(dir)).toBeGreaterThan(0);
      const booker = createBooker(l.db, createLogger("error"));
      await booker.request();
      expect(booker.stats().chunks.length).toBeGreaterThan(0);
      await until("the WAL file empty", () => walBytes(dir) === 0);
      // The rows are in the database file: another connection reads them there.
      const other = new Database(ledgerPath(dir), { readonly: true });
      try {
        expect((other.query("SELECT count(*) AS n FROM dirty_wallets").get() as { n: number }).n).toBe(0);
      } finally {
        other.close();
      }
    } finally {
      await l.close();
    }
  });

  test("is left while another connection reads an older snapshot, and emptied by the next try once it ends", async () => {
    const dir = tempDir("cal-booker-wal-");
    const l = await openLedger(dir);
    const reader = new Database(ledgerPath(dir));
    try {
      await loadDemo(l);
      await l.db.write((tx) => markEverythingDirty(tx, new Date().toISOString()));
      reader.exec("BEGIN");
      reader.query("SELECT count(*) FROM dirty_wallets").get(); // its snapshot: before the booking
      const booker = createBooker(l.db, createLogger("error"));
      await booker.request(); // the round ends: nothing waits for the reader
      expect(booker.stats().chunks.length).toBeGreaterThan(0);
      expect(await l.db.emptyLog()).toBe(false);
      expect(walBytes(dir)).toBeGreaterThan(0);
      reader.exec("COMMIT");
      await booker.emptyLogIfIdle(); // the worker's tick
      expect(walBytes(dir)).toBe(0);
    } finally {
      reader.close();
      await l.close();
    }
  });
});
