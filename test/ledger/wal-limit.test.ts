// The WAL file of a SQLite ledger does not stay at its largest size: once a checkpoint has copied
// it into the database and a writer starts it again, it is cut back to WAL_SIZE_LIMIT
// (docs/storage.md#the-wal). SQLite's alone: a PostgreSQL ledger has no WAL file of its own.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { ledgerPath, openLedger, PAGE_SIZE, pageSizeOf, sqliteOf, WAL_CHECKPOINT_BYTES, walCheckpointPages, WAL_SIZE_LIMIT } from "../../src/ledger/db.ts";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { undoStatements } from "../support/actions-before.ts";
import { ledgerFileWithPages, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { walBytes } from "../support/wal.ts";

afterAll(removeTempDirs);

describe("the WAL file", () => {
  test("is cut back to its limit after a checkpoint, however large a transaction made it", async () => {
    const dir = tempDir("cal-wal-");
    const l = await openLedger(dir);
    try {
      const db = sqliteOf(l);
      db.exec("PRAGMA wal_autocheckpoint = 0"); // this test checkpoints by hand
      db.exec("CREATE TABLE scratch (x BLOB)");
      const insert = db.prepare("INSERT INTO scratch (x) VALUES (randomblob(4000))");
      db.transaction(() => {
        for (let i = 0; i < (3 * WAL_SIZE_LIMIT) / 4000; i++) insert.run();
      })();
      insert.finalize();
      expect(walBytes(dir)).toBeGreaterThan(2 * WAL_SIZE_LIMIT);
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      db.exec("DELETE FROM scratch WHERE rowid = 1"); // the next writer starts the WAL again
      expect(walBytes(dir)).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    } finally {
      await l.close();
    }
  });

  test("holds the pages several transactions rewrite until it reaches its checkpoint size, and copies them once", async () => {
    const dir = tempDir("cal-wal-");
    const l = await openLedger(dir);
    try {
      const db = sqliteOf(l);
      // A row of nearly a page each, so each rewrite of a row is one page.
      const row = PAGE_SIZE - 100;
      db.exec("CREATE TABLE scratch (x BLOB)");
      db.exec(`INSERT INTO scratch (x) SELECT randomblob(${row}) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600) SELECT i FROM n)`);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      // Three transactions rewriting the same 600 pages: 1,800 frames, past SQLite's default of 1,000.
      for (let round = 0; round < 3; round++) db.exec(`UPDATE scratch SET x = randomblob(${row})`);
      const pageAndHeader = PAGE_SIZE + 24;
      expect(walBytes(dir)).toBeGreaterThanOrEqual(1800 * pageAndHeader); // no checkpoint copied them after each
      expect(walCheckpointPages(db) * pageAndHeader).toBeGreaterThan(walBytes(dir));
      const done = db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number; checkpointed: number };
      expect(done.checkpointed).toBe(done.log); // then copied in one go
    } finally {
      await l.close();
    }
  });

  test("is empty once an upgrade has run, not holding the tables it rewrote until the first booking", async () => {
    const dir = tempDir("cal-wal-");
    const path = ledgerPath(dir);
    const last = migrationsOf("sqlite").at(-1)!;
    const l = await openLedger(dir);
    const db = sqliteOf(l);
    db.transaction(() => {
      for (const s of undoStatements(last.sql, "sqlite")) db.exec(s);
      for (const t of ["__drizzle_migrations", "__migrations_applied_at"]) db.query(`DELETE FROM ${t} WHERE hash = ?`).run(sha256Hex(last.sql));
    })();
    const other = new Database(path); // another process's connection: the WAL is not removed when the ledger closes
    try {
      await l.close();
      const upgraded = await openLedger(dir); // the migration runs again
      try {
        expect((sqliteOf(upgraded).query("SELECT count(*) AS n FROM __drizzle_migrations WHERE hash = ?").get(sha256Hex(last.sql)) as { n: number }).n).toBe(1);
        expect(walBytes(dir)).toBe(0);
      } finally {
        await upgraded.close();
      }
    } finally {
      other.close();
    }
  });
});

describe("the page size", () => {
  test("a new ledger is made with 8 KiB pages; one made before keeps its 4 KiB, and both copy the WAL after the same bytes", async () => {
    /** The SQLite ledger's page size and the WAL pages after which it copies the WAL, as opened. */
    const opened = async (dir: string) => {
      const l = await openLedger(dir);
      try {
        const db = sqliteOf(l);
        return { pages: pageSizeOf(db), checkpoint: (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint };
      } finally {
        await l.close();
      }
    };
    const fresh = tempDir("cal-page-");
    expect(await opened(fresh)).toEqual({ pages: PAGE_SIZE, checkpoint: WAL_CHECKPOINT_BYTES / PAGE_SIZE });
    const before = tempDir("cal-page-");
    ledgerFileWithPages(before, 4096);
    expect(await opened(before)).toEqual({ pages: 4096, checkpoint: WAL_CHECKPOINT_BYTES / 4096 });
  });
});
