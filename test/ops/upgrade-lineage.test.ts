// A ledger booked before spin-offs and rights distributions said what they distributed (its
// lineage and those actions as commit eec23e4 stored them, test/fixtures/lineage-demo-before.json)
// upgrades, on either engine: its stored read models no longer match the engine (verify says so),
// the migration (SQLite 0013, PostgreSQL 0004) marks every booked mint for one re-booking, verify
// passes while they wait and after they are booked again, the rows are the new ones, and no
// evidence hash moves.
import { afterAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { actionRecords } from "../../src/ledger/queries/actions.ts";
import { actionRow, actionWriter } from "../../src/ledger/writers.ts";
import golden from "../fixtures/lineage-demo-before.json" with { type: "json" };
import { storeOnceMigration, takeActionsBack, undoStatements } from "../support/actions-before.ts";
import { serveDemo } from "../support/demo-server.ts";
import { testEngine } from "../support/engine.ts";
import { demoDataDir, removeTempDirs, withLedger } from "./helpers.ts";
import { hex, q, raw } from "../support/sql.ts";

afterAll(removeTempDirs);

const migrations = migrationsOf(testEngine);
const at = migrations.findIndex((m) => m.tag.endsWith("_rebook_lineage_distributed"));
const migration = migrations[at]!;
const oldActions = golden.actions as Record<string, { reason: string; lineageLink: null }>;
/** Where the migrator records what it applied (src/ledger/migrations.ts). */
const records = testEngine === "sqlite" ? ["__drizzle_migrations", "__migrations_applied_at"] : ['drizzle."__drizzle_migrations"', 'drizzle."__migrations_applied_at"'];

/** The demo ledger with the lineage and actions rows that commit stored, through the port (either engine). */
async function demoWithOldRows(): Promise<{ dir: string; evidence: Map<string, string> }> {
  const dir = await demoDataDir();
  const evidence = await withLedger(dir, async ({ db }) => {
    const before = new Map((await db.all(...q<{ id: string; evidence_sha256: string }>`SELECT id, ${hex("evidence_sha256")} FROM actions`)).map((r) => [r.id, r.evidence_sha256]));
    await db.write(async (tx) => {
      for (const [mint, payload] of Object.entries(golden.lineage)) await tx.run(...q`UPDATE lineage SET payload = ${payload} WHERE mint = ${mint}`);
      const writer = actionWriter(tx);
      for (const [id, old] of Object.entries(oldActions)) {
        const [a] = await actionRecords(tx, { id });
        await writer.write(actionRow({ ...a!, ...old }));
      }
      await writer.finish();
    });
    return before;
  });
  return { dir, evidence };
}

/**
 * Takes the ledger back to before the migration: its record goes (it adds no table), and so does
 * every later migration's, with the tables they created (the migrator applies what is dated after
 * the last migration it recorded, so a later record would hide this one).
 */
async function beforeMigration(dir: string): Promise<void> {
  // The migration that stores each action once rewrites a table: it is taken back on its own,
  // with every migration after it (takeActionsBack); those between this one and it here.
  const undone = migrations.slice(
    at,
    migrations.findIndex((m) => m.tag === storeOnceMigration[testEngine]),
  );
  await withLedger(dir, ({ db }) => takeActionsBack(db));
  await withLedger(dir, ({ db }) =>
    db.write(async (tx) => {
      for (const m of undone) {
        for (const table of records) await tx.run(...q`DELETE FROM ${raw(table)} WHERE hash = ${sha256Hex(m.sql)}`);
        for (const s of undoStatements(m.sql, testEngine)) await tx.run(...q`${raw(s)}`);
      }
    }),
  );
}

describe("upgrading a ledger booked before distributions were described", () => {
  test("it comes after the portfolio read model's migration, dated after it", () => {
    expect(migrations[at - 1]!.tag).toMatch(/_portfolio_read_model$/);
    expect(migration.when).toBeGreaterThan(migrations[at - 1]!.when);
  });

  test("stale lineage and actions fail verify; after the migration they wait for their re-booking, are booked anew, and verify passes; no evidence hash moves", async () => {
    const { dir, evidence } = await demoWithOldRows();
    // Not marked for re-booking, the old rows are not what the engine derives: verify names each.
    const stale = await withLedger(dir, (l) => verifyLedger(l.db));
    const problems = stale.checks.filter((c) => !c.ok).flatMap((c) => c.problems);
    for (const mint of Object.keys(golden.lineage)) expect(problems.some((p) => p.includes(`lineage ${mint}`))).toBe(true);
    for (const id of Object.keys(oldActions)) expect(problems.some((p) => p.includes(`action ${id}`))).toBe(true);

    await beforeMigration(dir);
    const srv = await serveDemo(dir); // applies it
    const waiting = await verifyLedger(srv.ledger.db);
    expect(waiting.checks.filter((c) => !c.ok)).toEqual([]); // the marked mints and their wallets wait their booking
    try {
      const db = srv.ledger.db;
      expect((await db.all(...q<{ mint: string }>`SELECT mint FROM dirty_mints ORDER BY mint`)).map((r) => r.mint)).toEqual(
        (await db.all(...q<{ mint: string }>`SELECT mint FROM mint_schedule ORDER BY mint`)).map((r) => r.mint),
      );
      await bookEverythingDirty(db);
      const report = await verifyLedger(db);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.checks.find((c) => c.name === "derived tables match the engine")!.problemCount).toBe(0);
      const honx = JSON.parse((await db.get(...q<{ payload: string }>`SELECT payload FROM lineage WHERE mint = 'XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2'`))!.payload);
      expect(honx.links[0].distributed.description).toBe("a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by the issuer)");
      for (const id of Object.keys(oldActions)) {
        const [a] = await actionRecords(db, { id });
        expect(a!.lineageLink?.actionId).toBe(id);
      }
      const after = new Map((await db.all(...q<{ id: string; evidence_sha256: string }>`SELECT id, ${hex("evidence_sha256")} FROM actions`)).map((r) => [r.id, r.evidence_sha256]));
      expect(after).toEqual(evidence);
    } finally {
      await srv.stop();
    }
  });
});
