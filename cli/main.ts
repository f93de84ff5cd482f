#!/usr/bin/env bun
// The binary's entry: one executable for the server, the worker and every operator command.
import "./no-color.ts"; // first: citty reads NO_COLOR when it loads
import { defineCommand, runCommand, runMain } from "citty";
import { importCommand } from "./import.ts";
import { keysCommand } from "./keys.ts";
import { walletsCommand } from "./wallets.ts";
import { webhooksCommand } from "./webhooks.ts";
import { calendarUrlCommand } from "./calendar-url.ts";
import { serveCommand } from "./serve.ts";
import { syncCommand } from "./sync.ts";
import { ratesCommand } from "./rates.ts";
import { backupCommand, compactCommand, migrateCommand, restoreCommand, verifyCommand } from "./ops.ts";
import { migrateToPostgresCommand } from "./migrate-to-postgres.ts";
import { mcpCommand } from "./mcp.ts";
import { isClosedPipe } from "./common.ts";
import { checkArgs } from "./strict-args.ts";
import { showUsage } from "./usage.ts";
import { version } from "../src/version.ts";

const main = defineCommand({
  meta: { name: "ca-ledger", version, description: "Corporate actions ledger for tokenized stocks on Solana" },
  subCommands: {
    serve: serveCommand,
    keys: keysCommand,
    wallets: walletsCommand,
    webhooks: webhooksCommand,
    "calendar-url": calendarUrlCommand,
    sync: syncCommand,
    backup: backupCommand,
    restore: restoreCommand,
    compact: compactCommand,
    verify: verifyCommand,
    migrate: migrateCommand,
    "migrate-to-postgres": migrateToPostgresCommand,
    rates: ratesCommand,
    import: importCommand,
    mcp: mcpCommand,
  },
});

/**
 * citty exits 1 for everything; docs/cli.md#exit-codes wants 2 for usage errors (unknown flags,
 * extra or missing arguments, unknown commands), 1 for a failed operation. Help and version stay
 * citty's own (with our usage renderer).
 */
async function run(): Promise<void> {
  // The ledger lists the wallets a tenant follows and backups copy it: every file this process
  // creates is the owner's alone, whatever umask it was started with.
  process.umask(0o077);
  process.stdout.on("error", (e) => process.exit(isClosedPipe(e) ? 0 : 1));
  const rawArgs = process.argv.slice(2);
  try {
    if (rawArgs.some((a) => a === "--help" || a === "-h") || (rawArgs.length === 1 && ["--version", "-v"].includes(rawArgs[0]!))) return await runMain(main, { rawArgs, showUsage });
    await checkArgs(main, rawArgs);
    await runCommand(main, { rawArgs });
  } catch (e) {
    if (isClosedPipe(e)) process.exit(0);
    const code = (e as { code?: unknown })?.code;
    if (typeof code === "string" && /^E(ARG|_UNKNOWN_COMMAND|_NO_COMMAND)$/.test(code)) {
      process.stderr.write(`ca-ledger: ${(e as Error).message}\nRun 'ca-ledger --help' or 'ca-ledger <command> --help' for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`ca-ledger: ${(e as Error)?.message ?? e}\n`);
    process.exit(1);
  }
}

await run();
