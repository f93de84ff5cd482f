// Applies the embedded migrations of each engine at start, under a lock, so two processes
// starting together never both migrate: SQLite takes its write lock (one IMMEDIATE transaction
// for every pending migration); PostgreSQL takes a session advisory lock, then applies each
// migration in its own transaction. A migration with a data step (upgrades.ts) runs it right
// after its SQL, in the same transaction. Both keep drizzle's own record of what was applied (the
// SHA-256 of each file, drizzle-kit's `when` as created_at), so drizzle-kit and the binary agree,
// and beside it when this ledger applied each one.
import type { SQL } from "bun";
import { embeddedMigrations as sqliteMigrations, type EmbeddedMigration } from "../../migrations/embedded.ts";
import { embeddedMigrations as postgresMigrations } from "../../migrations-postgres/embedded.ts";
import { sha256Hex } from "../domain/evidence.ts";
import type { Dialect, Sql } from "./sql/port.ts";
import { byEngine, query, sql, statements as named, type Query } from "./sql/statement.ts";
import { transactionSql } from "./sql/postgres.ts";
import type { SqliteDb } from "./sql/sqlite.ts";
import { dataSteps } from "./upgrades.ts";

/** `when` is the migration's own date; `appliedAt` when this ledger applied it (null: not recorded). */
export interface MigrationStatus {
  tag: string;
  when: number;
  hash: string;
  applied: boolean;
  appliedAt: string | null;
}

export const migrationsOf = (dialect: Dialect): EmbeddedMigration[] => (dialect === "sqlite" ? sqliteMigrations : postgresMigrations);

/** The hash drizzle's migrator records for each migration: SHA-256 of the file's text. */
export function migrationHashes(dialect: Dialect = "sqlite"): Set<string> {
  return new Set(migrationsOf(dialect).map((m) => sha256Hex(m.sql)));
}

const statements = (m: EmbeddedMigration) => m.sql.split("--> statement-breakpoint").filter((s) => s.trim());

/**
 * Whether a migration rewrites rows in place, smaller: SQLite's DROP COLUMN rewrites every row of
 * its table, and the pages they left part empty stay in the file until it is compacted.
 */
const dropsColumns = (m: EmbeddedMigration): boolean => statements(m).some((s) => /\bDROP COLUMN\b/i.test(s));

// Where drizzle's migrators keep their record: SQLite's in the database, PostgreSQL's in its own
// schema. The time each was applied here is kept beside it, outside drizzle's schema.
const records = {
  sqlite: { migrations: "__drizzle_migrations", appliedAt: "__migrations_applied_at" },
  postgres: { migrations: `drizzle."__drizzle_migrations"`, appliedAt: `drizzle."__migrations_applied_at"` },
} as const;

const createRecords = {
  sqlite: [
    "CREATE TABLE IF NOT EXISTS __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)",
    "CREATE TABLE IF NOT EXISTS __migrations_applied_at (hash text PRIMARY KEY, applied_at text NOT NULL)",
  ],
  postgres: [
    "CREATE SCHEMA IF NOT EXISTS drizzle",
    `CREATE TABLE IF NOT EXISTS drizzle."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
    `CREATE TABLE IF NOT EXISTS drizzle."__migrations_applied_at" (hash text PRIMARY KEY, applied_at text NOT NULL)`,
  ],
} as const;

/**
 * Applies SQLite's pending migrations in one IMMEDIATE transaction; returns how many. A data step
 * that moved rows (upgrades.ts) or a migration that drops columns rewrites a table: the file is
 * compacted after, once, so the space the rows of before held goes back to the disk instead of
 * waiting in the file for new rows.
 */
export async function applySqliteMigrations(db: SqliteDb): Promise<number> {
  const { sqlite } = db;
  let rewritten = false;
  const applied = await db.write(async (tx) => {
    let applied = 0;
    for (const ddl of createRecords.sqlite) sqlite.exec(ddl);
    const last = sqlite.query("SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1").get() as { created_at: number } | null;
    for (const m of pending(sqliteMigrations, last)) {
      for (const stmt of statements(m)) sqlite.exec(stmt);
      const moved = (await dataSteps[m.tag]?.(tx)) ?? 0;
      rewritten ||= moved > 0 || dropsColumns(m);
      const hash = sha256Hex(m.sql);
      sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)").run(hash, m.when);
      sqlite.query("INSERT INTO __migrations_applied_at (hash, applied_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET applied_at = excluded.applied_at").run(hash, new Date().toISOString());
      applied++;
    }
    return applied;
  });
  if (rewritten) await db.exec("VACUUM");
  // An upgrade rewrites tables (0019 rebuilds two), and its pages would stay in the WAL until the
  // first booking round empties it: readers look every page up in a WAL of thousands of frames
  // meanwhile (docs/storage.md#the-wal).
  if (applied > 0) await db.emptyLog();
  return applied;
}

/** The advisory lock PostgreSQL's migrations run under (distinct from the ledger's write lock). */
const MIGRATION_LOCK = 0x6361_6c02;

/** Applies PostgreSQL's pending migrations, each in its own transaction, under a session lock. */
export async function applyPostgresMigrations(client: SQL): Promise<number> {
  const session = await client.reserve();
  try {
    await session.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      for (const ddl of createRecords.postgres) await session.unsafe(ddl);
      const [last] = await session.unsafe(`SELECT created_at FROM ${records.postgres.migrations} ORDER BY created_at DESC LIMIT 1`);
      let applied = 0;
      for (const m of pending(postgresMigrations, last as { created_at: number | string } | undefined)) {
        await session.begin(async (tx) => {
          for (const stmt of statements(m)) await tx.unsafe(stmt);
          await dataSteps[m.tag]?.(transactionSql(tx));
          const hash = sha256Hex(m.sql);
          await tx.unsafe(`INSERT INTO ${records.postgres.migrations} (hash, created_at) VALUES ($1, $2)`, [hash, m.when]);
          await tx.unsafe(`INSERT INTO ${records.postgres.appliedAt} (hash, applied_at) VALUES ($1, $2) ON CONFLICT (hash) DO UPDATE SET applied_at = excluded.applied_at`, [
            hash,
            new Date().toISOString(),
          ]);
        });
        applied++;
      }
      return applied;
    } finally {
      await session.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    session.release();
  }
}

/** Migrations newer than the last one applied (drizzle's rule: by their `when`). */
function pending(all: EmbeddedMigration[], last: { created_at: number | string } | null | undefined): EmbeddedMigration[] {
  const lastWhen = last ? Number(last.created_at) : -1;
  return all.filter((m) => m.when > lastWhen);
}

// The records as the port reads them (`migrate --status`, a new ledger's check).
const recordSql = named("migration_records", {
  applied: query<Record<never, never>, { hash: string }>(() => byEngine({ sqlite: sql`SELECT hash FROM __drizzle_migrations`, postgres: sql`SELECT hash FROM drizzle."__drizzle_migrations"` })),
  appliedAt: query<Record<never, never>, { hash: string; applied_at: string }>(() =>
    byEngine({ sqlite: sql`SELECT hash, applied_at FROM __migrations_applied_at`, postgres: sql`SELECT hash, applied_at FROM drizzle."__migrations_applied_at"` }),
  ),
});

/** Every embedded migration of the engine, applied or pending. */
export async function migrationStatus(db: Sql): Promise<MigrationStatus[]> {
  const read = async <R>(q: Query<Record<never, never>, R>): Promise<R[]> => {
    try {
      return await db.all(q);
    } catch {
      return []; // not created yet: nothing applied
    }
  };
  const applied = new Set((await read(recordSql.applied)).map((r) => r.hash));
  const recorded = new Map((await read(recordSql.appliedAt)).map((r) => [r.hash, r.applied_at]));
  return migrationsOf(db.dialect).map((m) => {
    const hash = sha256Hex(m.sql);
    return { tag: m.tag, when: m.when, hash, applied: applied.has(hash), appliedAt: recorded.get(hash) ?? null };
  });
}
