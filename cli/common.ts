// What every command shares: its setting flags (generated from the settings table), opening the
// ledger in the data dir, and the exit codes.
import type { ArgsDef } from "citty";
import { existsSync } from "node:fs";
import { defaultDataDir, loadConfig, settingsFor, type CommandName, type Config, type Setting } from "../src/config.ts";
import { dataDirHeld } from "../src/ledger/data-dir-lock.ts";
import { ledgerName, ledgerPath, newLedgerLocation, openLedger, type Ledger } from "../src/ledger/db.ts";
import { migrationStatus } from "../src/ledger/migrations.ts";

/** The default a person reads in --help: the data dir as the path it resolves to here. */
function shownDefault(s: Setting, command: CommandName): string {
  if (s.key !== "dataDir") return s.default;
  const live = defaultDataDir(process.env);
  return command === "serve" ? `${live} (with --demo: ${defaultDataDir(process.env, true)})` : live;
}

/**
 * The flags of every setting `command` reads, each also read from its env variable; and, beside
 * `--data-dir`, `--demo`: the demo's own data dir (`serve` declares its own, which also loads it).
 */
export function settingArgs(command: CommandName): ArgsDef {
  const demo: ArgsDef =
    command === "serve" || !settingsFor(command).some((s) => s.key === "dataDir")
      ? {}
      : {
          demo: { type: "boolean", description: `Use the demo's ledger (the data dir \`serve --demo\` uses, ${defaultDataDir(process.env, true)}) instead of the live one; it must exist` },
        };
  const flags: ArgsDef = Object.fromEntries(
    settingsFor(command).map((s) => [
      s.flag,
      {
        type: s.key === "trustProxy" ? ("boolean" as const) : ("string" as const),
        valueHint: s.key === "trustProxy" ? undefined : s.key === "logRequests" ? "on|off" : s.key === "dataDir" ? "dir" : s.key.endsWith("Url") ? "url" : "value",
        description: `${s.description}. Env ${s.env}; default ${shownDefault(s, command)}.`,
      },
    ]),
  );
  return { ...flags, ...demo };
}

/**
 * The settings of a command's flags and environment. With `--demo` the data dir is the demo's
 * (unless `--data-dir` names one), never CA_LEDGER_DATA_DIR, and a database URL is refused: the
 * demo's ledger is SQLite in its data dir. `migrate-to-postgres` passes `databaseIsTarget`: its
 * database is where the copy goes, not the ledger read.
 */
export function configFrom(args: Record<string, unknown>, opts: { databaseIsTarget?: boolean } = {}): Config {
  const demo = args.demo === true;
  const config = loadConfig(args, process.env, { demo });
  if (demo && config.databaseUrl && !opts.databaseIsTarget) fail("--demo uses the demo's SQLite ledger in its own data dir; unset DATABASE_URL (or drop --database-url) to use it", 2);
  return config;
}

/**
 * Opens the ledger the settings name (SQLite in the data dir, or DATABASE_URL), creating it if
 * new, after saying where on stderr (docs/cli.md#new-ledgers). The demo's ledger is never created
 * here: `serve --demo` makes it.
 */
export async function openFrom(args: Record<string, unknown>) {
  const config = configFrom(args);
  if (!config.databaseUrl) refuseLedgerGoneUnderServer(config.dataDir);
  await sayIfNew(config, args);
  return { config, ledger: await openOrFail(config, {}) };
}

/**
 * `ledger.db` missing while a server holds its data dir: it was deleted (or moved) under the
 * running server, which still serves the old file. A ledger made now would be a new, empty one
 * the server never reads, and a key created in it would be gone once the file is restored or the
 * server restarts: refused, and nothing is written (docs/operations.md#ledgerdb-gone-under-a-running-server).
 */
function refuseLedgerGoneUnderServer(dataDir: string): void {
  const path = ledgerPath(dataDir);
  if (existsSync(path) || !dataDirHeld(dataDir)) return;
  fail(
    `${path} is missing, but a ca-ledger server holds data dir ${dataDir}: the file was deleted or moved under the running server. ` +
      "Nothing was written (a new ledger here would be one the server never reads). Stop the server, restore ledger.db from a backup (ca-ledger restore), then start it again.",
    1,
  );
}

/**
 * Before a command creates a ledger, one line on stderr saying where, and where the demo's is
 * when one exists and the user named no data dir (the likely mix-up: a live ledger made by a
 * command typed while looking at the demo). With --demo, a missing demo ledger is an error.
 */
export async function sayIfNew(config: Config, args: Record<string, unknown>): Promise<void> {
  const where = await newLedgerLocation(config).catch((e: Error) => fail(e.message, 1));
  if (!where) return;
  if (args.demo === true) fail(`no demo ledger at ${where}: start the demo first with 'ca-ledger serve --demo'`, 1);
  const demoLedger = ledgerPath(defaultDataDir(process.env, true));
  const liveDefault = !config.databaseUrl && config.dataDir === defaultDataDir(process.env);
  const hint = liveDefault && existsSync(demoLedger) ? ` The demo's ledger is ${demoLedger}: add --demo to use it instead.` : "";
  process.stderr.write(`ca-ledger: no ledger at ${where} yet; creating a new one there.${hint}\n`);
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
