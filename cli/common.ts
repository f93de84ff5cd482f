// What every command shares: its setting flags (generated from the settings table), opening the
// ledger in the data dir, and the exit codes.
import type { ArgsDef } from "citty";
import { existsSync } from "node:fs";
import { defaultDataDir, loadConfig, settingsFor, type CommandName, type Config, type Setting } from "../src/config.ts";
import { ledgerName, ledgerPath, openLedger, type Ledger } from "../src/ledger/db.ts";
import { migrationStatus } from "../src/ledger/migrations.ts";

/** The default a person reads in --help: the data dir as the path it resolves to here. */
function shownDefault(s: Setting, command: CommandName): string {
  if (s.key !== "dataDir") return s.default;
  const live = defaultDataDir(process.env);
  return command === "serve" ? `${live} (with --demo: ${defaultDataDir(process.env, true)})` : live;
}

/** The flags of every setting `command` reads, each also read from its env variable. */
export function settingArgs(command: CommandName): ArgsDef {
  return Object.fromEntries(
    settingsFor(command).map((s) => [
      s.flag,
      {
        type: s.key === "trustProxy" ? ("boolean" as const) : ("string" as const),
        valueHint: s.key === "trustProxy" ? undefined : s.key === "logRequests" ? "on|off" : s.key === "dataDir" ? "dir" : s.key.endsWith("Url") ? "url" : "value",
        description: `${s.description}. Env ${s.env}; default ${shownDefault(s, command)}.`,
      },
    ]),
  );
}

export function configFrom(args: Record<string, unknown>): Config {
  return loadConfig(args);
}

/** Opens the ledger the settings name (SQLite in the data dir, or DATABASE_URL), creating it if new. */
export async function openFrom(args: Record<string, unknown>) {
  const config = configFrom(args);
  return { config, ledger: await openOrFail(config, {}) };
}

/**
 * Opens a ledger that must already exist: a command that only reads (or changes existing rows)
 * never creates a data dir, nor a ledger in an empty database. Without `migrate` the schema is
 * left as it is.
 */
export async function openExisting(args: Record<string, unknown>, opts: { migrate?: boolean } = {}): Promise<Ledger> {
  const config = configFrom(args);
  const migrate = opts.migrate ?? false;
  if (!config.databaseUrl) {
    if (!existsSync(ledgerPath(config.dataDir))) fail(`no ledger at ${ledgerPath(config.dataDir)}`, 1);
    return openOrFail(config, { migrate });
  }
  // A database without the ledger's migrations holds no ledger: nothing is created in it.
  const ledger = await openOrFail(config, { migrate: false });
  if (!(await migrationStatus(ledger.db)).some((m) => m.applied)) {
    await ledger.close();
    fail(`no ledger at ${ledgerName(ledger)}`, 1);
  }
  if (!migrate) return ledger;
  await ledger.close();
  return openOrFail(config, {});
}

async function openOrFail(config: Config, opts: { migrate?: boolean }): Promise<Ledger> {
  try {
    return await openLedger(config, opts);
  } catch (e) {
    if (config.databaseUrl) fail((e as Error).message, 1); // unreachable, refused, wrong password: said without the password
    throw e;
  }
}

/** Exit codes: 1 for a failed operation, 2 for a usage error (docs/cli.md#exit-codes). */
export function fail(message: string, code: 1 | 2 = 1): never {
  process.stderr.write(`ca-ledger: ${message}\n`);
  process.exit(code);
}

/** A reader that went away (`ca-ledger keys list | head -1`): the command ends quietly. */
export function isClosedPipe(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === "EPIPE";
}
