// Hashes as bytes (src/ledger/sql/hash-bytes.ts, docs/storage.md#hashes-as-bytes): on SQLite a
// booked ledger keeps each action's payload and evidence hash, each journal entry's evidence hash
// and every row seal as their 32 bytes; PostgreSQL keeps the hex text. A ledger whose hashes were
// all written as text, as every ledger was before, serves, seals and verifies exactly as one
// written now, and what is booked after it is kept as bytes.
import { afterAll, describe, expect, test } from "bun:test";
import { holdsHashBytes } from "../../src/ledger/sql/hash-bytes.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { ledgerColumns, ledgerTables } from "../../src/ledger/tables/whole-tables.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { demoAnswers, loadCorrectedDemo } from "../support/demo-answers.ts";
import { dropTrigger, testEngine } from "../support/engine.ts";
import { q, raw } from "../support/sql.ts";
import { appendCorrection, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";

afterAll(removeTempDirs);

/** The hash columns a wallet has many of, by table (the seal is `row_sha256`). */
const HASHES: Record<string, string[]> = {
  actions: ["payload_sha256", "evidence_sha256"],
  journal: ["evidence_sha256", "row_sha256"],
  transaction_changes: ["row_sha256"],
};

/** How each table's hash columns are kept: "<storage class> <length in bytes>" and how many rows. */
async function forms(db: Sql): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [table, columns] of Object.entries(HASHES)) {
    for (const c of columns) {
      const form = testEngine === "sqlite" ? raw(`typeof("${c}") || ' ' || length(CAST("${c}" AS BLOB))`) : raw(`CASE WHEN "${c}" ~ '^[0-9a-f]{64}$' THEN 'hex 64' ELSE 'other' END`);
      const rows = await db.all(...q<{ form: string; n: number }>`SELECT ${form} AS form, count(*) AS n FROM ${raw(`"${table}"`)} GROUP BY 1`);
      out[`${table}.${c}`] = Object.fromEntries(rows.map((r) => [r.form, Number(r.n)]));
    }
  }
  return out;
}

/** Every hash column in one form only, `form` (each table holding rows). */
function allIn(found: Record<string, Record<string, number>>, form: string): void {
  for (const [column, counts] of Object.entries(found)) {
    expect({ column, forms: Object.keys(counts) }).toEqual({ column, forms: [form] });
    expect(counts[form]!).toBeGreaterThan(0);
  }
}

describe("hashes as bytes", () => {
  test("a booked ledger keeps them as 32 bytes on SQLite, as hex on PostgreSQL", async () => {
    const dir = tempDir("cal-hashbytes-");
    await loadCorrectedDemo(dir);
    await withLedger(dir, async ({ db }) => {
      allIn(await forms(db), testEngine === "sqlite" ? "blob 32" : "hex 64");
      if (testEngine !== "sqlite") return;
      // Every column that holds bytes is one the copy to PostgreSQL reads as hex (holdsHashBytes):
      // the statements that write bytes and that list are kept apart, so this is where they meet.
      const bytes: string[] = [];
      for (const table of ledgerTables)
        for (const c of ledgerColumns.get(table)!) {
          const n = (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM ${raw(`"${table}"`)} WHERE typeof(${raw(`"${c}"`)}) = 'blob'`))!.n;
          if (n > 0) bytes.push(`${table}.${c}`);
        }
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.filter((tc) => !holdsHashBytes(tc.split(".")[0]!, tc.split(".")[1]!))).toEqual([]);
    });
  }, 60_000);

  if (testEngine === "sqlite")
    test("written as text, as before: the same answers, hashes and seals, verify passes; what is booked after is bytes", async () => {
      const dir = tempDir("cal-hashbytes-");
      await loadCorrectedDemo(dir);
      const before = await demoAnswers(dir);
      await withLedger(dir, async ({ db }) => {
        // As the code of before wrote them, sealed (the append-only tables refuse any change).
        for (const table of ["journal", "transaction_changes"]) await dropTrigger(db, table, `${table}_no_update`);
        await db.write(async (tx) => {
          for (const [table, columns] of Object.entries(HASHES)) {
            await tx.run(...q`UPDATE ${raw(`"${table}"`)} SET ${raw(columns.map((c) => `"${c}" = lower(hex("${c}"))`).join(", "))}`);
          }
        });
        allIn(await forms(db), "text 64");
      });
      const after = await demoAnswers(dir);
      expect(after.answers).toEqual(before.answers);
      expect(after.hashes).toEqual(before.hashes);
      await withLedger(dir, async ({ db }) => {
        expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
        await appendCorrection(db, 7);
        const found = await forms(db);
        // The correction re-booked some actions and appended entries: those are bytes, the rest text.
        expect(found["journal.evidence_sha256"]!["blob 32"]).toBeGreaterThan(0);
        expect(found["journal.row_sha256"]!["blob 32"]).toBeGreaterThan(0);
        expect(found["actions.evidence_sha256"]!["blob 32"]).toBeGreaterThan(0);
        expect(found["journal.row_sha256"]!["text 64"]).toBeGreaterThan(0);
        expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
      });
    }, 120_000);
});
