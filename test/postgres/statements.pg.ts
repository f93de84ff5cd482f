// Every statement the ledger defines prepares on PostgreSQL, against the migrated schema (and the
// tables test/support/statements.ts adds beyond it; SQLite's
// side: test/ledger/statements.test.ts), and PostgreSQL reads each template as written: a `?` in
// a literal or a comment is text, not a parameter (what rewriting SQLite's SQL got wrong).
import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openLedger, type PostgresLedger } from "../../src/ledger/db.ts";
import { adHocQuery, inList, jsonEach, jsonText, sql } from "../../src/ledger/sql/statement.ts";
import { tempDir } from "../harness/index.ts";
import { freshDatabase } from "../support/engine.ts";
import { addTablesBeyondTheSchema, ledgerStatements, migrationStatementsTo } from "../support/statements.ts";

let ledger: PostgresLedger;
beforeAll(async () => {
  ledger = (await openLedger({ dataDir: tempDir(), databaseUrl: freshDatabase("statements") })) as PostgresLedger;
  await addTablesBeyondTheSchema(ledger.db);
});
afterAll(async () => {
  await ledger?.close();
});

test("every statement of the ledger prepares on PostgreSQL, against the migrated schema, or a data step's against the schema its migration left", async () => {
  const all = (await ledgerStatements()).filter((q) => q.engines.includes("postgres"));
  // A data step's writes, on a database made by the migrations up to its own.
  const ofDataSteps = all.filter((q) => q.writtenFor);
  expect(ofDataSteps.length).toBeGreaterThan(0);
  const stepFailures: string[] = [];
  for (const q of ofDataSteps) {
    const then = new SQL(freshDatabase("statements_then"));
    try {
      for (const s of migrationStatementsTo("postgres", q.writtenFor!.postgres)) await then.unsafe(s).simple();
      await then.unsafe(`PREPARE ledger_statement AS ${q.postgres.text}`).simple();
    } catch (e) {
      stepFailures.push(`${q.name}: ${(e as Error).message}`);
    } finally {
      await then.close();
    }
  }
  expect(stepFailures).toEqual([]);
  expect(all.length).toBeGreaterThan(200);
  const connection = await ledger.db.client.reserve();
  const failures: string[] = [];
  try {
    for (const q of all.filter((s) => !s.writtenFor)) {
      try {
        if (/^\s*(DROP|CREATE|ALTER)\b/.test(q.postgres.text)) {
          // PostgreSQL prepares no DDL (a data step's DROP TABLE): run it in a transaction undone.
          await connection.unsafe("BEGIN").simple();
          try {
            await connection.unsafe(q.postgres.text).simple();
          } finally {
            await connection.unsafe("ROLLBACK").simple();
          }
          continue;
        }
        // PREPARE parses and analyses the statement (types of its parameters included) and runs nothing.
        await connection.unsafe(`PREPARE ledger_statement AS ${q.postgres.text}`).simple();
        await connection.unsafe("DEALLOCATE ledger_statement").simple();
      } catch (e) {
        failures.push(`${q.name}: ${(e as Error).message}`);
      }
    }
  } finally {
    connection.release();
  }
  expect(failures).toEqual([]);
});

test("a ? in a literal or a comment is text, and each value lands where it was named", async () => {
  const probe = adHocQuery<{ a: string; b: number }, { quoted: string; a: string; again: string; b: number }>(
    (p) =>
      sql`SELECT 'why?' AS quoted, -- a ? in a comment, and ?1
      CAST(${p.a} AS TEXT) AS a, CAST(${p.a} AS TEXT) AS again, CAST(${p.b} AS BIGINT) AS b`,
  );
  expect(await ledger.db.get(probe, { a: "x", b: 7 })).toEqual({ quoted: "why?", a: "x", again: "x", b: 7 });
});

test("lists and JSON paths read as on SQLite", async () => {
  const listed = adHocQuery<{ keys: readonly string[]; rows: readonly { a: string; b: { c: string } }[] }, { value: string; c: string | null }>(
    (p) => sql`SELECT value, ${jsonText(sql`value`, "b.c")} AS c FROM ${jsonEach(p.rows)} WHERE ${jsonText(sql`value`, "a")} IN ${inList(p.keys)} ORDER BY c`,
  );
  const rows = [
    { a: "k1", b: { c: "one" } },
    { a: "k2", b: { c: "two" } },
    { a: "k3", b: { c: "three" } },
  ];
  expect((await ledger.db.all(listed, { keys: ["k1", "k3"], rows })).map((r) => r.c)).toEqual(["one", "three"]);
});
