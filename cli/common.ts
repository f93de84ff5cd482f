// What every command shares: its setting flags (generated from the settings table), opening the
// ledger in the data dir, and the exit codes.
import type { ArgsDef } from "citty";
import { existsSync } from "node:fs";
import { defaultDataDir, loadConfig, settingsFor, type CommandName, type Config, type Setting } from "../src/config.ts";
import { ledgerPath, openLedger, type Ledger } from "../src/ledger/db.ts";

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
        valueHint: s.key === "trustProxy" ? undefined : s.key === "dataDir" ? "dir" : s.key.endsWith("Url") ? "url" : "value",
        description: `${s.description}. Env ${s.env}; default ${shownDefault(s, command)}.`,
      },
    ]),
  );
}

export function configFrom(args: Record<string, unknown>): Config {
  return loadConfig(args);
}

export async function openFrom(args: Record<string, unknown>) {
  const config = configFrom(args);
  return { config, ledger: await openLedger(config.dataDir) };
}

/**
 * Opens a ledger that must already exist: a command that only reads (or changes existing rows)
 * never creates a data dir. Without `migrate` the schema is left as it is.
 */
export function openExisting(args: Record<string, unknown>, opts: { migrate?: boolean } = {}): Promise<Ledger> {
  const { dataDir } = configFrom(args);
  if (!existsSync(ledgerPath(dataDir))) fail(`no ledger at ${ledgerPath(dataDir)}`, 1);
  return openLedger(dataDir, { migrate: opts.migrate ?? false });
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
