// Rows placed in key order (src/ledger/sql/placement.ts, docs/storage.md#rows-placed-in-key-order),
// on a real SQLite file through the ledger's own statements: whatever the addresses (alike in their
// first characters, of any length, not base58 at all) and whatever order they come in, every row is
// written once and an upsert finds it again; rows written in address order sit in address order,
// even where addresses share a slot; a slot taken already sends the row to the first free rowid
// after it, never onto another row. SQLite's alone: PostgreSQL places nothing.
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { portfolioSql } from "../../src/ledger/tables/portfolios.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

const base58 = fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
// Addresses alike in their first 7 characters share a slot; short and odd ones must still place.
const alike = fc.tuple(fc.constantFrom("2A7NQF3", "HtdA6ei", "zzzzzzz"), fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{0,37}$/)).map(([a, b]) => a + b);
const owner = fc.oneof(base58, alike, fc.string({ maxLength: 8 }));

describe("rows placed in key order", () => {
  test("every wallet's row is written once and found again by its upsert; written in address order, rows sit in address order", async () => {
    const l = await openLedger(tempDir("cal-placement-"));
    try {
      const db = sqliteOf(l);
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(owner, { minLength: 1, maxLength: 40 }), fc.boolean(), async (owners, sorted) => {
          db.exec("DELETE FROM portfolios");
          const order = sorted ? [...owners].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))) : owners;
          await l.db.write(async (tx) => {
            for (const o of order) await tx.run(portfolioSql.upsert, { owner: o, body: "first", at: "t" });
            for (const o of order) await tx.run(portfolioSql.upsert, { owner: o, body: `again ${o}`, at: "t" });
          });
          const rows = db.query("SELECT owner, body FROM portfolios ORDER BY rowid").all() as { owner: string; body: string }[];
          expect(rows.length).toBe(owners.length);
          for (const r of rows) expect(r.body).toBe(`again ${r.owner}`);
          // Address order is byte order; an ASCII address's slot follows it (a non-ASCII one's need not).
          const ascii = (o: string) => /^[\x00-\x7f]*$/.test(o);
          if (sorted && owners.every(ascii)) expect(rows.map((r) => r.owner)).toEqual(order);
        }),
        { numRuns: 60 },
      );
    } finally {
      await l.close();
    }
  });

  test("a row whose slot is taken goes to the first free rowid after it", async () => {
    const l = await openLedger(tempDir("cal-placement-"));
    try {
      const db = sqliteOf(l);
      const owners = ["2A7NQF3a", "2A7NQF3b", "2A7NQF3c"];
      await l.db.write(async (tx) => {
        for (const o of owners) await tx.run(portfolioSql.upsert, { owner: o, body: "b", at: "t" });
      });
      const rowids = (db.query("SELECT CAST(rowid AS TEXT) AS r FROM portfolios ORDER BY rowid").all() as { r: string }[]).map((x) => BigInt(x.r));
      expect(rowids[1]! - rowids[0]!).toBe(1n);
      expect(rowids[2]! - rowids[1]!).toBe(1n);
      // The slot is the first 7 characters, 7 bits each, 2^13 apart.
      const key = [..."2A7NQF3"].reduce((k, c) => (k << 7n) | BigInt(c.charCodeAt(0)), 0n);
      expect(rowids[0]).toBe(key << 13n);
    } finally {
      await l.close();
    }
  });
});
