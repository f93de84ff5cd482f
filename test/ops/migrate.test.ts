// `migrate --status` lists the embedded migrations, applied or pending; `migrate` applies them.
// On either engine: the ledger is left at its first migration through the port.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { tableNames, triggerNames } from "../../src/ledger/sql/dialect.ts";
import { ledgerTarget, testEngine } from "../support/engine.ts";
import { cli, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { q, raw } from "../support/sql.ts";

afterAll(removeTempDirs);

const embeddedMigrations = migrationsOf(testEngine);

/** Where drizzle's migrator records what it applied: SQLite's in the database, PostgreSQL's in a schema of its own. */
const drizzleRecords = {
  sqlite: ["CREATE TABLE __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)", "__drizzle_migrations"],
  postgres: [`CREATE SCHEMA drizzle; CREATE TABLE drizzle."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`, `drizzle."__drizzle_migrations"`],
} as const;

/**
 * A ledger left at the first migration with drizzle's record only, as an older ca-ledger (or
 * drizzle-kit's own migrator) would have written it: nothing says when it was applied.
 */
async function ledgerAtFirstMigration(): Promise<string> {
  const dir = tempDir("cal-mig-");
  const ledger = await openLedger(ledgerTarget(dir), { migrate: false });
  const [create, table] = drizzleRecords[testEngine];
  const first = embeddedMigrations[0]!;
  await ledger.db.exec(create);
  for (const stmt of first.sql.split("--> statement-breakpoint")) if (stmt.trim()) await ledger.db.exec(stmt);
  await ledger.db.run(...q`INSERT INTO ${raw(table)} (hash, created_at) VALUES (${sha256Hex(first.sql)}, ${first.when})`);
  await ledger.close();
  return dir;
}

/** Every trigger of the ledger's tables, by table. */
async function triggers(dir: string): Promise<string[]> {
  return withLedger(dir, async ({ db }) => (await Promise.all((await tableNames(db)).map(async (t) => (await triggerNames(db, t)).map((n) => `${t}.${n}`)))).flat());
}

describe("ca-ledger migrate", () => {
  test("--status shows pending migrations, migrate applies them, --status then shows all applied", async () => {
    expect(embeddedMigrations.length).toBeGreaterThanOrEqual(2);
    const dir = await ledgerAtFirstMigration();
    const status = cli(["migrate", "--status", "--data-dir", dir]);
    expect(status.code).toBe(0);
    const lines = status.stdout.trim().split("\n");
    expect(lines).toHaveLength(embeddedMigrations.length);
    // Applied by an older ca-ledger, which did not record when.
    expect(lines[0]).toMatch(new RegExp(`^applied  ${embeddedMigrations[0]!.tag}  applied at an unrecorded time`));
    for (const [i, m] of embeddedMigrations.slice(1).entries()) expect(lines[i + 1]).toMatch(new RegExp(`^pending  ${m.tag}  `));

    const json = JSON.parse(cli(["migrate", "--status", "--json", "--data-dir", dir]).stdout);
    expect(json.migrations.map((m: any) => [m.tag, m.applied])).toEqual(embeddedMigrations.map((m, i) => [m.tag, i === 0]));
    // --status changed nothing: the append-only triggers of the second migration are absent.
    expect(await triggers(dir)).toEqual([]);

    const apply = cli(["migrate", "--data-dir", dir]);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain(`applied ${embeddedMigrations.length - 1} migration(s)`);
    const after = JSON.parse(cli(["migrate", "--status", "--json", "--data-dir", dir]).stdout);
    expect(after.migrations.every((m: any) => m.applied)).toBe(true);
    expect(await triggers(dir)).toEqual(expect.arrayContaining(["journal.journal_no_update", "journal.journal_no_delete"]));
    expect(cli(["migrate", "--data-dir", dir]).stdout).toContain("no pending migrations");
  });

  test("--status on a missing ledger exits 1", () => {
    const r = cli(["migrate", "--status", "--data-dir", join(tempDir(), "none")]);
    expect(r.code).toBe(1);
  });
});
