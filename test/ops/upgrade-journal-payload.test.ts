// A ledger whose journal entries store their whole booking in `payload` (every entry written
// before issue 18's storage work) needs no migration, on either engine: its entries are read,
// sealed and served exactly as before, verify passes, and the entries booked after it store each
// field once (src/ledger/journal-payload.ts, docs/storage.md#the-journal) and name their units
// where an amount repeats them (docs/storage.md#amounts-stored-once). So does one whose
// entries store each field once with every null kept (written before nulls were left out).
import { afterAll, describe, expect, test } from "bun:test";
import { canonicalJson } from "../../src/domain/evidence.ts";
import { bookingJson, bookingOf } from "../../src/ledger/journal-payload.ts";
import { journalSql, type StoredEntry } from "../../src/ledger/tables/journal.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { demoAnswers, loadCorrectedDemo } from "../support/demo-answers.ts";
import { dropTrigger } from "../support/engine.ts";
import { fieldsOncePayload } from "../support/journal-payload-before.ts";
import { q } from "../support/sql.ts";
import { appendCorrection, removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

type Entry = StoredEntry & { id: number };
/** Every entry, its amounts put back where they name its units (as the code of before stored them all). */
const entries = (db: Sql): Promise<Entry[]> => db.all(journalSql.all);
/** An entry rewritten as the code of before wrote it: this payload, each amount whole. */
const writtenBefore = (tx: Sql, r: Entry, payload: string) =>
  tx.run(...q`UPDATE journal SET payload = ${payload}, principal_units_delta = ${r.principal_units_delta}, income_units = ${r.income_units} WHERE id = ${r.id}`);
const whole = (e: Entry) => e.payload === bookingJson(e) && "owner" in JSON.parse(e.payload);

describe("a journal whose entries store their whole booking", () => {
  test("is read, sealed and served as before; verify passes; later entries store each field once", async () => {
    const dir = tempDir("cal-jp-");
    await loadCorrectedDemo(dir);
    const before = await demoAnswers(dir);
    // Each entry given its whole booking as payload, as the code of before wrote it.
    const count = await withLedger(dir, async ({ db }) => {
      const rows = await entries(db);
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.filter(whole)).toEqual([]); // this code stores each field once
      await dropTrigger(db, "journal", "journal_no_update"); // as the code of before wrote it, sealed
      await db.write(async (tx) => {
        for (const r of rows) await writtenBefore(tx, r, bookingJson(r));
      });
      expect((await entries(db)).every(whole)).toBe(true);
      return rows.length;
    });
    await expectAsBefore(dir, before, count, whole);
  }, 120_000);
});

describe("a journal whose entries store each field once with every null kept", () => {
  test("is read, sealed and served as before; verify passes, before and after more entries are booked", async () => {
    const dir = tempDir("cal-jp-");
    await loadCorrectedDemo(dir);
    const before = await demoAnswers(dir);
    const nullsKept = (e: Entry) => e.payload === fieldsOncePayload(bookingOf(e));
    const count = await withLedger(dir, async ({ db }) => {
      const rows = await entries(db);
      // This code leaves out the nulls of every entry (most of the demo's have some).
      expect(rows.filter((r) => !nullsKept(r)).length).toBeGreaterThan(10);
      await dropTrigger(db, "journal", "journal_no_update"); // as the code of before wrote it, sealed
      await db.write(async (tx) => {
        for (const r of rows) await writtenBefore(tx, r, fieldsOncePayload(bookingOf(r)));
      });
      const now = await entries(db);
      expect(now.every(nullsKept)).toBe(true);
      expect(now.every((r) => "grossUsd" in JSON.parse(r.payload))).toBe(true);
      return rows.length;
    });
    await expectAsBefore(dir, before, count, nullsKept);
  }, 120_000);
});

/**
 * The ledger, its first `count` entries written as the code of before wrote them (each `written`
 * so), serves and seals what it did; verify passes, before and after more entries are booked, and
 * the entries booked now are in this code's form.
 */
async function expectAsBefore(dir: string, before: Awaited<ReturnType<typeof demoAnswers>>, count: number, written: (e: Entry) => boolean): Promise<void> {
  const after = await demoAnswers(dir);
  expect(after.answers).toEqual(before.answers);
  expect(after.hashes).toEqual(before.hashes); // the seals among them
  await withLedger(dir, async ({ db }) => {
    expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
    await appendCorrection(db, 7);
    const rows = await entries(db);
    expect(rows.length).toBeGreaterThan(count);
    expect(rows.slice(0, count).every(written)).toBe(true);
    for (const r of rows.slice(count)) {
      expect(whole(r)).toBe(false);
      expect(bookingJson(r)).toBe(canonicalJson(JSON.parse(bookingJson(r))));
    }
    // The entries of before hold each amount whole; those booked now name the units instead where
    // an amount repeats them (tables/journal.ts), and read back as the same amounts.
    const named = (await db.all(...q<{ id: number }>`SELECT id FROM journal WHERE principal_units_delta = '' OR income_units = '' ORDER BY id`)).map((r) => r.id);
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((id) => id > rows[count - 1]!.id)).toBe(true);
    expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
  });
}
