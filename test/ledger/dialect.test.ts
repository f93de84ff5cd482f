// The rewrite of the ledger's SQL (SQLite's spelling) for PostgreSQL: placeholders, JSON lists
// given as text, JSON paths. The rewritten queries themselves run in every PostgreSQL test run;
// these pin the rewrite's rules on the forms the ledger writes.
import { describe, expect, test } from "bun:test";
import { toPostgres } from "../../src/ledger/sql/dialect.ts";

describe("toPostgres", () => {
  test("numbered placeholders keep their number, bare ones are numbered in order", () => {
    expect(toPostgres("SELECT * FROM t WHERE a = ?1 AND b = ?2 OR a = ?1")).toBe("SELECT * FROM t WHERE a = $1 AND b = $2 OR a = $1");
    expect(toPostgres("INSERT INTO t (a, b, c) VALUES (?, ?, ?)")).toBe("INSERT INTO t (a, b, c) VALUES ($1, $2, $3)");
    expect(toPostgres("LIMIT ?10 OFFSET ?11")).toBe("LIMIT $10 OFFSET $11");
  });

  test("a JSON list given as text becomes jsonb_array_elements_text of its text", () => {
    expect(toPostgres("WHERE owner IN (SELECT value FROM json_each(?1))")).toBe("WHERE owner IN (SELECT value FROM jsonb_array_elements_text(CAST(CAST($1 AS TEXT) AS jsonb)))");
  });

  test("a JSON path becomes #>> on the json text, nested calls in the argument kept whole", () => {
    expect(toPostgres("SELECT json_extract(payload, '$.validation') AS v")).toBe("SELECT (CAST(payload AS json) #>> '{validation}') AS v");
    expect(toPostgres("WHERE r.version = CAST(json_extract(coalesce(a.detail, a.payload), '$.matched.version') AS INTEGER)"))
      .toBe("WHERE r.version = CAST((CAST(coalesce(a.detail, a.payload) AS json) #>> '{matched,version}') AS INTEGER)");
  });

  test("SQL both engines read alike is left as it is", () => {
    const same = "INSERT INTO x (a) VALUES ('b') ON CONFLICT(a) DO UPDATE SET a = excluded.a WHERE x.a IS DISTINCT FROM excluded.a RETURNING id";
    expect(toPostgres(same)).toBe(same);
  });
});
