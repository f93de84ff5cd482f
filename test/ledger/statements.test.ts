// SQL written once (src/ledger/sql/statement.ts): every statement the ledger defines prepares on
// SQLite (against the migrated schema, plus the outbox's tables and those a migration's data step
// reads) (test/postgres/statements.pg.ts prepares each on PostgreSQL), each engine gets its own
// placeholders from one template without any rewriting of finished SQL, and the types keep values
// and SQL apart.
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { adHocQuery, forUpdate, ident, inList, jsonText, sql, statements, type Query } from "../../src/ledger/sql/statement.ts";
import { tempDir } from "../harness/index.ts";
import { addTablesBeyondTheSchema, ledgerStatements, sqliteAt } from "../support/statements.ts";

describe("every statement of the ledger", async () => {
  const all = await ledgerStatements();

  test("is named by its table's group, once", () => {
    expect(all.length).toBeGreaterThan(200);
    expect(all.filter((q) => !q.name).map((q) => q.sqlite.text || q.postgres.text)).toEqual([]);
    const names = all.map((q) => q.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // Those of a migration's data step and of the outbox too, whose tables the schema lacks.
    const groups = new Set(names.map((n) => n.split(".")[0]));
    for (const group of ["actions", "action_events", "actions_before_events", "events", "webhook_subscriptions", "webhook_deliveries"]) expect(groups).toContain(group);
  });

  test("prepares on SQLite, against the migrated schema, or a data step's against the schema its migration left", async () => {
    const ledger = await openLedger(tempDir());
    const failures: string[] = [];
    const prepare = (db: Database, q: Query) => {
      try {
        db.prepare(q.sqlite.text).finalize();
      } catch (e) {
        failures.push(`${q.name}: ${(e as Error).message}`);
      }
    };
    try {
      await addTablesBeyondTheSchema(ledger.db);
      for (const q of all.filter((s) => s.engines.includes("sqlite") && !s.writtenFor)) prepare(sqliteOf(ledger), q);
    } finally {
      await ledger.close();
    }
    const ofDataSteps = all.filter((s) => s.writtenFor);
    expect(ofDataSteps.length).toBeGreaterThan(0);
    for (const q of ofDataSteps) {
      const then = sqliteAt(q.writtenFor!.sqlite);
      try {
        prepare(then, q);
      } finally {
        then.close();
      }
    }
    expect(failures).toEqual([]);
  });

  test("has as many placeholders as it binds parameters, on each engine", () => {
    for (const q of all) {
      for (const engine of q.engines) {
        const rendered = q[engine];
        const marks = new Set(rendered.text.match(engine === "sqlite" ? /\?\d+/g : /\$\d+/g) ?? []);
        expect({ name: q.name, engine, placeholders: marks.size }).toEqual({ name: q.name, engine, placeholders: rendered.names.length });
      }
    }
  });
});

describe("a template", () => {
  const probe = adHocQuery<{ a: string; b: number }, { quoted: string; a: string; again: string; b: number }>(
    (p) =>
      sql`SELECT 'why?' AS quoted, -- a ? in a comment, and ?1
      CAST(${p.a} AS TEXT) AS a, CAST(${p.a} AS TEXT) AS again, ${p.b} AS b`,
  );

  test("numbers each parameter once per engine and leaves a ? in a literal or a comment as written", () => {
    expect(probe.sqlite.text).toContain("'why?' AS quoted, -- a ? in a comment, and ?1\n");
    expect(probe.sqlite.text).toEndWith("CAST(?1 AS TEXT) AS a, CAST(?1 AS TEXT) AS again, ?2 AS b");
    expect(probe.postgres.text).toEndWith("CAST($1 AS TEXT) AS a, CAST($1 AS TEXT) AS again, $2 AS b");
    expect(probe.sqlite.names).toEqual(["a", "b"]);
  });

  test("answers with each value where it was named", async () => {
    const ledger = await openLedger(tempDir());
    try {
      expect(await ledger.db.get(probe, { a: "x", b: 7 })).toEqual({ quoted: "why?", a: "x", again: "x", b: 7 });
    } finally {
      await ledger.close();
    }
  });

  test("takes a list longer than SQLite's limit on variables, as one parameter", async () => {
    const ledger = await openLedger(tempDir());
    const many = Array.from({ length: 40_000 }, (_, i) => `k${i}`);
    const count = adHocQuery<{ keys: readonly string[] }, { n: number }>((p) => sql`SELECT count(*) AS n FROM ${sql`(SELECT 1 AS x)`} WHERE 'k39999' IN ${inList(p.keys)}`);
    try {
      expect(await ledger.db.get(count, { keys: many })).toEqual({ n: 1 });
      expect(count.sqlite.names).toEqual(["keys"]);
    } finally {
      await ledger.close();
    }
  });

  test("spells a JSON path and a row lock for each engine", () => {
    const q = adHocQuery<{ id: number }>((p) => sql`SELECT ${jsonText(sql`payload`, "matched.version")} FROM actions WHERE id = ${p.id}${forUpdate({ of: "actions", skipLocked: true })}`);
    expect(q.sqlite.text).toBe("SELECT json_extract(payload, '$.matched.version') FROM actions WHERE id = ?1");
    expect(q.postgres.text).toBe("SELECT (CAST(payload AS json) #>> '{matched,version}') FROM actions WHERE id = $1 FOR UPDATE OF actions SKIP LOCKED");
  });

  test("takes no string where a value or SQL goes", () => {
    const name = "journal";
    // @ts-expect-error a string is neither a parameter nor a fragment
    expect(() => sql`SELECT * FROM ${name}`).toThrow(/a parameter or a fragment/);
    expect(sql`SELECT * FROM ${ident(name)}`.parts).toEqual(["SELECT * FROM ", '"journal"']);
    expect(() => ident('journal"; DROP TABLE journal; --')).toThrow(/not a plain identifier/);
    expect(() => jsonText(sql`payload`, "a') OR ('1")).toThrow(/not a JSON path/);
    // @ts-expect-error a list goes only where a list is read (inList, jsonEach)
    adHocQuery<{ keys: readonly string[] }>((p) => sql`SELECT ${p.keys}`);
    // @ts-expect-error a scalar is not a list
    adHocQuery<{ key: string }>((p) => sql`SELECT value FROM x WHERE value IN ${inList(p.key)}`);
  });

  test("refuses a parameter used both as a list and as a value, and a value left out", async () => {
    expect(() => adHocQuery<{ k: readonly string[] }>((p) => sql`SELECT ${p.k as never} WHERE 'a' IN ${inList(p.k)}`)).toThrow(/parameter k is used both as a list and as a value/);
    const ledger = await openLedger(tempDir());
    try {
      await expect(ledger.db.get(probe, { a: "x" } as never)).rejects.toThrow(/no value for parameter b/);
    } finally {
      await ledger.close();
    }
  });

  test("of one engine's own state names itself when run on the other", async () => {
    const pragma: Query = statements("test_only", { pragma: adHocQuery(() => sql`PRAGMA user_version`, { engines: ["postgres"] }) }).pragma;
    const ledger = await openLedger(tempDir());
    try {
      await expect(ledger.db.get(pragma)).rejects.toThrow(/statement test_only.pragma does not run on sqlite/);
    } finally {
      await ledger.close();
    }
  });
});
