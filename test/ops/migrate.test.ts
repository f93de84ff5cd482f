// `migrate --status` lists the embedded migrations, applied or pending; `migrate` applies them.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { cli, removeTempDirs, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

/** A ledger left at the first migration, as an older ca-ledger would have written it. */
function ledgerAtFirstMigration(): string {
  const dir = tempDir("cal-mig-");
  const db = new Database(join(dir, "ledger.db"), { create: true });
  const first = embeddedMigrations[0]!;
  db.exec("CREATE TABLE __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)");
  for (const stmt of first.sql.split("--> statement-breakpoint")) if (stmt.trim()) db.exec(stmt);
  db.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)").run(createHash("sha256").update(first.sql).digest("hex"), first.when);
  db.close();
  return dir;
}

describe("ca-ledger migrate", () => {
  test("--status shows pending migrations, migrate applies them, --status then shows all applied", () => {
    expect(embeddedMigrations.length).toBeGreaterThanOrEqual(2);
    const dir = ledgerAtFirstMigration();
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
    const db = new Database(join(dir, "ledger.db"), { readonly: true });
    expect(db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get()).toEqual({ n: 0 });
    db.close();

    const apply = cli(["migrate", "--data-dir", dir]);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain(`applied ${embeddedMigrations.length - 1} migration(s)`);
    const after = JSON.parse(cli(["migrate", "--status", "--json", "--data-dir", dir]).stdout);
    expect(after.migrations.every((m: any) => m.applied)).toBe(true);
    expect(cli(["migrate", "--data-dir", dir]).stdout).toContain("no pending migrations");
  });

  test("--status on a missing ledger exits 1", () => {
    const r = cli(["migrate", "--status", "--data-dir", join(tempDir(), "none")]);
    expect(r.code).toBe(1);
  });
});
