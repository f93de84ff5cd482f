// Opens the ledger database with the pragmas the stack needs and applies the embedded
// migrations inside one IMMEDIATE transaction, so two processes starting together on the same
// data dir never both migrate. Everything else reaches the database through the port
// (sql/port.ts); the raw connection stays here and with the SQLite-only operations (backup,
// the file's health).
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { sha256Hex } from "../domain/evidence.ts";
import type { Db } from "./sql/port.ts";
import { BUSY_TIMEOUT_MS, sqliteDb } from "./sql/sqlite.ts";

export interface Ledger {
  db: Db;
  /** The SQLite connection under `db` (backup, health and migrations read the file itself). */
  sqlite: Database;
  path: string;
  close(): Promise<void>;
}

export function ledgerPath(dataDir: string): string {
  return join(dataDir, "ledger.db");
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

export async function openLedger(dataDir: string, opts: { migrate?: boolean } = {}): Promise<Ledger> {
  prepareDataDir(dataDir);
  const path = ledgerPath(dataDir);
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (file === path || existsSync(file)) makePrivate(file);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  if (opts.migrate !== false) applyMigrations(sqlite);
  const db = sqliteDb(sqlite);
  return { db, sqlite, path, close: () => db.close() };
}

/** `when` is the migration's own date; `appliedAt` when this ledger applied it (null: not recorded). */
export interface MigrationStatus { tag: string; when: number; hash: string; applied: boolean; appliedAt: string | null }

export function migrationStatus(sqlite: Database): MigrationStatus[] {
  ensureMigrationsTable(sqlite);
  const applied = new Set((sqlite.query("SELECT hash FROM __drizzle_migrations").all() as { hash: string }[]).map((r) => r.hash));
  const recorded = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__migrations_applied_at'").get()
    ? new Map((sqlite.query("SELECT hash, applied_at FROM __migrations_applied_at").all() as { hash: string; applied_at: string }[]).map((r) => [r.hash, r.applied_at]))
    : new Map<string, string>();
  return embeddedMigrations.map((m) => {
    const hash = sha256Hex(m.sql);
    return { tag: m.tag, when: m.when, hash, applied: applied.has(hash), appliedAt: recorded.get(hash) ?? null };
  });
}

function ensureMigrationsTable(sqlite: Database): void {
  // Same table drizzle's own migrator keeps, so drizzle-kit and the binary agree.
  sqlite.exec("CREATE TABLE IF NOT EXISTS __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)");
}

export function applyMigrations(sqlite: Database): number {
  ensureMigrationsTable(sqlite);
  let applied = 0;
  sqlite.transaction(() => {
    // drizzle's created_at is the migration's own date, not when it ran here: the time it was
    // applied is kept beside it (outside drizzle's schema, so drizzle-kit never sees it).
    sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations_applied_at (hash text PRIMARY KEY, applied_at text NOT NULL)");
    const last = sqlite.query("SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1").get() as { created_at: number } | null;
    const lastWhen = last ? Number(last.created_at) : -1;
    for (const m of embeddedMigrations) {
      if (m.when <= lastWhen) continue;
      for (const stmt of m.sql.split("--> statement-breakpoint")) {
        if (stmt.trim()) sqlite.exec(stmt);
      }
      const hash = sha256Hex(m.sql);
      sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)").run(hash, m.when);
      sqlite.query("INSERT OR REPLACE INTO __migrations_applied_at (hash, applied_at) VALUES (?, ?)").run(hash, new Date().toISOString());
      applied++;
    }
  }).immediate();
  return applied;
}

/** The hash drizzle's migrator records for each migration: SHA-256 of the file's text. */
export function migrationHashes(): Set<string> {
  return new Set(embeddedMigrations.map((m) => sha256Hex(m.sql)));
}
