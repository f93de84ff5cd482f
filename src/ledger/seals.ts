// Row seals: the SHA-256 of each stored row that nothing else derives (observations as received,
// the journal, imported reference rates, the dataset label), kept in its `row_sha256` column. Derived tables need no seal:
// `ca-ledger verify` re-derives them. A seal is set by `sealRows` in the transaction that wrote
// the row; the journal's seals are chained (each covers the previous entry's seal), so a removed
// or reordered entry breaks every seal after it. Seals are not secret: they catch a changed byte
// (a disk, a bad restore, a hand edit), not a writer who recomputes them.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { bookingJson } from "./journal-payload.ts";
import type { Sql, SqlValue } from "./sql/port.ts";
import { entryRead, type StoredEntry } from "./tables/journal.ts";
import { hashColumn, hashValue } from "./sql/hash-bytes.ts";
import { ident, join, query, sql, statements, type Params, type SqlFragment } from "./sql/statement.ts";

/**
 * `key` is the table's primary key: rows are named, found and sealed by it, and sealed in its
 * order (the journal's chain runs in id order).
 */
export interface SealedTable {
  name: string;
  columns: readonly string[];
  key: readonly string[];
  chained: boolean;
  /** The row as sealed, from the row as stored (the journal's payload is sealed whole, journal-payload.ts). */
  sealed?: (row: Row) => Row;
  /** Columns read through an expression rather than as stored (the journal's amounts and hash, tables/journal.ts). */
  read?: Readonly<Record<string, SqlFragment>>;
}

/** Every column of each sealed table but the seal itself (a test checks none is left out). */
export const sealedTables: readonly SealedTable[] = [
  { name: "dataset_label", columns: ["id", "kind", "description", "created_at"], key: ["id"], chained: false },
  { name: "instruments", columns: ["mint", "symbol", "name", "underlying", "isin", "decimals", "updated_at", "source", "uri"], key: ["mint"], chained: false },
  { name: "issuer_revisions", columns: ["id", "event_id", "version", "symbol", "payload", "payload_sha256", "edited", "ingested_at", "source", "mint"], key: ["id"], chained: false },
  { name: "mint_states", columns: ["id", "mint", "slot", "decimals", "authority", "multiplier", "new_multiplier", "new_multiplier_effective_ts", "observed_at"], key: ["id"], chained: false },
  // Imported by the operator, replaced in place when a later file corrects a quote (the importer
  // clears the seal and seals again); the year report converts with them.
  { name: "reference_rates", columns: ["currency", "date", "per_eur", "imported_at"], key: ["currency", "date"], chained: false },
  { name: "multiplier_updates", columns: ["signature", "ix_index", "mint", "slot", "block_time", "multiplier", "effective_ts", "authority"], key: ["signature", "ix_index"], chained: false },
  { name: "transaction_changes", columns: ["signature", "owner", "slot", "block_time", "signers", "lamports", "tokens"], key: ["signature", "owner"], chained: false },
  { name: "cost_basis_declarations", columns: ["id", "owner", "payload", "payload_sha256", "source", "imported_at"], key: ["id"], chained: false },
  {
    name: "journal",
    columns: [
      "id",
      "owner",
      "action_id",
      "entry_type",
      "reverses_id",
      "mint",
      "symbol",
      "type",
      "treatment",
      "kind",
      "units_delta",
      "principal_units_delta",
      "income_units",
      "usd",
      "factor",
      "effective_at",
      "change_reason",
      "evidence_sha256",
      "payload",
      "created_at",
    ],
    key: ["id"],
    chained: true,
    sealed: sealedEntry,
    read: entryRead,
  },
];

type Row = Record<string, string | number | null>;

/**
 * A journal entry as sealed: its payload is the whole booking, whatever part of it the entry
 * stores. A payload that is not JSON any more is sealed as stored, so its seal fails.
 */
function sealedEntry(row: Row): Row {
  try {
    return { ...row, payload: bookingJson(row as unknown as StoredEntry) };
  } catch {
    return row;
  }
}

/** A row's seal: SHA-256 over the previous seal (chained tables) and the row's canonical JSON. */
export function rowSeal(table: SealedTable, stored: Row, previous: string): string {
  const row = table.sealed ? table.sealed(stored) : stored;
  const content = canonicalJson(Object.fromEntries(table.columns.map((c) => [c, row[c] ?? null])));
  return sha256Hex(table.chained ? `${previous}\n${content}` : content);
}

const keyOf = (t: SealedTable, row: Row): SqlValue[] => t.key.map((c) => row[c] ?? null);
const keyParams = (t: SealedTable, row: Row): Record<string, SqlValue> => Object.fromEntries(t.key.map((c) => [c, row[c] ?? null]));

type SealedRow = Row & { row_sha256: string | null };

/** Each sealed table's statements, its columns and key named from `sealedTables`. */
function sealStatements(t: SealedTable) {
  const table = ident(t.name);
  const column = (c: string) => (t.read?.[c] ? sql`${t.read[c]} AS ${ident(c)}` : ident(c));
  // The seal is kept as bytes on SQLite and read as hex (sql/hash-bytes.ts).
  const seal = hashColumn("row_sha256");
  const select = sql`SELECT ${join(t.columns.map(column))}, ${seal} FROM ${table}`;
  const order = sql`ORDER BY ${join(t.key.map(ident))}`;
  const byKey = (p: Params<Record<string, SqlValue>>) =>
    join(
      t.key.map((c) => sql`${ident(c)} = ${p[c]!}`),
      " AND ",
    );
  const [first] = t.key;
  return {
    unsealed: query<Record<never, never>, SealedRow>(() => sql`${select} WHERE row_sha256 IS NULL ${order}`),
    seal: query<Record<string, SqlValue> & { row_sha256: string }>((p) => sql`UPDATE ${table} SET row_sha256 = ${hashValue(p.row_sha256)} WHERE ${byKey(p)}`),
    /** The seal before a row (chained tables have a one-column integer key). */
    previous: query<{ key: SqlValue }, { row_sha256: string | null }>((p) => sql`SELECT ${seal} FROM ${table} WHERE ${ident(first!)} < ${p.key} ORDER BY ${ident(first!)} DESC LIMIT 1`),
    all: query<Record<never, never>, SealedRow>(() => sql`${select} ${order}`),
    count: query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM ${table}`),
  };
}

const sealSql = statements("seals", Object.fromEntries(sealedTables.map((t) => [t.name, sealStatements(t)])));

/** The journal alone, which its writer seals entry by entry (`appendJournal`, writers.ts). */
export const journalSeals = sealedTables.filter((t) => t.name === "journal");

/**
 * Seals every row that has no seal yet, of every sealed table or of those named. Call it last in
 * each transaction that writes a sealed table (it finds the new rows through the partial
 * `*_unsealed` indexes), and once at start to seal rows written before seals existed.
 */
export async function sealRows(tx: Sql, tables: readonly SealedTable[] = sealedTables): Promise<number> {
  let sealed = 0;
  for (const t of tables) {
    const statements = sealSql[t.name]!;
    const rows = await tx.all(statements.unsealed);
    if (!rows.length) continue;
    let previous = t.chained ? ((await tx.get(statements.previous, { key: rows[0]![t.key[0]!] ?? null }))?.row_sha256 ?? "") : "";
    for (const r of rows) {
      const seal = rowSeal(t, r, previous);
      await tx.run(statements.seal, { ...keyParams(t, r), row_sha256: seal });
      previous = seal;
      sealed++;
    }
  }
  return sealed;
}

/** Every stored row whose content no longer matches its seal, or that was never sealed; `key` names the row. */
export async function* brokenSeals(db: Sql): AsyncGenerator<{ table: string; key: string; problem: string }, void, undefined> {
  for (const t of sealedTables) {
    let previous = "";
    for await (const r of db.iterate(sealSql[t.name]!.all)) {
      const seal = rowSeal(t, r, previous);
      const key = keyOf(t, r).join(" ");
      if (r.row_sha256 === null) yield { table: t.name, key, problem: "was never sealed" };
      else if (r.row_sha256 !== seal) yield { table: t.name, key, problem: `hashes to ${seal}, sealed ${r.row_sha256}` };
      // The chain goes on from the stored seal, so one changed entry is named once, not with every later one.
      previous = r.row_sha256 ?? seal;
    }
  }
}

/** How many rows of sealed tables verify looks at. */
export async function sealedRowCount(db: Sql): Promise<number> {
  let n = 0;
  for (const t of sealedTables) n += (await db.get(sealSql[t.name]!.count))!.n;
  return n;
}
