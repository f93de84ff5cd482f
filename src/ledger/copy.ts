// Copies a whole ledger into an empty one, through the port, so it works from any engine to any
// other (`ca-ledger migrate-to-postgres` copies SQLite into PostgreSQL). The source is read in one
// snapshot and the target written in one transaction: the copy is the ledger as it stood when
// the copy began, whole or not at all. Every row keeps its values exactly (ids, seals, hashes,
// JSON text), so the copy verifies as the source does.
import { columnNames } from "./sql/dialect.ts";
import type { Sql } from "./sql/port.ts";
import { identities, ledgerColumns, tablesInCopyOrder, wholeTableSql, type TableRow } from "./tables/whole-tables.ts";

export { tablesInCopyOrder };

export class CopyRefused extends Error {}

// Rows per INSERT: each is one JSON parameter (a few MB at most for the largest rows).
const ROWS_PER_INSERT = 1000;

export interface CopyResult {
  tables: { name: string; rows: number }[];
  rows: number;
}

/** Rows of each ledger table (the migration records are not the ledger's). */
export async function rowCounts(db: Sql): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const t of tablesInCopyOrder) counts.set(t, (await db.get(wholeTableSql.count[t]!))!.n);
  return counts;
}

export async function copyLedger(from: Sql, to: Sql): Promise<CopyResult> {
  const held = [...(await rowCounts(to))].filter(([, n]) => n > 0);
  if (held.length) throw new CopyRefused(`the target already holds ledger rows (${held.map(([t, n]) => `${t}=${n}`).join(" ")}); it must be empty`);
  const tables: CopyResult["tables"] = [];
  await from.read((source) =>
    to.write(async (target) => {
      for (const name of tablesInCopyOrder) tables.push({ name, rows: await copyTable(source, target, name) });
      if (target.dialect === "postgres") {
        for (const [t, c] of identities) await target.run(wholeTableSql.identityPastMax[`${t}.${c}`]!, { sequence: `"${t}"`, column: c });
      }
    }),
  );
  return { tables, rows: tables.reduce((n, t) => n + t.rows, 0) };
}

async function copyTable(source: Sql, target: Sql, table: string): Promise<number> {
  const columns = ledgerColumns.get(table)!;
  for (const [side, db] of [
    ["source", source],
    ["target", target],
  ] as const) {
    const theirs = await columnNames(db, table);
    if ([...columns].sort().join() !== [...theirs].sort().join()) {
      throw new CopyRefused(`table ${table} has other columns in the ${side} (${theirs.join(", ")}) than this version's schema (${columns.join(", ")}): are both at this version's schema?`);
    }
  }
  let batch: TableRow[] = [];
  let copied = 0;
  const flush = async () => {
    if (!batch.length) return;
    await target.run(wholeTableSql.insert[table]!, { rows: batch });
    copied += batch.length;
    batch = [];
  };
  for await (const row of source.iterate(wholeTableSql.rows[table]!)) {
    batch.push(row);
    if (batch.length >= ROWS_PER_INSERT) await flush();
  }
  await flush();
  return copied;
}
