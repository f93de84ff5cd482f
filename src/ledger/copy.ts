// Copies a whole ledger into an empty one, through the port, so it works from any engine to any
// other (`ca-ledger migrate-to-postgres` copies SQLite into PostgreSQL). The source is read in one
// snapshot and the target written in one transaction: the copy is the ledger as it stood when
// the copy began, whole or not at all. Every row keeps its values exactly (ids, seals, hashes,
// JSON text), so the copy verifies as the source does.
import { is } from "drizzle-orm";
import { getTableConfig as postgresTable, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema.ts";
import * as postgresSchema from "./schema-postgres.ts";
import { columnNames } from "./sql/dialect.ts";
import type { Sql, SqlValue } from "./sql/port.ts";

export class CopyRefused extends Error {}

/** The ledger's tables, every table after the ones its foreign keys name. */
export const tablesInCopyOrder: string[] = (() => {
  const configs = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable)).map(getTableConfig);
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

/** PostgreSQL's identity columns (table, column): their sequences move on past the copied ids. */
const identityColumns: [string, string][] = (Object.values(postgresSchema) as unknown[])
  .filter((t): t is PgTable => is(t, PgTable))
  .flatMap((t) => {
    const config = postgresTable(t);
    return config.columns.filter((c) => (c as { generatedIdentity?: unknown }).generatedIdentity).map((c): [string, string] => [config.name, c.name]);
  });

// Parameters per INSERT stay well under PostgreSQL's 65,535.
const MAX_PARAMS = 30_000;

export interface CopyResult { tables: { name: string; rows: number }[]; rows: number }

/** Rows of each ledger table (the migration records are not the ledger's). */
export async function rowCounts(db: Sql): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const t of tablesInCopyOrder) counts.set(t, (await db.get<{ n: number }>(`SELECT count(*) AS n FROM "${t}"`))!.n);
  return counts;
}

export async function copyLedger(from: Sql, to: Sql): Promise<CopyResult> {
  const held = [...(await rowCounts(to))].filter(([, n]) => n > 0);
  if (held.length) throw new CopyRefused(`the target already holds ledger rows (${held.map(([t, n]) => `${t}=${n}`).join(" ")}); it must be empty`);
  const tables: CopyResult["tables"] = [];
  await from.read((source) => to.write(async (target) => {
    for (const name of tablesInCopyOrder) tables.push({ name, rows: await copyTable(source, target, name) });
    if (target.dialect === "postgres") {
      for (const [t, c] of identityColumns) await target.run(`SELECT setval(pg_get_serial_sequence('"${t}"', '${c}'), coalesce(max("${c}"), 0) + 1, false) FROM "${t}"`);
    }
  }));
  return { tables, rows: tables.reduce((n, t) => n + t.rows, 0) };
}

async function copyTable(source: Sql, target: Sql, table: string): Promise<number> {
  const columns = await columnNames(source, table);
  const theirs = await columnNames(target, table);
  if ([...columns].sort().join() !== [...theirs].sort().join()) {
    throw new CopyRefused(`table ${table} has other columns in the target (${theirs.join(", ")}) than in the source (${columns.join(", ")}): are both at this version's schema?`);
  }
  const list = columns.map((c) => `"${c}"`).join(", ");
  const perInsert = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  let batch: SqlValue[][] = [];
  let copied = 0;
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch.map(() => `(${columns.map(() => "?").join(", ")})`).join(", ");
    await target.run(`INSERT INTO "${table}" (${list}) VALUES ${rows}`, ...batch.flat());
    copied += batch.length;
    batch = [];
  };
  for await (const row of source.iterate<Record<string, SqlValue>>(`SELECT ${list} FROM "${table}"`)) {
    batch.push(columns.map((c) => row[c] ?? null));
    if (batch.length >= perInsert) await flush();
  }
  await flush();
  return copied;
}
