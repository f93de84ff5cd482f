// The WAL file of a SQLite ledger does not stay at its largest size: once a checkpoint has copied
// it into the database and a writer starts it again, it is cut back to WAL_SIZE_LIMIT
// (docs/storage.md#the-wal). SQLite's alone: a PostgreSQL ledger has no WAL file of its own.
import { afterAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { ledgerPath, openLedger, sqliteOf, WAL_SIZE_LIMIT } from "../../src/ledger/db.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

describe("the WAL file", () => {
  test("is cut back to its limit after a checkpoint, however large a transaction made it", async () => {
    const dir = tempDir("cal-wal-");
    const l = await openLedger(dir);
    try {
      const db = sqliteOf(l);
      const wal = () => statSync(`${ledgerPath(dir)}-wal`).size;
      db.exec("PRAGMA wal_autocheckpoint = 0"); // this test checkpoints by hand
      db.exec("CREATE TABLE scratch (x BLOB)");
      const insert = db.prepare("INSERT INTO scratch (x) VALUES (randomblob(4000))");
      db.transaction(() => {
        for (let i = 0; i < (3 * WAL_SIZE_LIMIT) / 4000; i++) insert.run();
      })();
      insert.finalize();
      expect(wal()).toBeGreaterThan(2 * WAL_SIZE_LIMIT);
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      db.exec("DELETE FROM scratch WHERE rowid = 1"); // the next writer starts the WAL again
      expect(wal()).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    } finally {
      await l.close();
    }
  });
});
