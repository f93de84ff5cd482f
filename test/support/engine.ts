// Which engine the ledger tests run on. By default SQLite, in each test's data dir. With
// CA_LEDGER_TEST_ENGINE=postgres and CA_LEDGER_TEST_POSTGRES naming a PostgreSQL server (a URL
// whose user may create databases, as .ci/run's throwaway cluster gives), the same tests run on
// PostgreSQL: each data dir a test makes is paired with a database of its own, created on first
// use, and every way a test opens a ledger (in process, the server, the binary) is pointed at it.
// The tests of test/postgres/ (*.pg.ts, which `bun test` alone does not pick up) need the server
// whatever the engine, and fail without it.
import { createHash } from "node:crypto";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { LedgerTarget } from "../../src/ledger/db.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { ident, q } from "./sql.ts";

/** The PostgreSQL server tests may use (an admin URL), or null. */
export const testPostgresUrl: string | null = process.env.CA_LEDGER_TEST_POSTGRES || null;

export const testEngine: "sqlite" | "postgres" = process.env.CA_LEDGER_TEST_ENGINE === "postgres" ? "postgres" : "sqlite";
if (testEngine === "postgres" && !testPostgresUrl) throw new Error("CA_LEDGER_TEST_ENGINE=postgres needs CA_LEDGER_TEST_POSTGRES, the URL of a PostgreSQL server the tests may create databases on");

/** The server test/postgres/ needs: its URL, or a failure that says how to give one. */
export function requirePostgres(): string {
  if (!testPostgresUrl) throw new Error("this test needs PostgreSQL: set CA_LEDGER_TEST_POSTGRES to a server's URL (.ci/run starts a throwaway cluster)");
  return testPostgresUrl;
}

/** A new, empty database on the test server (test/postgres/), named for what it holds. */
export function freshDatabase(label: string): string {
  const server = requirePostgres();
  const name = `cal_${label.replace(/[^a-z0-9]/g, "_")}_${process.pid}_${++freshCount}`;
  createDatabase(name);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
let freshCount = 0;

const created = new Set<string>();
const databaseName = (dataDir: string) => `cal_${createHash("sha256").update(dataDir).digest("hex").slice(0, 20)}`;

/** The database paired with a data dir (PostgreSQL runs), created the first time it is asked for. */
export function databaseUrlFor(dataDir: string, template?: string): string | null {
  if (testEngine !== "postgres") return null;
  const name = databaseName(dataDir);
  if (!created.has(name)) {
    createDatabase(name, template && databaseName(template));
    created.add(name);
  }
  const url = new URL(testPostgresUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A copy of the ledger of `from` (nobody may have it open) as the ledger of `to`: the SQLite file
 * copied, or a PostgreSQL database made from the other as its template.
 */
export function copyLedger(from: string, to: string): void {
  if (testEngine === "postgres") databaseUrlFor(to, from);
  else copyFileSync(join(from, "ledger.db"), join(to, "ledger.db"));
}

/** Drops a trigger, as a hand editing the database could. */
export async function dropTrigger(db: Sql, table: string, name: string): Promise<void> {
  await db.run(...(db.dialect === "sqlite" ? q`DROP TRIGGER ${ident(name)}` : q`DROP TRIGGER ${ident(name)} ON ${ident(table)}`));
}

/** Where a test's ledger lives: its data dir, and on PostgreSQL runs the database paired with it. */
export function ledgerTarget(dataDir: string): LedgerTarget {
  return { dataDir, databaseUrl: databaseUrlFor(dataDir) };
}

/** The server's settings as flags: the data dir, and the database on PostgreSQL runs. */
export function ledgerFlags(dataDir: string): Record<string, string> {
  const url = databaseUrlFor(dataDir);
  return { "data-dir": dataDir, ...(url ? { "database-url": url } : {}) };
}

/** The same settings as the binary's arguments (`--data-dir DIR`, and `--database-url URL`). */
export function ledgerArgs(dataDir: string): string[] {
  return Object.entries(ledgerFlags(dataDir)).flatMap(([k, v]) => [`--${k}`, v]);
}

/** The binary's environment for a data dir: DATABASE_URL on PostgreSQL runs. */
export function ledgerEnv(dataDir: string): Record<string, string> {
  const url = databaseUrlFor(dataDir);
  return url ? { DATABASE_URL: url } : {};
}

/**
 * Synchronously (the binary's helpers are), with the cluster's own client: a new, empty database.
 * A database left from an earlier run with the same name (the same temp path) is replaced.
 */
function createDatabase(name: string, template?: string): void {
  for (const sql of [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name} ${template ? `TEMPLATE ${template}` : ""} STRATEGY FILE_COPY`]) {
    const r = Bun.spawnSync(["psql", testPostgresUrl!, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`psql could not run ${sql}: ${r.stderr.toString()}`);
  }
}
