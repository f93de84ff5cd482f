// Every statement the ledger defines: each module of src/ledger is loaded, so each statement it
// makes with `query` is in the registry (src/ledger/sql/statement.ts). A statement added anywhere
// in src/ledger is found here without being listed.
import { Glob } from "bun";
import { join } from "node:path";
import { registeredStatements, type Query } from "../../src/ledger/sql/statement.ts";
import type { Db } from "../../src/ledger/sql/port.ts";
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
