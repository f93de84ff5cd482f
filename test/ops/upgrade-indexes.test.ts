// A ledger at the indexes of before (SQLite's migration 0017, PostgreSQL's 0008: three indexes on
// a wallet's actions, two on its journal by owner) upgrades in place, on either engine: the
// migration (SQLite 0018, PostgreSQL 0009, docs/storage.md#indexes) leaves the indexes a new
// ledger has, every answer, hash and seal of the demo stays byte for byte what it was, and verify
// passes.
import { afterAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { undoStatements } from "../support/actions-before.ts";
import { demoAnswers, loadCorrectedDemo } from "../support/demo-answers.ts";
import { ledgerTarget, testEngine } from "../support/engine.ts";
import { q, raw } from "../support/sql.ts";
import { removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

const migrations = migrationsOf(testEngine);
const at = migrations.findIndex((m) => m.tag.endsWith("_fewer_indexes"));
const migration = migrations[at]!;
/** Where the migrator records what it applied (src/ledger/migrations.ts). */
const records = testEngine === "sqlite" ? ["__drizzle_migrations", "__migrations_applied_at"] : ['drizzle."__drizzle_migrations"', 'drizzle."__migrations_applied_at"'];

/** Each index of the ledger's tables by name, with the statement that defines it. */
async function indexes(db: Sql): Promise<Record<string, string>> {
  const rows =
    db.dialect === "sqlite"
      ? await db.all(...q<{ name: string; def: string }>`SELECT name, sql AS def FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
      : await db.all(...q<{ name: string; def: string }>`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema()`);
  return Object.fromEntries(rows.map((r) => [r.name, r.def]).sort(([a], [b]) => (a! < b! ? -1 : 1)));
}

/** The indexes of a new ledger made by the first `n` migrations alone. */
async function indexesOfNew(n: number): Promise<Record<string, string>> {
  const l = await openLedger(ledgerTarget(tempDir("cal-idx-new-")), { migrate: false });
  try {
    for (const m of migrations.slice(0, n)) for (const s of m.sql.split("--> statement-breakpoint")) if (s.trim()) await l.db.exec(s);
    // The store-once migration's data step drops the table its SQL renamed (src/ledger/upgrades.ts).
    await l.db.exec("DROP TABLE actions_before_events");
    return await indexes(l.db);
  } finally {
    await l.close();
  }
}

describe("upgrading a ledger to one index on a wallet's actions and one on its journal by owner", () => {
  test("it is dated after the one before", () => {
    expect(at).toBeGreaterThan(0);
    expect(migration.when).toBeGreaterThan(migrations[at - 1]!.when);
  });

  test("the demo at the indexes of before upgrades in place: the indexes of a new ledger, every answer, hash and seal the same, verify passes", async () => {
    const dir = tempDir("cal-idx-");
    await loadCorrectedDemo(dir);
    const before = await demoAnswers(dir);
    const fresh = await indexesOfNew(migrations.length);
    // Taken back: the migration's indexes go, those it dropped come back, its record goes; so does
    // every later migration, first (the migrator applies what is dated after the last it recorded).
    await withLedger(dir, async ({ db }) => {
      expect(await indexes(db)).toEqual(fresh);
      await db.write(async (tx) => {
        for (const m of migrations.slice(at).reverse()) {
          for (const s of undoStatements(m.sql, testEngine)) await tx.run(...q`${raw(s)}`);
          for (const table of records) await tx.run(...q`DELETE FROM ${raw(table)} WHERE hash = ${sha256Hex(m.sql)}`);
        }
      });
      const old = await indexes(db);
      expect(old).toEqual(await indexesOfNew(at));
      for (const name of ["actions_owner_v1", "actions_owner_v1_kind", "journal_owner"]) expect(Object.keys(old)).toContain(name);
    });
    const after = await demoAnswers(dir); // the server opens the ledger: the migration runs
    expect(after.answers).toEqual(before.answers);
    expect(after.hashes).toEqual(before.hashes);
    await withLedger(dir, async ({ db }) => {
      const now = await indexes(db);
      expect(now).toEqual(fresh);
      for (const name of ["actions_owner_v1", "actions_owner_v1_kind", "journal_owner"]) expect(Object.keys(now)).not.toContain(name);
      const report = await verifyLedger(db);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    });
  }, 120_000);
});
