// Where SQLite and PostgreSQL differ, side by side. The ledger's SQL is written once, in SQLite's
// spelling of the subset both engines share; `toPostgres` rewrites the few forms PostgreSQL spells
// otherwise, and the functions below hold what has no common spelling.
//
// Written once, understood by both: `IS DISTINCT FROM` (not SQLite's `IS NOT`), `ON CONFLICT (…)
// DO …` with a target and table-qualified columns, `INSERT … RETURNING id` (not last_insert_rowid),
// `count(*) FILTER (WHERE …)`, `CAST(?1 AS TEXT) IS NULL` for a parameter that may be null, and
// quoted camel-case aliases (PostgreSQL folds unquoted names to lower case).
import type { Sql } from "./port.ts";

/**
 * SQLite's SQL as PostgreSQL reads it:
 * - `?N` and `?` placeholders become `$N` (a bare `?` takes the next number);
 * - `json_each(X)`, a JSON array given as text, becomes `jsonb_array_elements_text(X)`: both
 *   yield one row per element in a column named `value`;
 * - `json_extract(X, '$.a.b')` becomes `json #>> '{a,b}'` on the text: the element as text,
 *   objects as the stored JSON (the `json` type keeps the bytes, so both engines give the text
 *   JSON.stringify wrote), null for a JSON null or a missing key.
 * Parameters are cast to text first: Bun's client would otherwise encode a string as a JSON
 * string when PostgreSQL infers the parameter's type from the cast.
 */
export function toPostgres(text: string): string {
  let next = 0;
  return text
    .replace(/json_each\(([^()]+)\)/g, (_, arg: string) => `jsonb_array_elements_text(CAST(CAST(${arg} AS TEXT) AS jsonb))`)
    .replace(/json_extract\(((?:[^()]|\([^()]*\))+?),\s*'\$\.([A-Za-z0-9_.]+)'\)/g, (_, arg: string, path: string) => `(CAST(${arg} AS json) #>> '{${path.split(".").join(",")}}')`)
    .replace(/\?(\d*)/g, (_, n: string) => `$${n === "" ? ++next : Number(n)}`);
}

/**
 * The row lock a queue claim takes on PostgreSQL: the rows this transaction selected are its own
 * until it ends; with `skipLocked` a claim running at the same time in another server skips them
 * instead of waiting. SQLite has one writer at a time and no row locks (its claim transaction is
 * IMMEDIATE), so the clause is empty there.
 */
export function forUpdate(db: Sql, opts: { of?: string; skipLocked?: boolean } = {}): string {
  if (db.dialect !== "postgres") return "";
  return ` FOR UPDATE${opts.of ? ` OF ${opts.of}` : ""}${opts.skipLocked ? " SKIP LOCKED" : ""}`;
}

/**
 * A value that changes whenever `table`'s rows do, for caches of small, rarely written tables:
 * SQLite's `PRAGMA data_version` (it moves whenever another connection commits). PostgreSQL has no
 * such counter: the transaction ids that wrote the table's rows (`xmin`; every write of a row
 * makes a new one) stand in, read without the rows' content.
 */
export async function dataVersion(db: Sql, table: string): Promise<string> {
  if (db.dialect === "sqlite") return String((await db.get<{ data_version: number }>("PRAGMA data_version"))!.data_version);
  const row = await db.get<{ v: string | null }>(`SELECT string_agg(CAST(xmin AS text), ',' ORDER BY CAST(xmin AS text)) AS v FROM "${table}"`);
  return row!.v ?? "";
}

/** A read of the schema itself: it fails when the database cannot be read at all. */
export async function probeSchema(db: Sql): Promise<void> {
  await db.get(db.dialect === "sqlite" ? "SELECT count(*) AS n FROM sqlite_master" : "SELECT count(*) AS n FROM pg_catalog.pg_tables WHERE schemaname = current_schema()");
}

/**
 * What the engine finds wrong with its own storage. SQLite checks every page and index
 * (`PRAGMA integrity_check`); PostgreSQL checks its pages as it reads them (and with data
 * checksums, their bytes), so a read of every ledger table is the check there.
 */
export async function integrityProblems(db: Sql): Promise<string[]> {
  if (db.dialect === "sqlite") {
    const rows = await db.all<{ integrity_check: string }>("PRAGMA integrity_check");
    return rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
  }
  const tables = await db.all<{ name: string }>("SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
  const problems: string[] = [];
  for (const { name } of tables) {
    try {
      await db.get(`SELECT count(*) AS n FROM "${name}"`);
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
    }
  }
  return problems;
}

/** The `name` column of a catalog query, spelled for each engine. */
async function names(db: Sql, query: Record<Sql["dialect"], string>, ...params: string[]): Promise<string[]> {
  return (await db.all<{ name: string }>(query[db.dialect], ...params)).map((r) => r.name);
}

/** The database's own tables (the ledger's and the migration records), by name. */
export const tableNames = (db: Sql): Promise<string[]> =>
  names(db, {
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    postgres: "SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
  });

/** A table's columns in their declared order. */
export const columnNames = (db: Sql, table: string): Promise<string[]> =>
  names(db, {
    sqlite: "SELECT name FROM pragma_table_info(?) ORDER BY cid",
    postgres: "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
  }, table);

/** The triggers on a table, by name (the append-only rules). */
export const triggerNames = (db: Sql, table: string): Promise<string[]> =>
  names(db, {
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name",
    postgres: "SELECT tgname AS name FROM pg_catalog.pg_trigger WHERE tgrelid = CAST(CAST(? AS TEXT) AS regclass) AND NOT tgisinternal ORDER BY tgname",
  }, table);

/**
 * After a write failed because the disk is full: SQLite's write-ahead log is copied into the
 * ledger and truncated, which gives its space back to the disk, so a small write (a sync job
 * marked failed, saying why) can still land. PostgreSQL manages its own log: nothing to do.
 */
export async function releaseLogSpace(db: Sql): Promise<void> {
  if (db.dialect === "sqlite") await db.get("PRAGMA wal_checkpoint(TRUNCATE)");
}
