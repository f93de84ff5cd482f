// A SQLite ledger at the migration before portfolios were stored (0011) upgrades and serves the
// same portfolio: at once (stored by the upgrade from the wallets' positions, migration 0021,
// while its wallets wait for the re-booking migration 0012 marked), and once they are booked;
// verify passes on it after. And a ledger
// upgrades at all only if each migration is dated after the one before it.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { runEngine } from "../../src/domain/engine.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { loadEngineInput } from "../../src/ledger/engine-input.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { demoPortfolioOwners, mainsAnswer } from "../support/demo-portfolio.ts";
import { serveDemo } from "../support/demo-server.ts";
import { storeOnceMigration, takeActionsBack, undoStatements } from "../support/actions-before.ts";
import type { DemoRecording } from "../../src/demo/transport.ts";
import demoBefore from "../fixtures/demo-recording-before.json" with { type: "json" };
import { demoDataDir, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

const portfolioMigration = embeddedMigrations.findIndex((m) => m.tag === "0012_portfolio_read_model");
const before = embeddedMigrations.slice(0, portfolioMigration);
// Tables and indexes, less drizzle's records of which migrations ran (`__…`).
const schemaOf = (db: Database) => db.query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '%\\_\\_%' ESCAPE '\\' ORDER BY type, name").all();

/** The schema a fresh file has after the migrations before the portfolio's. */
function schemaBefore(): unknown[] {
  const db = new Database(join(tempDir("cal-0011-"), "ledger.db"), { create: true });
  for (const m of before) for (const stmt of m.sql.split("--> statement-breakpoint")) if (stmt.trim()) db.exec(stmt);
  const schema = schemaOf(db);
  db.close();
  return schema;
}

/**
 * The demo ledger taken back to 0011: the rows that code booked are these, less the portfolios
 * (and with each action's rows as they were before 0015, test/support/actions-before.ts).
 */
async function demoAt0011(): Promise<string> {
  // The demo main's portfolio answers were recorded from (test/fixtures/demo-recording-before.json), not today's.
  const dir = await demoDataDir(demoBefore as unknown as DemoRecording);
  // The positions booking stored then, as it stored them (JSON of the engine's records at the
  // wallet's booking time): 0022 dropped the table, so they are derived again here and put back below.
  const positions = await withLedger(dir, async (l) => {
    const booked = await l.db.all(...q<{ owner: string; updated_at: string }>`SELECT owner, updated_at FROM yields`);
    const rows: { owner: string; mint: string; payload: string; at: string }[] = [];
    for (const b of booked)
      for (const p of runEngine(await loadEngineInput(l.db, new Date(b.updated_at), { owners: [b.owner] })).positions)
        rows.push({ owner: p.owner, mint: p.mint, payload: JSON.stringify(p), at: b.updated_at });
    return rows;
  });
  expect(positions.length).toBeGreaterThan(0);
  await withLedger(dir, (l) => takeActionsBack(l.db));
  const db = new Database(join(dir, "ledger.db"));
  const later = embeddedMigrations.slice(before.length);
  expect(later[0]!.tag).toBe("0012_portfolio_read_model");
  // Each later migration adds tables (and 0012 marks wallets dirty, which booking clears): dropping
  // them takes the file back; the one that stores each action once, and those after it, were taken back above.
  const storeOnce = later.findIndex((m) => m.tag === storeOnceMigration.sqlite); // it and every later one: taken back above
  for (const m of later.slice(0, storeOnce)) for (const s of undoStatements(m.sql, "sqlite")) db.exec(s);
  for (const m of later.slice(0, storeOnce)) {
    db.query("DELETE FROM __drizzle_migrations WHERE hash = ?").run(sha256Hex(m.sql));
    db.query("DELETE FROM __migrations_applied_at WHERE hash = ?").run(sha256Hex(m.sql));
  }
  expect(schemaOf(db)).toEqual(schemaBefore());
  for (const p of positions) db.query("INSERT INTO positions (owner, mint, payload, updated_at) VALUES (?, ?, ?, ?)").run(p.owner, p.mint, p.payload, p.at);
  db.close();
  return dir;
}

describe("upgrading a ledger", () => {
  test("each migration is dated after the one before (a ledger applies only those dated after its last)", () => {
    const whens = embeddedMigrations.map((m) => m.when);
    expect(whens).toEqual([...whens].sort((a, b) => a - b));
    expect(new Set(whens).size).toBe(whens.length);
  });

  test("from 0011, it serves the same portfolio before its wallets are booked again and after, then stored", async () => {
    const srv = await serveDemo(await demoAt0011()); // applies 0012 to 0015
    try {
      const db = srv.ledger.db;
      const answers = async () => {
        for (const owner of demoPortfolioOwners) {
          const res = await fetch(`${srv.url}/v1/portfolio?owner=${owner}`, { headers: { authorization: `Bearer ${srv.key}` } });
          const text = await res.text();
          expect(text).toBe(mainsAnswer(text, owner));
        }
      };
      expect((await db.all(...q<{ owner: string }>`SELECT owner FROM dirty_wallets ORDER BY owner`)).map((r) => r.owner)).toEqual([...demoPortfolioOwners].sort());
      // Stored by the upgrade, rendered from the wallets' positions before they were dropped (0021, 0022).
      expect((await db.all(...q<{ owner: string }>`SELECT owner FROM portfolios ORDER BY owner`)).map((r) => r.owner)).toEqual([...demoPortfolioOwners].sort());
      await answers();
      await bookEverythingDirty(db); // what the server's booker does next
      expect((await db.all(...q<{ owner: string }>`SELECT owner FROM portfolios ORDER BY owner`)).map((r) => r.owner)).toEqual([...demoPortfolioOwners].sort());
      await answers(); // stored
      const report = await verifyLedger(db);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.checks.find((c) => c.name === "read models match their sources")!.problemCount).toBe(0);
    } finally {
      await srv.stop();
    }
  });
});
