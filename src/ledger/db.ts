// Opens the ledger database with the pragmas the stack needs and applies the embedded
// migrations inside one IMMEDIATE transaction, so two processes starting together on the same
// data dir never both migrate.
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { sha256Hex } from "../domain/evidence.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface Ledger {
  sqlite: Database;
  db: Db;
  path: string;
  close(): void;
}

export function ledgerPath(dataDir: string): string {
  return join(dataDir, "ledger.db");
}

export function openLedger(dataDir: string, opts: { migrate?: boolean } = {}): Ledger {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = ledgerPath(dataDir);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  if (opts.migrate !== false) applyMigrations(sqlite);
  const db = drizzle(sqlite, { schema }) as Db;
  return { sqlite, db, path, close: () => sqlite.close() };
}

export interface MigrationStatus { tag: string; when: number; hash: string; applied: boolean }

export function migrationStatus(sqlite: Database): MigrationStatus[] {
  ensureMigrationsTable(sqlite);
  const applied = new Set((sqlite.query("SELECT hash FROM __drizzle_migrations").all() as { hash: string }[]).map((r) => r.hash));
  return embeddedMigrations.map((m) => {
    const hash = sha256Hex(m.sql);
    return { tag: m.tag, when: m.when, hash, applied: applied.has(hash) };
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
    const last = sqlite.query("SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1").get() as { created_at: number } | null;
    const lastWhen = last ? Number(last.created_at) : -1;
    for (const m of embeddedMigrations) {
      if (m.when <= lastWhen) continue;
      for (const stmt of m.sql.split("--> statement-breakpoint")) {
        if (stmt.trim()) sqlite.exec(stmt);
      }
      sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)").run(sha256Hex(m.sql), m.when);
      applied++;
    }
  }).immediate();
  return applied;
}

/** The hash drizzle's migrator records for each migration: SHA-256 of the file's text. */
export function migrationHashes(): Set<string> {
  return new Set(embeddedMigrations.map((m) => sha256Hex(m.sql)));
}
