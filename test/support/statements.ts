// Every statement the ledger defines: each module of src/ledger is loaded, so each statement it
// makes with `query` is in the registry (src/ledger/sql/statement.ts). A statement added anywhere
// in src/ledger is found here without being listed.
import { Glob } from "bun";
import { join } from "node:path";
import { registeredStatements, type Query } from "../../src/ledger/sql/statement.ts";
import { repoRoot } from "../harness/index.ts";

export async function ledgerStatements(): Promise<readonly Query[]> {
  for (const file of new Glob("src/ledger/**/*.ts").scanSync(repoRoot)) await import(join(repoRoot, file));
  return registeredStatements();
}
