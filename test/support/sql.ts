// Statements a test writes as it goes (to read a count, or to damage a row on purpose), values
// inline: each `${value}` is bound as a parameter, each `${fragment}` is SQL (`ident(name)` for a
// table or column, `jsonText(raw("payload"), "a.b")` for a JSON path on both engines, `raw(text)`
// for a test's own SQL text). The ledger's own statements are
// defined once (src/ledger/sql/statement.ts); these are built per call and never registered.
//
//   await db.run(...q`UPDATE journal SET usd = ${"1"} WHERE id = ${id}`);
import { adHocQuery, ident, jsonText, sql, SqlFragment, type Query, type SqlScalar } from "../../src/ledger/sql/statement.ts";

export { ident, jsonText };

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
