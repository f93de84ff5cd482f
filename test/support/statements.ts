// Every statement the ledger defines: each module of src/ledger is loaded, so each statement it
// makes with `query` is in the registry (src/ledger/sql/statement.ts). A statement added anywhere
// in src/ledger is found here without being listed.
import { Glob } from "bun";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { registeredStatements, type Query } from "../../src/ledger/sql/statement.ts";
import type { Db } from "../../src/ledger/sql/port.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { repoRoot } from "../harness/index.ts";
import { dataStepTables } from "./actions-before.ts";

export async function ledgerStatements(): Promise<readonly Query[]> {
  for (const file of new Glob("src/ledger/**/*.ts").scanSync(repoRoot)) await import(join(repoRoot, file));
  return registeredStatements();
}

/**
 * Makes the tables some statements read that the migrated schema does not hold: those that exist
 * only while a migration's data step runs (src/ledger/upgrades.ts).
 */
export async function addTablesBeyondTheSchema(db: Db): Promise<void> {
  for (const ddl of dataStepTables(db.dialect)) await db.exec(ddl);
}

/** The statements of each of the engine's migrations up to and with the one tagged `tag`. */
export function migrationStatementsTo(dialect: Db["dialect"], tag: string): string[] {
  const all = migrationsOf(dialect);
  const at = all.findIndex((m) => m.tag === tag);
  if (at < 0) throw new Error(`no ${dialect} migration is tagged ${tag}`);
  return all.slice(0, at + 1).flatMap((m) =>
    m.sql
      .split("--> statement-breakpoint")
      .map((x) => x.trim())
      .filter(Boolean),
  );
}

/** A scratch SQLite database with the schema the migrations up to `tag` left (a data step's statements prepare there). */
export function sqliteAt(tag: string): Database {
  const db = new Database(":memory:");
  for (const s of migrationStatementsTo("sqlite", tag)) db.exec(s);
  return db;
}
