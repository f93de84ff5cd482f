// Statements over every table of the ledger, one per table, made from the schema's list: their
// row counts (verify, migrate-to-postgres, PostgreSQL's integrity read) and the copy of their rows
// from one engine to the other (copy.ts).
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../schema.ts";
import { columnAsText } from "../sql/hash-bytes.ts";
import { asJson, byEngine, ident, join, jsonEach, jsonText, query, sql, statements, type Query } from "../sql/statement.ts";

const configs = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable)).map(getTableConfig);

/** Every table the schema declares, by name. */
export const ledgerTables: string[] = configs.map((c) => c.name).sort();

/** Each table's columns in their declared order. */
export const ledgerColumns: ReadonlyMap<string, readonly string[]> = new Map(configs.map((c) => [c.name, c.columns.map((col) => col.name)]));

/** The tables, every table after the ones its foreign keys name (the order a copy inserts in). */
export const tablesInCopyOrder: string[] = (() => {
  const after = new Map(configs.map((c) => [c.name, c.foreignKeys.map((f) => getTableConfig(f.reference().foreignTable as SQLiteTable).name)]));
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    for (const first of after.get(name) ?? []) visit(first);
    ordered.push(name);
  };
  for (const name of [...after.keys()].sort()) visit(name);
  return ordered;
})();

const perTable = <Q extends Query>(make: (table: string) => Q): Record<string, Q> => Object.fromEntries(ledgerTables.map((t) => [t, make(t)]));

const columnsOf = (table: string) => join(ledgerColumns.get(table)!.map(ident));
const columnsRead = (table: string) => join(ledgerColumns.get(table)!.map((c) => columnAsText(table, c)));

/** The autoincrement keys (PostgreSQL's identity columns), as (table, column). */
const identityColumns: [string, string][] = configs.flatMap((c) => c.columns.filter((col) => (col as { autoIncrement?: boolean }).autoIncrement).map((col): [string, string] => [c.name, col.name]));

export const wholeTableSql = statements("whole_tables", {
  count: perTable((table) => query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM ${ident(table)}`)),
  /** Every row, its columns in their declared order, a hash as hex text whichever way it is kept (../sql/hash-bytes.ts). */
  rows: perTable((table) => query<Record<never, never>, TableRow>(() => sql`SELECT ${columnsRead(table)} FROM ${ident(table)}`)),
  /**
   * Inserts rows as they were read (a JSON list of rows keyed by column), each value exactly: SQLite
   * takes each member as JSON typed it (integers, text, null), PostgreSQL as the table's column
   * types read it (json_populate_recordset).
   */
  insert: perTable((table) =>
    query<{ rows: readonly TableRow[] }>(
      (p) =>
        sql`INSERT INTO ${ident(table)} (${columnsOf(table)}) ${byEngine({
          sqlite: sql`SELECT ${join(ledgerColumns.get(table)!.map((c) => jsonText(sql`value`, c)))} FROM ${jsonEach(p.rows)}`,
          postgres: sql`SELECT ${columnsOf(table)} FROM json_populate_recordset(NULL::${ident(table)}, CAST(CAST(${asJson(p.rows)} AS TEXT) AS json))`,
        })}`,
    ),
  ),
  /**
   * PostgreSQL's identity sequences moved on past the ids a copy wrote (`sequence` is the
   * sequence's table, quoted, and `column` its column, as pg_get_serial_sequence takes them).
   */
  identityPastMax: Object.fromEntries(
    identityColumns.map(([table, column]) => [
      `${table}.${column}`,
      query<{ sequence: string; column: string }>((p) => sql`SELECT setval(pg_get_serial_sequence(${p.sequence}, ${p.column}), coalesce(max(${ident(column)}), 0) + 1, false) FROM ${ident(table)}`, {
        engines: ["postgres"],
      }),
    ]),
  ),
});

/** See wholeTableSql.identityPastMax. */
export const identities = identityColumns;

/** A row of any table, keyed by column. */
export type TableRow = Record<string, string | number | null>;
