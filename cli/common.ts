// What every command shares: the data-dir flag and opening the ledger there.
import { loadConfig, type Config } from "../src/config.ts";
import { openLedger } from "../src/ledger/db.ts";

export const dataDirArg = { "data-dir": { type: "string" as const, description: "Folder holding ledger.db (env CA_LEDGER_DATA_DIR)" } };

export function configFrom(args: Record<string, unknown>): Config {
  return loadConfig(args);
}

export function openFrom(args: Record<string, unknown>) {
  const config = configFrom(args);
  return { config, ledger: openLedger(config.dataDir) };
}

/** Exit codes: 1 for a failed operation, 2 for a usage error (docs/cli.md#exit-codes). */
export function fail(message: string, code: 1 | 2 = 1): never {
  process.stderr.write(`ca-ledger: ${message}\n`);
  process.exit(code);
}
