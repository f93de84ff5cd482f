// SHA-256 hashes kept as their 32 bytes on SQLite rather than as 64 hex characters
// (docs/storage.md#hashes-as-bytes): an action's payload and evidence hashes, a journal entry's
// evidence hash, and every row seal. Everything above the statements sees the hex text it always
// saw: each write goes through `hashValue` and each read through `hashText`. A row written before
// keeps its hex text, which reads as it is, so a ledger upgrades with no migration. PostgreSQL
// keeps the text: changing its column type rewrites the tables, for a saving nobody measured there.
import { byEngine, ident, type Param, type SqlFragment, sql } from "./statement.ts";

/** The columns stored so, by table (`row_sha256`, the seal, is one in every sealed table). */
const HASH_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  actions: ["payload_sha256", "evidence_sha256"],
  journal: ["evidence_sha256"],
};

/** Whether a table's column holds a hash as bytes on SQLite. */
export const holdsHashBytes = (table: string, column: string): boolean => column === "row_sha256" || (HASH_COLUMNS[table]?.includes(column) ?? false);

/** A hash (lowercase hex, as sha256Hex gives it: a parameter, or an expression that reads one) as a statement writes it. */
export const hashValue = (hex: Param<string | null> | SqlFragment): SqlFragment => byEngine({ sqlite: sql`unhex(${hex})`, postgres: sql`${hex}` });

/** A stored hash read as lowercase hex, whether it was written as bytes or, before, as text. */
export const hashText = (column: SqlFragment): SqlFragment => byEngine({ sqlite: sql`(CASE WHEN typeof(${column}) = 'blob' THEN lower(hex(${column})) ELSE ${column} END)`, postgres: column });

/** A hash column read as hex under its own name (`of`: the table or alias that qualifies it). */
export const hashColumn = (column: string, of?: string): SqlFragment => sql`${hashText(of ? sql`${ident(of)}.${ident(column)}` : ident(column))} AS ${ident(column)}`;

/** Any column of a table as whole-table reads take it (the copy, row comparisons): a hash as hex, any other as stored. */
export const columnAsText = (table: string, column: string): SqlFragment => (holdsHashBytes(table, column) ? hashColumn(column) : ident(column));
