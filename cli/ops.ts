// Operator commands: `backup`, `restore`, `compact`, `verify`, `migrate` (docs/cli.md#operator-commands). All but
// `restore` and `compact` work while a server runs on the same data dir; exit 0 ok, 1 failure, 2 usage.
import { defineCommand } from "citty";
import { applyMigrations, openLedger, PAGE_SIZE, sqliteOf, type Ledger } from "../src/ledger/db.ts";
import { migrationStatus, type MigrationStatus } from "../src/ledger/migrations.ts";
import { backupLedger, compactLedger, isPageSize, OpsError, restoreLedger, type LedgerFileSummary } from "../src/ledger/backup.ts";
import { verifyLedger, type VerifyReport } from "../src/ledger/verify.ts";
import { configFrom, fail, openExisting, sayIfNew, settingArgs } from "./common.ts";

function printSummary(verb: string, s: LedgerFileSummary): void {
  const tables = s.tables
    .filter((t) => !t.name.startsWith("__"))
    .map((t) => `${t.name}=${t.rows}`)
    .join(" ");
  process.stdout.write(`${verb} ${s.path}: ${s.bytes} bytes, ${s.tables.length} tables, ${s.journalRows} journal rows, ${s.migrations} migrations\n${tables}\n`);
}

const opsFailure = (e: unknown): never => {
  if (e instanceof OpsError) fail(e.message, 1);
  throw e;
};

/** Backup, restore and compact work on the SQLite file; a PostgreSQL ledger has the engine's own tools, `instead`. */
function refusePostgres(command: string, databaseUrl: string | null, instead: string): void {
  if (databaseUrl) fail(`${command} ${instead}`, 1);
}
const pgDumpInstead = "copies the SQLite file; back up a PostgreSQL ledger with pg_dump and restore it with pg_restore (see the README)";

export const backupCommand = defineCommand({
  meta: { name: "backup", description: "Write a consistent copy of the ledger to <file> (online: the server may keep running)" },
  args: {
    file: { type: "positional", required: true, description: "Where to write the backup (must not exist)" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("backup"),
  },
  async run({ args }) {
    refusePostgres("backup", configFrom(args).databaseUrl, pgDumpInstead);
    const ledger = await openExisting(args);
    let summary: LedgerFileSummary;
    try {
      summary = backupLedger(sqliteOf(ledger), String(args.file));
    } catch (e) {
      return opsFailure(e);
    } finally {
      await ledger.close();
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
    ...settingArgs("restore"),
  },
  async run({ args }) {
    const { dataDir, databaseUrl } = configFrom(args);
    refusePostgres("restore", databaseUrl, pgDumpInstead);
    try {
      const r = await restoreLedger(dataDir, String(args.file), { force: Boolean(args.force) });
      printSummary("restored", r.summary);
      if (r.replaced) process.stdout.write(`previous ledger kept as ${r.replaced}\n`);
    } catch (e) {
      opsFailure(e);
    }
  },
});

export const compactCommand = defineCommand({
  meta: { name: "compact", description: "Rewrite the ledger file packed, at its page size or --page-size (stop the server first)" },
  args: {
    "page-size": { type: "string", description: `Bytes a page, a power of two from 512 to 65536 (a new ledger has ${PAGE_SIZE}); default: the ledger's own` },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("compact"),
  },
  run({ args }) {
    const { dataDir, databaseUrl } = configFrom(args);
    refusePostgres("compact", databaseUrl, "rewrites the SQLite file; PostgreSQL reclaims space with its own VACUUM (see docs/storage.md#compacting-a-ledger)");
    const pageSize = args["page-size"] === undefined ? undefined : Number(args["page-size"]);
    if (pageSize !== undefined && !isPageSize(pageSize)) fail(`--page-size takes a power of two from 512 to 65536, not ${args["page-size"]}`, 2);
    try {
      const r = compactLedger(dataDir, { pageSize });
      if (args.json) process.stdout.write(JSON.stringify(r) + "\n");
      else process.stdout.write(`compacted ${r.path}: ${r.bytesBefore} → ${r.bytesAfter} bytes, pages of ${r.pageSizeBefore} → ${r.pageSize} bytes\n`);
    } catch (e) {
      opsFailure(e);
    }
  },
});

export const verifyCommand = defineCommand({
  meta: { name: "verify", description: "Recompute every evidence hash, check the journal, income and a replay; exit 1 on any mismatch" },
  args: { json: { type: "boolean", description: "Print one JSON object" }, ...settingArgs("verify") },
  async run({ args }) {
    const ledger = await openExisting(args);
    let report;
    try {
      report = await verifyLedger(ledger.db);
    } finally {
      await ledger.close();
    }
    if (args.json) {
      process.stdout.write(JSON.stringify(report) + "\n");
    } else {
      writeChecks(report);
      process.stdout.write(report.ok ? "ledger verified\n" : "ledger FAILED verification\n");
    }
    if (!report.ok) process.exitCode = 1;
  },
});

/** Each check of a verify report, one line each, its problems under it. */
export function writeChecks(report: VerifyReport): void {
  for (const c of report.checks) {
    process.stdout.write(`${c.ok ? "ok  " : "FAIL"}  ${c.name} (${c.checked} checked${c.ok ? "" : `, ${c.problemCount} mismatches`})\n`);
    for (const p of c.problems) process.stdout.write(`        ${p}\n`);
  }
}

/** When it was applied here (older ledgers did not record it), and when it was written. */
function describeMigration(m: MigrationStatus): string {
  const written = `written ${new Date(m.when).toISOString()}`;
  if (!m.applied) return written;
  return `applied ${m.appliedAt ?? "at an unrecorded time (before ca-ledger kept it)"}, ${written}`;
}

/** The ledger `migrate` applies migrations to: created if new, after saying where (as every command does). */
async function openToMigrate(args: Record<string, unknown>): Promise<Ledger> {
  const config = configFrom(args);
  await sayIfNew(config, args);
  return openLedger(config, { migrate: false });
}

export const migrateCommand = defineCommand({
  meta: { name: "migrate", description: "Apply pending embedded migrations, or list them with --status" },
  args: {
    status: { type: "boolean", description: "List the embedded migrations, applied or pending; change nothing" },
    json: { type: "boolean", description: "Print JSON (with --status)" },
    ...settingArgs("migrate"),
  },
  async run({ args }) {
    const ledger: Ledger = args.status ? await openExisting(args) : await openToMigrate(args);
    try {
      if (!args.status) {
        const n = await applyMigrations(ledger);
        process.stdout.write(n ? `applied ${n} migration(s)\n` : "no pending migrations\n");
      }
      const status = await migrationStatus(ledger.db);
      if (args.json) return void process.stdout.write(JSON.stringify({ migrations: status }) + "\n");
      if (args.status) for (const m of status) process.stdout.write(`${m.applied ? "applied" : "pending"}  ${m.tag}  ${describeMigration(m)}  ${m.hash.slice(0, 12)}\n`);
    } finally {
      await ledger.close();
    }
  },
});
