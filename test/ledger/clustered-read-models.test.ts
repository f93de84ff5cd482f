// The per-wallet rows a re-booking rewrites, kept in key order (docs/storage.md#rows-placed-in-key-order),
// on a real SQLite file. Wallets are first booked in the order they were followed, which is not the
// order of their addresses; a re-booking then takes them in chunks in address order. Kept in the
// order they were first written, a chunk's rows were scattered over every page of the table and
// each page was written again by nearly every chunk; in key order (portfolios and yields by
// address, actions by event and address), a chunk's rows sit on pages of their own, so a leaf
// page is written by at most the two chunks that meet on it. SQLite's alone (a PostgreSQL ledger
// has no WAL file, and its tables keep rows apart from their keys whatever is done). Ledgers made
// before migrations 0019 (positions and income totals clustered, since dropped by 0021) and 0020
// (rows placed in key order) upgrade in place.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { ledgerPath, openLedger, sqliteOf, type Ledger } from "../../src/ledger/db.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { storeObservations, type ObservationBatch } from "../../src/ledger/store.ts";
import { undoStatements } from "../support/actions-before.ts";
import { demoAnswers, loadCorrectedDemo } from "../support/demo-answers.ts";
import { testEngine } from "../support/engine.ts";
import { issuerRecord } from "../support/issuer-records.ts";
import { removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { walPages } from "../support/wal.ts";

afterAll(removeTempDirs);

const T0 = 1_750_000_000;
const DAY = 86_400;
const WALLETS = 400;
const PER_CHUNK = 50;
const mints = ["A", "B"].map((m) => ({ mint: `Mint${m}`.padEnd(44, "1"), symbol: `CL${m}x` }));
// Addresses in an order of their own: the order wallets are followed in is not theirs.
const owners = Array.from({ length: WALLETS }, (_, i) => `W${createHash("sha256").update(String(i)).digest("hex")}`.slice(0, 44));

const dividend = (m: (typeof mints)[number], version: number, gross: string) =>
  issuerRecord({
    eventId: `${m.symbol}-div`,
    xstockSymbol: m.symbol,
    spvSymbol: m.symbol.slice(0, -1),
    caType: "CashDividend",
    at: T0 + 100 * DAY,
    multiplierOld: 1,
    multiplierNew: 1.01,
    grossCashflowUsd: gross,
    netCashflowUsd: (Number(gross) * 0.7).toFixed(4),
    withholdingTaxRate: "0.3",
    version,
    status: version > 1 ? "Updated" : "Initial",
  });

/** Each of `wallets` holds both mints from before the dividend. */
function holdings(wallets: string[]): ObservationBatch {
  const batch: ObservationBatch = { tokenAccounts: [], balanceChanges: [] };
  for (const owner of wallets)
    for (const { mint } of mints) {
      const tokenAccount = `T${createHash("sha256")
        .update(owner + mint)
        .digest("hex")}`.slice(0, 44);
      const at = T0 + 10 * DAY;
      batch.balanceChanges!.push({ owner, tokenAccount, mint, signature: `${tokenAccount}s`, slot: 10, blockTime: at, preRaw: 0n, postRaw: 1_000_000_000n });
      batch.tokenAccounts!.push({ owner, tokenAccount, mint, rawBalance: 1_000_000_000n, slot: 10 });
    }
  return batch;
}

/** The instruments, their multiplier updates and first dividend records, as both tests below store them. */
const issuerAndChain = {
  instruments: mints.map(({ mint, symbol }) => ({ mint, symbol, name: null, underlying: symbol.slice(0, -1), isin: null, decimals: 6 })),
  multiplierUpdates: mints.map(({ mint }) => ({
    mint,
    signature: `${mint}u`,
    ixIndex: 0,
    slot: 100,
    blockTime: T0 + 99 * DAY,
    multiplier: 1.01,
    effectiveTimestamp: T0 + 100 * DAY,
    authority: "Auth".padEnd(44, "1"),
  })),
  issuerRecords: mints.map((m) => dividend(m, 1, "0.50")),
};

/**
 * The mints and their records stored, then every wallet followed `perBatch` at a time, each batch
 * booked before the next is followed, as a server books the wallets each sync finishes.
 */
async function followInBatches(l: Ledger, perBatch: number, now: Date): Promise<void> {
  await storeObservations(l.db, issuerAndChain, now);
  for (let i = 0; i < WALLETS; i += perBatch) {
    await storeObservations(l.db, holdings(owners.slice(i, i + perBatch)), now);
    await bookEverythingDirty(l.db, now);
  }
}

/** A new ledger in its own data dir with every wallet followed `perBatch` at a time (above), for `work`; closed after. */
async function withFollowed(prefix: string, perBatch: number, work: (l: Ledger, db: Database, dir: string, now: Date) => Promise<void>): Promise<void> {
  const dir = tempDir(prefix);
  const l = await openLedger(dir);
  try {
    const now = new Date((T0 + 200 * DAY) * 1000);
    await followInBatches(l, perBatch, now);
    await work(l, sqliteOf(l), dir, now);
  } finally {
    await l.close();
  }
}

describe("re-booking wallets in address order after one issuer record", () => {
  test("writes each leaf page of portfolios, yields and the corrected event's actions in one chunk, or the two that meet on it, and the journal's index by action in few", async () => {
    await withFollowed("cal-rebook-clustered-", 10, async (l, db, dir, now) => {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.exec("PRAGMA wal_autocheckpoint = 0"); // every page written stays in the WAL
      const later = new Date(now.getTime() + 60_000);
      await storeObservations(l.db, { issuerRecords: [dividend(mints[0]!, 2, "0.60")] }, later);
      const chunks = (await bookEverythingDirty(l.db, later, { walletsPerChunk: PER_CHUNK })).filter((c) => c.kind === "wallets");
      expect(chunks.reduce((n, c) => n + c.booked, 0)).toBe(WALLETS);
      const frames = walPages(ledgerPath(dir));
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const stat = db.query("SELECT pageno, name, pagetype FROM dbstat").all() as { pageno: number; name: string; pagetype: string }[];
      const times = new Map<number, number>();
      for (const p of frames) times.set(p, (times.get(p) ?? 0) + 1);
      // The journal's index by action is led by the wallet's first characters: a chunk's new
      // entries sit together there too. Its pages split as each chunk adds two entries a wallet,
      // and a split rewrites the pages beside it, so a page can be written by more than two
      // chunks; in all, about half of what every chunk writing every page would be (37 frames on
      // 9 pages here). By action id alone, nearly every chunk wrote nearly every page: 51 frames
      // on 8 pages, four fifths of it (102 on 17 when pages were 4 KiB).
      const byAction = stat.filter((r) => r.name === "journal_action" && r.pagetype === "leaf").map((r) => r.pageno);
      const byActionFrames = byAction.reduce((n, p) => n + (times.get(p) ?? 0), 0);
      expect(byActionFrames).toBeGreaterThan(byAction.length);
      expect(byActionFrames).toBeLessThan(chunks.length * byAction.length * 0.65);
      for (const table of ["portfolios", "yields", "actions"]) {
        const leaves = stat.filter((r) => r.name === table && r.pagetype === "leaf").map((r) => r.pageno);
        const written = leaves.filter((p) => times.has(p));
        // Every wallet's row of these tables changed: most of their pages are written. Of the
        // actions, only the corrected event's: they sit together, on about half the table's pages
        // here (each wallet has one action of each mint's dividend), not spread over all of them.
        if (table === "actions") expect(written.length).toBeLessThan(leaves.length * 0.6);
        else expect(written.length).toBeGreaterThan(leaves.length / 2);
        // The chunks that wrote each leaf page: one, or the two that meet on it; so only a page
        // where chunks meet is written twice (kept in the order rows were first written, about
        // every page of portfolios, yields and actions was, and some three times).
        const most = Math.max(...written.map((p) => times.get(p)!));
        expect({ table, most }).toEqual({ table, most: Math.min(most, 2) });
        const again = written.reduce((n, p) => n + times.get(p)!, 0) - written.length;
        expect({ table, again }).toEqual({ table, again: Math.min(again, 2 * chunks.length) });
      }
    });
  }, 120_000);
});

describe("journal entries booked a few wallets at a time", () => {
  test("fill the journal's pages as a compacted copy would: each is sealed as it is written, not grown by its seal on a full page", async () => {
    await withFollowed("cal-journal-pages-", 25, async (_l, db, dir) => {
      const journalPages = (d: Database) => (d.query("SELECT count(*) AS n FROM dbstat WHERE name = 'journal'").get() as { n: number }).n;
      const entries = (db.query("SELECT count(*) AS n FROM journal WHERE row_sha256 IS NOT NULL").get() as { n: number }).n;
      expect(entries).toBe(2 * WALLETS);
      const copy = `${dir}/compacted.db`;
      db.query("VACUUM INTO ?").run(copy);
      const compacted = new Database(copy, { readonly: true });
      try {
        // Sealed together at the end of each booking, the entries grew by their 64-character seals
        // on pages already full of them, which split: 65 pages here against 59 compacted (bench/scale:
        // 1.1 KiB a wallet). The last page may be part full.
        expect(journalPages(db)).toBeLessThanOrEqual(journalPages(compacted) + 1);
      } finally {
        compacted.close();
      }
    });
  }, 120_000);
});

const migrations = migrationsOf("sqlite");
const at = migrations.findIndex((m) => m.tag.endsWith("_clustered_read_models"));

/** How each clustered table is made, and the indexes on it, as `sqlite_master` says. */
const shapeOf = (db: Database) =>
  db.query(`SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('positions', 'income_totals') ORDER BY type, name`).all() as { type: string; name: string; sql: string | null }[];

/** The shape the migrations before this one made: rowid tables, each key an index of its own. */
function shapeBefore(): { type: string; name: string; sql: string | null }[] {
  const scratch = new Database(":memory:");
  try {
    for (const m of migrations.slice(0, at)) for (const s of m.sql.split("--> statement-breakpoint")) if (s.trim()) scratch.exec(s);
    return shapeOf(scratch);
  } finally {
    scratch.close();
  }
}

// The demo answers through the engine the run tests; this migration is SQLite's alone.
if (testEngine === "sqlite")
  describe("upgrading a ledger from before positions and income totals were clustered (0019), then dropped (0021)", () => {
    test("the demo at the shape of before upgrades in place through both: the tables gone, every answer, hash and seal the same, verify passes", async () => {
      expect(at).toBeGreaterThan(0);
      expect(migrations[at]!.when).toBeGreaterThan(migrations[at - 1]!.when);
      const dir = tempDir("cal-clustered-up-");
      await loadCorrectedDemo(dir);
      const before = await demoAnswers(dir);
      const old = shapeBefore();
      expect(old.filter((r) => r.type === "index").map((r) => r.name)).toEqual(["sqlite_autoindex_income_totals_1", "sqlite_autoindex_positions_1"]);
      await withLedger(dir, async (l) => {
        const db = sqliteOf(l);
        expect(shapeOf(db)).toEqual([]); // the portfolio holds what they held
        // Taken back: each table made again as the migrations before made it (empty: 0021 dropped
        // their rows, which the portfolios hold); the migration's record goes, and so does every
        // later one's (taken back first).
        db.transaction(() => {
          for (const m of migrations.slice(at).reverse()) {
            for (const s of undoStatements(m.sql, "sqlite")) db.exec(s);
            for (const t of ["__drizzle_migrations", "__migrations_applied_at"]) db.query(`DELETE FROM ${t} WHERE hash = ?`).run(sha256Hex(m.sql));
          }
        })();
        expect(shapeOf(db)).toEqual(old);
      });
      const after = await demoAnswers(dir); // the server opens the ledger: the migration runs
      expect(after.answers).toEqual(before.answers);
      expect(after.hashes).toEqual(before.hashes);
      await withLedger(dir, async (l) => {
        expect(shapeOf(sqliteOf(l))).toEqual([]);
        const report = await verifyLedger(l.db);
        expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      });
    }, 120_000);
  });

const placing = migrations.find((m) => m.tag.endsWith("_rows_placed_in_key_order"));

/** Each placed table's keys in rowid order: the order its rows sit in. */
const rowOrder = (db: Database) => ({
  actions: db.query("SELECT event_id || ' ' || owner AS k FROM actions ORDER BY rowid").all() as { k: string }[],
  portfolios: db.query("SELECT owner AS k FROM portfolios ORDER BY rowid").all() as { k: string }[],
  yields: db.query("SELECT owner AS k FROM yields ORDER BY rowid").all() as { k: string }[],
});
const keyOrder = (db: Database) => ({
  actions: db.query("SELECT event_id || ' ' || owner AS k FROM actions ORDER BY event_id, owner").all() as { k: string }[],
  portfolios: db.query("SELECT owner AS k FROM portfolios ORDER BY owner").all() as { k: string }[],
  yields: db.query("SELECT owner AS k FROM yields ORDER BY owner").all() as { k: string }[],
});

if (testEngine === "sqlite")
  describe("upgrading a ledger to rows placed in key order", () => {
    test("the demo with its rows in another order upgrades in place: actions, portfolios and yields in key order, every answer, hash and seal the same, verify passes", async () => {
      expect(placing).toBeDefined();
      const dir = tempDir("cal-placed-up-");
      await loadCorrectedDemo(dir);
      const before = await demoAnswers(dir);
      await withLedger(dir, async (l) => {
        const db = sqliteOf(l);
        // Taken back: each table's rows in the reverse of key order (as a ledger whose wallets were
        // followed in some other order holds them).
        db.transaction(() => {
          for (const table of ["actions", "portfolios", "yields"]) {
            const rowids = (db.query(`SELECT rowid AS r FROM ${table} ORDER BY rowid`).all() as { r: number }[]).map((x) => x.r);
            rowids.forEach((r, i) => db.query(`UPDATE ${table} SET rowid = ? WHERE rowid = ?`).run(-(i + 1), r));
          }
          // The migration's record goes, and every later one's, with what it made (taken back first).
          for (const m of migrations.slice(migrations.indexOf(placing!)).reverse()) {
            for (const s of undoStatements(m.sql, "sqlite")) db.exec(s);
            for (const t of ["__drizzle_migrations", "__migrations_applied_at"]) db.query(`DELETE FROM ${t} WHERE hash = ?`).run(sha256Hex(m.sql));
          }
        })();
        const taken = rowOrder(db);
        expect(taken.portfolios.length).toBeGreaterThan(1);
        expect(taken.portfolios).not.toEqual(keyOrder(db).portfolios);
        expect(taken.actions).not.toEqual(keyOrder(db).actions);
      });
      const after = await demoAnswers(dir); // the server opens the ledger: the migration runs
      expect(after.answers).toEqual(before.answers);
      expect(after.hashes).toEqual(before.hashes);
      await withLedger(dir, async (l) => {
        const db = sqliteOf(l);
        expect(rowOrder(db)).toEqual(keyOrder(db));
        const report = await verifyLedger(l.db);
        expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      });
    }, 120_000);
  });
