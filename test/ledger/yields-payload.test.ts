// A wallet's yields row stores its windows compactly (src/ledger/yields-payload.ts,
// docs/storage.md#yields): for any records of a wallet, decoding the stored text gives the
// records back, each exact value's text as it was; a row of the form written before (the records
// as JSON.stringify wrote them) still reads, is served and verified as before; on the demo each
// row is under half of the records' JSON, names its owner nowhere, and verify catches a changed byte in it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { YieldRecord } from "../../src/domain/types.ts";
import { portfolioQueries } from "../../src/ledger/queries/portfolio.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { decodeYields, encodeYields, yieldsTextLike } from "../../src/ledger/yields-payload.ts";
import { demoDataDir, removeTempDirs, withLedger } from "../ops/helpers.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

const OWNER = "4roF4ueUjjis7miSXkd9meycwf76Tq5Q12kQH466zbDB";
const text = fc.string({ unit: "binary", maxLength: 12 });
const decimal = fc.oneof(text, fc.bigInt({ min: -(10n ** 60n), max: 10n ** 60n }).map(String), fc.stringMatching(/^-?[0-9]{1,20}\.[0-9]{1,60}$/));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const mints = fc.constantFrom("XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2", "Xsw2uU1i8tHjbgstUbtt3m6kg7BS7AgG5aj8z7ddmmN", "");
const record: fc.Arbitrary<YieldRecord> = fc.record({
  owner: fc.constant(OWNER),
  mint: mints,
  symbol: fc.oneof(fc.constantFrom("HONx", "KLACx", ""), text),
  window: fc.constantFrom("trailing_30d", "trailing_365d", "tracked"),
  from: fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    text,
  ),
  to: fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    text,
  ),
  status: fc.constantFrom("ok", "partial"),
  partialCode: maybe(fc.constantFrom("history_starts_after_window", "balance_gap", "unvalued_income")),
  incomeUsd: maybe(decimal),
  incomeUnits: maybe(decimal),
  averageQuantity: maybe(decimal),
  shareYield: maybe(decimal),
  annualisedShareYield: maybe(decimal),
  distributionPerShareUsd: maybe(decimal),
}) as fc.Arbitrary<YieldRecord>;
const records = fc.array(record, { maxLength: 12 });

describe("a wallet's yield records as its row stores them", () => {
  test("decoded from what the row stores: the records, in their order, each value's text as it was", () => {
    fc.assert(
      fc.property(records, (rs) => {
        const stored = encodeYields(rs);
        expect(decodeYields(OWNER, stored)).toEqual(rs);
        expect(yieldsTextLike(stored, rs)).toBe(stored);
        if (rs.length > 0) expect(stored).not.toContain(OWNER);
      }),
      { numRuns: 500 },
    );
  });

  test("a row of the form written before (the records as JSON) still reads, and verify compares it in its form", () => {
    fc.assert(
      fc.property(records, (rs) => {
        const before = JSON.stringify(rs);
        expect(decodeYields(OWNER, before)).toEqual(rs);
        expect(yieldsTextLike(before, rs)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  test("a text repeated among a row's windows (as every window's end is) is stored once, and read back in each place", () => {
    const shared = fc.record({ to: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), rs: fc.array(record, { minLength: 2, maxLength: 12 }) });
    fc.assert(
      fc.property(shared, ({ to, rs }) => {
        const same = rs.map((r) => ({ ...r, to }));
        const stored = encodeYields(same);
        expect(stored.split(JSON.stringify(to)).length - 1).toBe(1);
        expect(decodeYields(OWNER, stored)).toEqual(same);
        expect(yieldsTextLike(stored, same)).toBe(stored);
        expect(stored.length).toBeLessThan(encodeYields(same, false).length);
      }),
      { numRuns: 300 },
    );
  });

  test("a row written before repeats were stored once (every value written out) still reads, and verify compares it in its form", () => {
    fc.assert(
      fc.property(records, (rs) => {
        const before = encodeYields(rs, false);
        expect(decodeYields(OWNER, before)).toEqual(rs);
        expect(yieldsTextLike(before, rs)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  test("a text that is not what the records encode to is not taken for them", () => {
    const rs = fc.sample(fc.array(record, { minLength: 1, maxLength: 6 }), { numRuns: 50, seed: 18 });
    for (const r of rs) {
      expect(yieldsTextLike("not json", r)).toBe(encodeYields(r));
      expect(yieldsTextLike(encodeYields(r).replace("[[", "[[ "), r)).toBe(encodeYields(r));
    }
  });
});

describe("the demo's yields rows", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await demoDataDir();
  }, 120_000);

  const rows = (db: Parameters<Parameters<typeof withLedger>[1]>[0]["db"]) => db.all(...q<{ owner: string; payload: string }>`SELECT owner, payload FROM yields ORDER BY owner`);

  test("each is under half the records' JSON (under 700 bytes a mint) and names its owner nowhere; verify passes", async () => {
    await withLedger(dir, async ({ db }) => {
      const stored = await rows(db);
      expect(stored.length).toBeGreaterThan(1);
      for (const r of stored) {
        const records = decodeYields(r.owner, r.payload);
        // Three windows a mint: about 1,450 bytes as JSON, under 700 stored (a wallet of two mints, bench/scale's, under 2 KB).
        expect(r.payload.length).toBeLessThan(700 * new Set(records.map((y) => y.mint)).size);
        expect(r.payload.length).toBeLessThan(JSON.stringify(records).length / 2);
        // Every window ends at the booking time: written once, each repeat a number.
        if (records.length > 1) expect(r.payload.length).toBeLessThan(encodeYields(records, false).length);
        expect(r.payload).not.toContain(r.owner);
        expect(records.every((y) => y.owner === r.owner)).toBe(true);
      }
      expect(stored.some((r) => decodeYields(r.owner, r.payload).length > 0)).toBe(true);
      expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
    });
  });

  test("rows of the form written before serve the same yield and pass verify; a changed byte in either form fails it", async () => {
    await withLedger(dir, async ({ db }) => {
      const stored = await rows(db);
      const queries = portfolioQueries(db);
      const served = new Map<string, unknown>();
      for (const r of stored) served.set(r.owner, await queries.yield(r.owner));
      await db.write(async (tx) => {
        for (const r of stored) await tx.run(...q`UPDATE yields SET payload = ${JSON.stringify(decodeYields(r.owner, r.payload))} WHERE owner = ${r.owner}`);
      });
      for (const r of stored) {
        expect((await rows(db)).find((s) => s.owner === r.owner)!.payload).toContain(r.owner);
        expect(await queries.yield(r.owner)).toEqual(served.get(r.owner) as never);
      }
      expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
      // And the form with every value written out (before repeats were stored once).
      await db.write(async (tx) => {
        for (const r of stored) await tx.run(...q`UPDATE yields SET payload = ${encodeYields(decodeYields(r.owner, r.payload), false)} WHERE owner = ${r.owner}`);
      });
      for (const r of stored) expect(await queries.yield(r.owner)).toEqual(served.get(r.owner) as never);
      expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);

      // One exact value given one more digit, in a row of the form of before and in one of this form.
      const held = stored.find((r) => decodeYields(r.owner, r.payload).some((y) => y.averageQuantity !== null))!;
      const value = decodeYields(held.owner, held.payload).find((y) => y.averageQuantity !== null)!.averageQuantity!;
      const changed = (payload: string) => payload.replace(JSON.stringify(value), JSON.stringify(`${value}1`));
      for (const payload of [JSON.stringify(decodeYields(held.owner, held.payload)), held.payload]) {
        expect(changed(payload)).not.toBe(payload);
        await db.write((tx) => tx.run(...q`UPDATE yields SET payload = ${changed(payload)} WHERE owner = ${held.owner}`));
        const failed = (await verifyLedger(db)).checks.filter((c) => !c.ok);
        expect(failed.map((c) => c.name)).toContain("derived tables match the engine");
        await db.write((tx) => tx.run(...q`UPDATE yields SET payload = ${payload} WHERE owner = ${held.owner}`));
      }
      expect((await verifyLedger(db)).checks.filter((c) => !c.ok)).toEqual([]);
    });
  }, 120_000);
});
