// Statements a test writes as it goes (to read a count, or to damage a row on purpose), values
// inline: each `${value}` is bound as a parameter, each `${fragment}` is SQL (`ident(name)` for a
// table or column, `jsonText(raw("payload"), "a.b")` for a JSON path on both engines, `hex(column)`
// for a hash column as the ledger reads it, `raw(text)`
// for a test's own SQL text). The ledger's own statements are
// defined once (src/ledger/sql/statement.ts); these are built per call and never registered.
//
//   await db.run(...q`UPDATE journal SET usd = ${"1"} WHERE id = ${id}`);
import { columnAsText, hashColumn } from "../../src/ledger/sql/hash-bytes.ts";
import { columnNames } from "../../src/ledger/sql/dialect.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { adHocQuery, join, ident, jsonText, sql, SqlFragment, type Query, type SqlScalar } from "../../src/ledger/sql/statement.ts";

export { ident, jsonText };

/** A hash column read as hex on either engine, whether kept as bytes or text (src/ledger/sql/hash-bytes.ts). */
export const hex = (column: string): SqlFragment => {
  const [of, name] = column.includes(".") ? column.split(".") : [undefined, column];
  return hashColumn(name!, of);
};

type Values = Record<string, SqlScalar>;

/** A test's statement with its values, as `q` makes it (spread into a port call: `db.all(...stmt)`). */
export type Statement<R = Record<string, unknown>> = [Query<Values, R>, Values];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads what it selected
export function q<R = Record<string, any>>(strings: TemplateStringsArray, ...holes: (SqlScalar | SqlFragment)[]): Statement<R> {
  const values: Values = {};
  const query = adHocQuery<Values, R>((p) => sql(strings, ...holes.map((hole, i) => (hole instanceof SqlFragment ? hole : ((values[`v${i}`] = hole), p[`v${i}`]!)))));
  return [query, values];
}

/** A test's own SQL text, spliced as it is. */
export const raw = (text: string | number): SqlFragment => new SqlFragment([String(text)]);

/**
 * Every row of a table but the columns left out, each hash column as hex (as the ledger reads
 * it, whichever engine keeps it how), in the order of all its columns: two engines' rows compare.
 */
export async function everyRowOf(db: Sql, table: string, leftOut: (column: string) => boolean = () => false) {
  const columns = (await columnNames(db, table)).filter((c) => !leftOut(c));
  const read = join(columns.map((c) => columnAsText(table, c)));
  return db.all(...q`SELECT ${read} FROM ${ident(table)} ORDER BY ${raw(columns.map((_, i) => i + 1).join(", "))}`);
}
