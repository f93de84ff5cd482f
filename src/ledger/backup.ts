// Backup, restore and compaction of the ledger file.
// Backup is online: `VACUUM INTO` reads inside one read transaction, so WAL gives it a consistent
// snapshot while the server keeps writing, and the copy is a single compact file (no -wal).
// Restore is offline: it proves the file is a ca-ledger database, refuses while any process has
// the ledger open, and swaps the file in with one rename so a crash leaves the old or the new
// ledger, never a mix. Compaction is offline too: it rewrites the file in place, packed, at its
// page size or another (docs/storage.md#compacting-a-ledger).
import { Database } from "bun:sqlite";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ledgerBytesOnDisk, ledgerPath, makePrivate, pageSizeOf } from "./db.ts";
import { applySqliteMigrations, migrationHashes } from "./migrations.ts";
import * as schema from "./schema.ts";
import { sqliteDb } from "./sql/sqlite.ts";

export class OpsError extends Error {}

/** Every table the schema declares: a ca-ledger database holds all of them. */
export const knownTables: string[] = (Object.values(schema) as unknown[])
  .filter((t): t is SQLiteTable => is(t, SQLiteTable))
  .map((t) => getTableName(t))
  .sort();

/** Tables whose rows make a ledger worth protecting from an accidental restore. */
const contentTables = ["tenants", "api_keys", "tenant_wallets", "issuer_revisions", "multiplier_updates", "balance_changes", "transaction_changes", "cost_basis_declarations", "actions", "journal"];

export interface LedgerFileSummary {
  path: string;
  bytes: number;
  tables: { name: string; rows: number }[];
  journalRows: number;
  migrations: number;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const tmpBeside = (target: string, what: string) => join(dirname(target), `.${basename(target)}.${what}-${process.pid}-${Date.now()}`);

function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16);
    return readSync(fd, buf, 0, 16, 0) === 16 && buf.toString("latin1") === "SQLite format 3\0";
  } finally {
    closeSync(fd);
  }
}

/** Counts rows per table of a ledger file (read-only). */
export function summarizeLedgerFile(path: string): LedgerFileSummary {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const names = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    const tables = names.map((name) => ({ name, rows: (db.query(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number }).n }));
    return {
      path,
      bytes: statSync(path).size,
      tables,
      journalRows: tables.find((t) => t.name === "journal")?.rows ?? 0,
      migrations: tables.find((t) => t.name === "__drizzle_migrations")?.rows ?? 0,
    };
  } finally {
    db.close();
  }
}

/**
 * Writes a consistent copy of the open ledger to `file`. The copy is made beside the target and
 * hard-linked into place: link() fails if the name exists, so an existing file is never
 * overwritten, even by a race, and a reader never sees a half-written backup.
 */
export function backupLedger(sqlite: Database, file: string): LedgerFileSummary {
  const target = resolve(file);
  if (existsSync(target)) throw new OpsError(`${target} already exists; backup never overwrites a file`);
  if (!existsSync(dirname(target))) throw new OpsError(`folder ${dirname(target)} does not exist`);
  const tmp = tmpBeside(target, "partial");
  try {
    sqlite.query("VACUUM INTO ?").run(tmp);
    makePrivate(tmp); // a copy of the ledger is as private as the ledger
    fsyncPath(tmp);
    try {
      linkSync(tmp, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new OpsError(`${target} already exists; backup never overwrites a file`);
      throw e;
    }
    fsyncPath(dirname(target));
  } finally {
    rmSync(tmp, { force: true });
  }
  return summarizeLedgerFile(target);
}

/** Problems that make `path` not a ca-ledger database this build can restore; empty when fine. */
export function inspectLedgerFile(path: string): string[] {
  if (!existsSync(path)) return [`${path} does not exist`];
  if (!statSync(path).isFile()) return [`${path} is not a file`];
  if (!hasSqliteHeader(path)) return [`${path} is not a SQLite database`];
  let db: Database;
  try {
    db = new Database(path, { readonly: true, strict: true });
  } catch (e) {
    return [`${path} cannot be opened: ${(e as Error).message}`];
  }
  try {
    const problems: string[] = [];
    const integrity = (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (integrity.join() !== "ok") problems.push(`integrity_check: ${integrity.slice(0, 5).join("; ")}`);
    const tables = new Set((db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    if (!tables.has("__drizzle_migrations")) {
      problems.push("no __drizzle_migrations table: not a ca-ledger database");
    } else {
      const known = migrationHashes();
      const unknown = (db.query("SELECT hash FROM __drizzle_migrations").all() as { hash: string }[]).filter((r) => !known.has(r.hash));
      if (unknown.length) problems.push(`${unknown.length} applied migration(s) unknown to this build: the file comes from another ca-ledger version`);
    }
    const missing = knownTables.filter((t) => !tables.has(t));
    if (missing.length) problems.push(`missing table(s): ${missing.join(", ")}`);
    return problems;
  } catch (e) {
    return [`${path} cannot be read: ${(e as Error).message}`];
  } finally {
    db.close();
  }
}

/**
 * Opens the ledger and takes an exclusive lock. In WAL mode every open connection (a serving
 * server, even an idle one) holds a shared lock that makes this fail at once, so this is how
 * restore knows that no process has the ledger open. Returns null when someone does.
 */
export function lockExclusively(path: string): Database | null {
  const db = new Database(path, { strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.query("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch {
    db.close();
    return null;
  }
}

export interface RestoreResult {
  summary: LedgerFileSummary;
  replaced: string | null;
}

/**
 * Replaces `dataDir/ledger.db` with a checked copy of `file`: copy beside (VACUUM INTO, so a
 * source still in WAL mode is read whole), migrate the copy, fsync, then rename over the ledger.
 * The previous ledger is kept as `ledger.db.replaced-<time>` (a hard link made before the swap).
 */
export async function restoreLedger(dataDir: string, file: string, opts: { force?: boolean } = {}): Promise<RestoreResult> {
  const source = resolve(file);
  const problems = inspectLedgerFile(source);
  if (problems.length) throw new OpsError(`${source} is not a ca-ledger database this build can restore: ${problems.join("; ")}`);
  if (!existsSync(dataDir)) throw new OpsError(`data dir ${dataDir} does not exist`);
  const target = ledgerPath(dataDir);
  if (resolve(target) === source) throw new OpsError("the file to restore is the ledger itself");

  let replaced: string | null = null;
  if (existsSync(target)) {
    const lock = lockExclusively(target);
    if (!lock) throw new OpsError(`${target} is open in another process (a running server?); stop it before restoring`);
    try {
      const tables = new Set((lock.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
      const rows = contentTables.filter((t) => tables.has(t)).reduce((n, t) => n + (lock.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n, 0);
      if (rows > 0 && !opts.force) throw new OpsError(`${target} holds ${rows} rows of ledger data; pass --force to replace it (it is kept as ledger.db.replaced-<time>)`);
      lock.exec("COMMIT");
      // Fold the old WAL into the old file first: after this the -wal/-shm beside it are stale
      // and must not survive next to the new file (SQLite would replay them onto it).
      lock.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      lock.close();
    }
  }

  const tmp = tmpBeside(target, "restore");
  try {
    const src = new Database(source, { readonly: true, strict: true });
    try {
      src.query("VACUUM INTO ?").run(tmp);
    } finally {
      src.close();
    }
    makePrivate(tmp);
    const copy = sqliteDb(new Database(tmp, { strict: true }));
    try {
      await applySqliteMigrations(copy); // an older backup comes back at this build's schema
    } finally {
      await copy.close();
    }
    fsyncPath(tmp);
    if (existsSync(target)) {
      replaced = `${target}.replaced-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      linkSync(target, replaced);
    }
    for (const stale of [`${target}-wal`, `${target}-shm`, `${target}-journal`]) rmSync(stale, { force: true });
    renameSync(tmp, target);
    fsyncPath(dataDir);
  } finally {
    rmSync(tmp, { force: true });
  }
  return { summary: summarizeLedgerFile(target), replaced };
}

export interface CompactResult {
  path: string;
  /** The database and its WAL on disk, before and after. */
  bytesBefore: number;
  bytesAfter: number;
  pageSizeBefore: number;
  pageSize: number;
}

/** The page sizes SQLite takes: a power of two from 512 bytes to 64 KiB. */
export const isPageSize = (n: number): boolean => Number.isInteger(n) && n >= 512 && n <= 65536 && (n & (n - 1)) === 0;

/**
 * Rewrites `dataDir/ledger.db` packed: every table and index copied in key order onto full pages
 * (the pages that inserts in key order leave part full come back), at its own page size or at
 * `pageSize` (a ledger made with 4 KiB pages can move to this build's 8 KiB, which SQLite allows
 * only outside WAL mode). It refuses while any process has the ledger open. SQLite's VACUUM runs
 * under the rollback journal, so a crash leaves the file as it was (the journal is played back at
 * the next open).
 */
export function compactLedger(dataDir: string, opts: { pageSize?: number } = {}): CompactResult {
  if (opts.pageSize !== undefined && !isPageSize(opts.pageSize)) throw new OpsError(`a page size is a power of two from 512 to 65536 bytes, not ${opts.pageSize}`);
  const target = ledgerPath(dataDir);
  if (!existsSync(target)) throw new OpsError(`no ledger at ${target}`);
  const bytesBefore = ledgerBytesOnDisk(target);
  const db = lockExclusively(target);
  if (!db) throw new OpsError(`${target} is open in another process (a running server?); stop it before compacting`);
  let pageSizeBefore: number;
  let pageSize: number;
  try {
    pageSizeBefore = pageSizeOf(db);
    pageSize = opts.pageSize ?? pageSizeBefore; // the VACUUM below rewrites the file at it, or fails
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.exec("PRAGMA journal_mode = DELETE");
    try {
      db.exec(`PRAGMA page_size = ${pageSize}`);
      db.exec("VACUUM");
    } catch (e) {
      throw new OpsError(`compacting ${target} failed and left it as it was: ${(e as Error).message}`);
    } finally {
      // Back to WAL; should this fail, the next open (the server's, the CLI's) sets it.
      try {
        db.exec("PRAGMA journal_mode = WAL");
      } catch {}
    }
  } finally {
    db.close();
  }
  return { path: target, bytesBefore, bytesAfter: ledgerBytesOnDisk(target), pageSizeBefore, pageSize };
}
