// Where SQLite and PostgreSQL differ beyond a statement's spelling: reads of each engine's own
// catalog and state, side by side. (What both spell alike is written once in each statement;
// statement.ts holds the helpers for the rest. Written once, understood by both: `IS DISTINCT
// FROM` (not SQLite's `IS NOT`), `ON CONFLICT (…) DO …` with a target and table-qualified
// columns, `INSERT … RETURNING id` (not last_insert_rowid), `count(*) FILTER (WHERE …)`,
// `CAST(x AS TEXT) IS NULL` for a parameter that may be null, and quoted camel-case aliases
// (PostgreSQL folds unquoted names to lower case).)
import { ledgerTables, wholeTableSql } from "../tables/whole-tables.ts";
import type { Sql } from "./port.ts";
import { byEngine, query, sql, statements } from "./statement.ts";

const catalogSql = statements("catalog", {
  /**
   * A value that changes whenever the taxonomy census's rows do (a cache of a small, rarely
   * written table): SQLite's `PRAGMA data_version` (it moves whenever another connection
   * commits). PostgreSQL has no such counter: the transaction ids that wrote the table's rows
   * (`xmin`; every write of a row makes a new one) stand in, read without the rows' content.
   */
  // The PRAGMA itself: read on every v2 request, and 5 times faster than pragma_data_version()
  // (0.2 µs against 1 µs, measured here).
  censusVersion: query<Record<never, never>, { data_version: string | number | null }>(() =>
    byEngine({
      sqlite: sql`PRAGMA data_version`,
      postgres: sql`SELECT string_agg(CAST(xmin AS text), ',' ORDER BY CAST(xmin AS text)) AS data_version FROM "taxonomy_census"`,
    }),
  ),
  /** A read of the schema itself: it fails when the database cannot be read at all. */
  schema: query<Record<never, never>, { n: number }>(() =>
    byEngine({
      sqlite: sql`SELECT count(*) AS n FROM sqlite_master`,
      postgres: sql`SELECT count(*) AS n FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`,
    }),
  ),
  integrityCheck: query<Record<never, never>, { integrity_check: string }>(() => sql`PRAGMA integrity_check`, { engines: ["sqlite"] }),
  /** The database's own tables (the ledger's and the migration records), by name. */
  tables: query<Record<never, never>, { name: string }>(() =>
    byEngine({
      sqlite: sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      postgres: sql`SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    }),
  ),
  /** A table's columns in their declared order. */
  columns: query<{ table: string }, { name: string }>((p) =>
    byEngine({
      sqlite: sql`SELECT name FROM pragma_table_info(${p.table}) ORDER BY cid`,
      postgres: sql`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${p.table} ORDER BY ordinal_position`,
    }),
  ),
  /** The triggers on a table, by name (the append-only rules). */
  triggers: query<{ table: string }, { name: string }>((p) =>
    byEngine({
      sqlite: sql`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ${p.table} ORDER BY name`,
      postgres: sql`SELECT tgname AS name FROM pg_catalog.pg_trigger WHERE tgrelid = CAST(CAST(${p.table} AS TEXT) AS regclass) AND NOT tgisinternal ORDER BY tgname`,
    }),
  ),
  walCheckpoint: query(() => sql`PRAGMA wal_checkpoint(TRUNCATE)`, { engines: ["sqlite"] }),
  ping: query<Record<never, never>, { one: number }>(() => sql`SELECT 1 AS one`),
});

/** The smallest round trip: it reads no page, it only says the database answers. */
export async function ping(db: Sql): Promise<void> {
  await db.get(catalogSql.ping);
}

/** See catalogSql.censusVersion. */
export async function censusVersion(db: Sql): Promise<string> {
  return String((await db.get(catalogSql.censusVersion))?.data_version ?? "");
}

/** See catalogSql.schema. */
export async function probeSchema(db: Sql): Promise<void> {
  await db.get(catalogSql.schema);
}

/**
 * What the engine finds wrong with its own storage. SQLite checks every page and index
 * (`PRAGMA integrity_check`); PostgreSQL checks its pages as it reads them (and with data
 * checksums, their bytes), so a read of every ledger table is the check there.
 */
export async function integrityProblems(db: Sql): Promise<string[]> {
  if (db.dialect === "sqlite") return (await db.all(catalogSql.integrityCheck)).map((r) => r.integrity_check).filter((r) => r !== "ok");
  const problems: string[] = [];
  for (const table of ledgerTables) {
    try {
      await db.get(wholeTableSql.count[table]!);
    } catch (e) {
      problems.push(`${table}: ${(e as Error).message}`);
    }
  }
  return problems;
}

const names = (rows: { name: string }[]) => rows.map((r) => r.name);

export const tableNames = async (db: Sql): Promise<string[]> => names(await db.all(catalogSql.tables));
export const columnNames = async (db: Sql, table: string): Promise<string[]> => names(await db.all(catalogSql.columns, { table }));
export const triggerNames = async (db: Sql, table: string): Promise<string[]> => names(await db.all(catalogSql.triggers, { table }));

/**
 * After a write failed because the disk is full: SQLite's write-ahead log is copied into the
 * ledger and truncated, which gives its space back to the disk, so a small write (a sync job
 * marked failed, saying why) can still land. PostgreSQL manages its own log: nothing to do.
 */
export async function releaseLogSpace(db: Sql): Promise<void> {
  if (db.dialect === "sqlite") await db.get(catalogSql.walCheckpoint);
}
