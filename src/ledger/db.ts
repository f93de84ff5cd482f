// Opens the ledger: SQLite in the data dir (the default), or PostgreSQL when a database URL is
// given. Both apply the embedded migrations under a lock at open (migrations.ts). Everything else
// reaches the database through the port (sql/port.ts); the SQLite connection itself stays with
// the SQLite-only operations (backup and restore, the file's health).
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { describeUrl } from "../describe-url.ts";
import { applyPostgresMigrations, applySqliteMigrations, migrationStatus } from "./migrations.ts";
import { ping } from "./sql/dialect.ts";
import { postgresDb, type PostgresDb } from "./sql/postgres.ts";
import { changeMarkPath, openChangeMark } from "./sql/change-mark.ts";
import { BUSY_TIMEOUT_MS, sqliteDb, type SqliteDb } from "./sql/sqlite.ts";

export type Ledger = SqliteLedger | PostgresLedger;

export interface SqliteLedger {
  engine: "sqlite";
  db: SqliteDb;
  /** The connection under `db` (backup, restore and the file's health read the file itself). */
  sqlite: Database;
  path: string;
  close(): Promise<void>;
}

export interface PostgresLedger {
  engine: "postgres";
  db: PostgresDb;
  /** Where the database is (host, port, database: describeUrl), for messages. */
  url: string;
  close(): Promise<void>;
}

/** Where a ledger lives: `DIR/ledger.db`, or the PostgreSQL database a URL names. */
export interface LedgerTarget {
  dataDir: string;
  databaseUrl?: string | null;
}

/** Where a person reads the ledger is: its file, or its database's host, port and name. */
export const ledgerName = (l: Ledger): string => (l.engine === "sqlite" ? l.path : l.url);

/** The SQLite connection of a ledger that must be SQLite (file-level operations). */
export function sqliteOf(l: Ledger): Database {
  if (l.engine !== "sqlite") throw new Error(`this needs a SQLite ledger; ${l.url} is PostgreSQL`);
  return l.sqlite;
}

export function ledgerPath(dataDir: string): string {
  return join(dataDir, "ledger.db");
}

/** What a SQLite ledger takes on disk: the database file and its WAL (the -shm is an index, rebuilt at will). */
export function ledgerBytesOnDisk(path: string): number {
  return [path, `${path}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
}

/**
 * The ledger lists the wallets a tenant follows: its folder is the owner's alone (0700) and its
 * files are 0600, whatever the umask. An existing folder is narrowed too, unless it is a shared
 * one (sticky bit, like /tmp) that was never ours to narrow.
 */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const st = statSync(dataDir);
  if ((st.mode & 0o7777) !== 0o700 && !(st.mode & 0o1000) && ownedHere(st.uid)) chmodSync(dataDir, 0o700);
}

/**
 * Creates `path` 0600 when missing and narrows it to 0600 when it exists (and is ours to change).
 * SQLite creates a database's -wal and -shm with the database file's mode, so they follow.
 */
export function makePrivate(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  const st = statSync(path);
  if ((st.mode & 0o777) !== 0o600 && ownedHere(st.uid)) chmodSync(path, 0o600);
}

const ownedHere = (uid: number) => uid === process.getuid?.();

export async function openLedger(target: string | LedgerTarget, opts: { migrate?: boolean } = {}): Promise<Ledger> {
  const where = typeof target === "string" ? { dataDir: target } : target;
  return where.databaseUrl ? openPostgres(where.databaseUrl, opts) : openSqlite(where.dataDir, opts);
}

/**
 * Where opening `target` would create a new ledger, or null when one is there: no `ledger.db` in
 * the data dir, or a PostgreSQL database with no migration applied (docs/cli.md#new-ledgers).
 */
export async function newLedgerLocation(target: LedgerTarget): Promise<string | null> {
  if (!target.databaseUrl) return existsSync(ledgerPath(target.dataDir)) ? null : ledgerPath(target.dataDir);
  const ledger = await openPostgres(target.databaseUrl, { migrate: false });
  try {
    return (await migrationStatus(ledger.db)).some((m) => m.applied) ? null : ledger.url;
  } finally {
    await ledger.close();
  }
}

/** Applies the engine's pending migrations (under its lock); returns how many. */
export function applyMigrations(ledger: Ledger): Promise<number> {
  return ledger.engine === "sqlite" ? applySqliteMigrations(ledger.db) : applyPostgresMigrations(ledger.db.client);
}

/** Bytes of WAL file kept on disk after a checkpoint. */
export const WAL_SIZE_LIMIT = 1024 * 1024;

/**
 * Bytes of WAL after which a commit copies the WAL into the database (SQLite's default is 1,000
 * pages). A re-booking writes chunk after chunk, and a page several chunks rewrite (a portfolio
 * page shared by wallets of two chunks, an index's interior pages) is in the WAL once for each of
 * them; copied after every chunk, it was copied as many times, copied once the round is done, once
 * (re-booking 1,000 wallets wrote 44.2 MiB at 1,000 pages of 4 KiB, 39.9 MiB at 10,000;
 * docs/storage.md#the-wal). When booking goes idle the booker empties the WAL (`emptyLog`), so
 * this much is only ever on disk while a long round runs. Set in pages, of the ledger's own size.
 */
export const WAL_CHECKPOINT_BYTES = 40 * 1024 * 1024;

/**
 * The page size of a new SQLite ledger. Actions, journal entries, portfolios and yields are rows
 * of 0.5 to 1.5 KB: a 4 KiB page holds two or four of them and leaves the rest of itself empty,
 * an 8 KiB page five or nine, so the same ledger takes less disk (bench/scale's 1,000 wallets:
 * 38.6 KiB a wallet at 4 KiB, 37.0 at 8 KiB, 37.1 at 16 KiB; writes unchanged). A ledger keeps
 * the page size it was made with: in WAL mode SQLite changes it only by a VACUUM outside WAL,
 * which an upgrade does not do (docs/storage.md#the-page-size).
 */
export const PAGE_SIZE = 8192;

/** The bytes of a page of this SQLite database. */
export const pageSizeOf = (sqlite: Database): number => (sqlite.query("PRAGMA page_size").get() as { page_size: number }).page_size;

/** `WAL_CHECKPOINT_BYTES` in the ledger's pages (a ledger made before keeps 4 KiB pages). */
export function walCheckpointPages(sqlite: Database): number {
  return Math.ceil(WAL_CHECKPOINT_BYTES / pageSizeOf(sqlite));
}

async function openSqlite(dataDir: string, opts: { migrate?: boolean }): Promise<SqliteLedger> {
  prepareDataDir(dataDir);
  const path = ledgerPath(dataDir);
  for (const file of [path, `${path}-wal`, `${path}-shm`, changeMarkPath(path)]) if (file === path || existsSync(file)) makePrivate(file);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.exec(`PRAGMA page_size = ${PAGE_SIZE}`); // only a new, empty file takes it
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // Statement journals and sorts in memory: each of booking's upserts and deletes otherwise writes
  // its statement journal to a temporary file (about 80 MiB of writes to re-book 1,000 wallets,
  // more than the WAL and its checkpoints together, docs/storage.md#figures); they are a few pages each.
  sqlite.exec("PRAGMA temp_store = MEMORY");
  // The WAL file is cut back to this size once a checkpoint has copied it into the database and a
  // writer starts it again: SQLite otherwise keeps the file at its largest size ever (a re-booking
  // of thousands of wallets left 10 MiB of it on disk beside a 54 MiB database,
  // docs/storage.md#the-wal). What is written is the same either way.
  sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
  sqlite.exec(`PRAGMA wal_autocheckpoint = ${walCheckpointPages(sqlite)}`);
  const db = sqliteDb(sqlite, openChangeMark(path));
  try {
    if (opts.migrate !== false) await applySqliteMigrations(db);
  } catch (e) {
    await db.close();
    throw e;
  }
  return { engine: "sqlite", db, sqlite, path, close: () => db.close() };
}

async function openPostgres(url: string, opts: { migrate?: boolean }): Promise<PostgresLedger> {
  const db = postgresDb(url);
  try {
    if (opts.migrate !== false) await applyPostgresMigrations(db.client);
    else await ping(db); // connects now, so a wrong URL fails here and not later
  } catch (e) {
    await db.close();
    throw new Error(`cannot open the ledger at ${describeUrl(url)}: ${(e as Error).message}`);
  }
  return { engine: "postgres", db, url: describeUrl(url), close: () => db.close() };
}
