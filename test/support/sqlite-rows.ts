// How a test finds a row of a SQLite table by what the file stores: its rowid, or, in a WITHOUT
// ROWID table (docs/storage.md#rows-clustered-by-wallet), which has none, its primary key.
import type { Database } from "bun:sqlite";

/** The columns a row of `table` is found by, quoted: `rowid`, or the primary key's in its order. */
export function rowKey(db: Database, table: string): string[] {
  const made = db.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string } | null;
  if (!made || !/WITHOUT ROWID\s*$/i.test(made.sql)) return ["rowid"];
  return (db.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk").all(table) as { name: string }[]).map((r) => `"${r.name}"`);
}
