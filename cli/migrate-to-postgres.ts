// `ca-ledger migrate-to-postgres --database-url … [--data-dir DIR]`: copies the SQLite ledger of
// the data dir into an empty PostgreSQL database (migrated first), then verifies the copy and
// compares its row counts with the source's (docs/postgres.md#moving-over). Exit 0 when the copy
// verifies, 1 otherwise; the SQLite ledger is left as it was.
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { ledgerName, ledgerPath, openLedger, type Ledger } from "../src/ledger/db.ts";
import { verifyLedger, type VerifyReport } from "../src/ledger/verify.ts";
import { configFrom, fail, sayIfNew, settingArgs } from "./common.ts";
import { writeChecks } from "./ops.ts";

export const migrateToPostgresCommand = defineCommand({
  meta: { name: "migrate-to-postgres", description: "Copy the data dir's SQLite ledger into an empty PostgreSQL database and verify the copy" },
  args: { json: { type: "boolean", description: "Print one JSON object" }, ...settingArgs("migrate-to-postgres") },
  async run({ args }) {
    const config = configFrom(args, { databaseIsTarget: true });
    if (!config.databaseUrl) fail("name the PostgreSQL database with --database-url (or DATABASE_URL)", 2);
    if (!existsSync(ledgerPath(config.dataDir))) fail(`no ledger at ${ledgerPath(config.dataDir)}`, 1);
    await sayIfNew(config, {}); // the copy's new ledger, in the database named
    // Loaded here: the copy reads both schemas, which no other command needs.
    const { copyLedger, CopyRefused, rowCounts } = await import("../src/ledger/copy.ts");
    const source = await openLedger(config.dataDir);
    let target: Ledger | null = null;
    try {
      target = await openLedger(config).catch((e) => fail((e as Error).message, 1));
      const copy = await copyLedger(source.db, target.db).catch((e: unknown) => (e instanceof CopyRefused ? fail(`${ledgerName(target!)}: ${e.message}`, 1) : Promise.reject(e)));
      const [before, after] = [await rowCounts(source.db), await rowCounts(target.db)];
      const mismatched = [...before].filter(([t, n]) => after.get(t) !== n).map(([t, n]) => `${t}: ${n} in SQLite, ${after.get(t)} copied`);
      const report = await verifyLedger(target.db);
      const ok = report.ok && mismatched.length === 0;
      print(args.json === true, { ok, rows: copy.rows, tables: copy.tables, mismatched, verify: report });
      if (!ok) process.exitCode = 1;
    } finally {
      await target?.close();
      await source.close();
    }
  },
});

function print(json: boolean, r: { ok: boolean; rows: number; tables: { name: string; rows: number }[]; mismatched: string[]; verify: VerifyReport }): void {
  if (json) return void process.stdout.write(JSON.stringify(r) + "\n");
  process.stdout.write(
    `copied ${r.rows} rows in ${r.tables.length} tables: ${r.tables
      .filter((t) => t.rows)
      .map((t) => `${t.name}=${t.rows}`)
      .join(" ")}\n`,
  );
  for (const m of r.mismatched) process.stdout.write(`FAIL  ${m}\n`);
  writeChecks(r.verify);
  process.stdout.write(r.ok ? "the PostgreSQL copy verifies: serve it with DATABASE_URL\n" : "the PostgreSQL copy FAILED verification\n");
}
