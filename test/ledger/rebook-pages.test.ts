// What a re-booking writes, page by page, on a real SQLite file (docs/storage.md#writing-only-what-changed):
// after an issuer correction every wallet of the demo is booked again, with the WAL holding
// every page written (no checkpoint meanwhile); each page is named by the table or index it
// belongs to (SQLite's dbstat). A changed action is rewritten in place, so the index on a wallet's
// actions is not written; the portfolio, which holds the positions and income totals, is rewritten
// in place or not at all (docs/storage.md#the-portfolio-holds-the-positions).
// SQLite's alone (a PostgreSQL ledger has no WAL file).
import { afterAll, describe, expect, test } from "bun:test";
import { ledgerPath, openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { loadDemo } from "../../src/demo/load.ts";
import { appendCorrection, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { walPages } from "../support/wal.ts";

afterAll(removeTempDirs);

// It reads a SQLite file's WAL, so the demo is made on SQLite whatever engine the run tests.
describe("re-booking every wallet after an issuer correction", () => {
  test("writes the changed actions and portfolios in place: no page of their indexes", async () => {
    const dir = tempDir("cal-rebook-pages-");
    const l = await openLedger(dir);
    try {
      await loadDemo(l);
      const db = sqliteOf(l);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.exec("PRAGMA wal_autocheckpoint = 0"); // every page written stays in the WAL
      await appendCorrection(l.db, 0);
      const pages = walPages(ledgerPath(dir));
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const owner = new Map((db.query("SELECT pageno, name FROM dbstat").all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
      const written = new Set(pages.map((p) => owner.get(p)));
      for (const table of ["actions", "journal", "portfolios"]) expect(written).toContain(table);
      for (const index of ["actions_owner_effective", "sqlite_autoindex_actions_1"]) expect(written).not.toContain(index);
    } finally {
      await l.close();
    }
  });
});
