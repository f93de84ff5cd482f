// Operator commands: `backup`, `restore`, `verify`, `migrate` (docs/cli.md#operator-commands). All but `restore`
// work while a server runs on the same data dir; exit 0 ok, 1 failure, 2 usage.
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { applyMigrations, ledgerPath, migrationStatus, openLedger, type Ledger } from "../src/ledger/db.ts";
import { backupLedger, OpsError, restoreLedger, type LedgerFileSummary } from "../src/ledger/backup.ts";
import { verifyLedger } from "../src/ledger/verify.ts";
import { configFrom, dataDirArg, fail } from "./common.ts";

/** Opens an existing ledger without migrating it: read-mostly commands never change the schema. */
function openExisting(args: Record<string, unknown>): Ledger {
  const { dataDir } = configFrom(args);
  if (!existsSync(ledgerPath(dataDir))) fail(`no ledger at ${ledgerPath(dataDir)}`, 1);
  return openLedger(dataDir, { migrate: false });
}

function printSummary(verb: string, s: LedgerFileSummary): void {
  const tables = s.tables.filter((t) => !t.name.startsWith("__")).map((t) => `${t.name}=${t.rows}`).join(" ");
  process.stdout.write(`${verb} ${s.path}: ${s.bytes} bytes, ${s.tables.length} tables, ${s.journalRows} journal rows, ${s.migrations} migrations\n${tables}\n`);
}

const opsFailure = (e: unknown): never => {
  if (e instanceof OpsError) fail(e.message, 1);
  throw e;
};

export const backupCommand = defineCommand({
  meta: { name: "backup", description: "Write a consistent copy of the ledger to <file> (online: the server may keep running)" },
  args: {
    file: { type: "positional", required: true, description: "Where to write the backup (must not exist)" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...dataDirArg,
  },
  run({ args }) {
    const ledger = openExisting(args);
    let summary: LedgerFileSummary;
    try {
      summary = backupLedger(ledger.sqlite, String(args.file));
    } catch (e) {
      return opsFailure(e);
    } finally {
      ledger.close();
    }
    if (args.json) process.stdout.write(JSON.stringify(summary) + "\n");
    else printSummary("wrote", summary);
  },
});

export const restoreCommand = defineCommand({
  meta: { name: "restore", description: "Replace the ledger with a backup file (stop the server first)" },
  args: {
    file: { type: "positional", required: true, description: "A backup written by `ca-ledger backup`" },
    force: { type: "boolean", description: "Replace a ledger that holds data (the old file is kept beside it)" },
    ...dataDirArg,
  },
  run({ args }) {
    const { dataDir } = configFrom(args);
    try {
      const r = restoreLedger(dataDir, String(args.file), { force: Boolean(args.force) });
      printSummary("restored", r.summary);
      if (r.replaced) process.stdout.write(`previous ledger kept as ${r.replaced}\n`);
    } catch (e) {
      opsFailure(e);
    }
  },
});

export const verifyCommand = defineCommand({
  meta: { name: "verify", description: "Recompute every evidence hash, check the journal, income and a replay; exit 1 on any mismatch" },
  args: { json: { type: "boolean", description: "Print one JSON object" }, ...dataDirArg },
  run({ args }) {
    const ledger = openExisting(args);
    let report;
    try {
      report = verifyLedger(ledger.sqlite);
    } finally {
      ledger.close();
    }
    if (args.json) {
      process.stdout.write(JSON.stringify(report) + "\n");
    } else {
      for (const c of report.checks) {
        process.stdout.write(`${c.ok ? "ok  " : "FAIL"}  ${c.name} (${c.checked} checked${c.ok ? "" : `, ${c.problemCount} mismatches`})\n`);
        for (const p of c.problems) process.stdout.write(`        ${p}\n`);
      }
      process.stdout.write(report.ok ? "ledger verified\n" : "ledger FAILED verification\n");
    }
    if (!report.ok) process.exitCode = 1;
  },
});

export const migrateCommand = defineCommand({
  meta: { name: "migrate", description: "Apply pending embedded migrations, or list them with --status" },
  args: {
    status: { type: "boolean", description: "List the embedded migrations, applied or pending; change nothing" },
    json: { type: "boolean", description: "Print JSON (with --status)" },
    ...dataDirArg,
  },
  run({ args }) {
    const { dataDir } = configFrom(args);
    if (args.status && !existsSync(ledgerPath(dataDir))) fail(`no ledger at ${ledgerPath(dataDir)}`, 1);
    const ledger = openLedger(dataDir, { migrate: false });
    try {
      if (!args.status) {
        const n = applyMigrations(ledger.sqlite);
        process.stdout.write(n ? `applied ${n} migration(s)\n` : "no pending migrations\n");
      }
      const status = migrationStatus(ledger.sqlite);
      if (args.json) return void process.stdout.write(JSON.stringify({ migrations: status }) + "\n");
      if (args.status) for (const m of status) process.stdout.write(`${m.applied ? "applied" : "pending"}  ${m.tag}  ${new Date(m.when).toISOString()}  ${m.hash.slice(0, 12)}\n`);
    } finally {
      ledger.close();
    }
  },
});
