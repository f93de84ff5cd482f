// The `gains` (Form 8949 columns) and `lots` exports (docs/lots.md#exports): worked example 11 as
// CSV, dates MM/DD/YYYY, short rows first, "VARIOUS" when one sale's lots have several dates, and
// the same figures as the JSON routes on random histories (agreement between views).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { deriveLots, LOT_METHODS, TAX_TREATMENTS } from "../../src/domain/lots";
import { formDate, GAINS_COLUMNS, gainsExportRows, LOTS_COLUMNS, lotsExportRows, VARIOUS } from "../../src/domain/lots/exports";
import { gainsBody, type InstrumentNames, lotsBody } from "../../src/domain/lots/present";
import { toCsv } from "../../src/http/csv";
import { parseCsv } from "../../src/sources/operator/csv";
import { buildHistory, historyArb, MINTS, movement, ms, usd, WALLETS } from "./lots-support";

const MINT = "SPYxMint";
const NAMES: InstrumentNames = new Map([
  [MINT, { symbol: "SPYx", isin: null, decimals: 8 }],
  [MINTS[0].mint, { symbol: "XXx", isin: null, decimals: MINTS[0].decimals }],
  [MINTS[1].mint, { symbol: null, isin: null, decimals: MINTS[1].decimals }],
]);
const E = 100_000_000n;
const DATASET = { kind: "mainnet" as const, description: null };

/** Worked example 11: Wallet1 buys 10 @ $10 and 10 @ $20, Wallet2 10 @ $30; Wallet1 sends 15 to Wallet2, which sells 12 for $360. */
function example11() {
  const m = (owner: string, at: string, signature: string, units: bigint, cost: string | null, counterpart: string | null = null) =>
    movement({ owner, mint: MINT, at: ms(at), signature, rawDelta: units * E, multiplier: 1, usd: cost === null ? null : usd(cost), counterpart, reason: counterpart ? "own_transfer" : null });
  return {
    movements: [
      m("Wallet1", "2025-01-10T00:00:00Z", "b1", 10n, "100"),
      m("Wallet1", "2025-03-10T00:00:00Z", "b2", 10n, "200"),
      m("Wallet2", "2025-02-01T00:00:00Z", "b3", 10n, "300"),
      m("Wallet1", "2025-04-01T00:00:00Z", "own", -15n, null, "Wallet2"),
      m("Wallet2", "2025-04-01T00:00:00Z", "own", 15n, null, "Wallet1"),
      m("Wallet2", "2026-02-15T00:00:00Z", "sale", -12n, "360"),
    ],
    actions: [],
  };
}

describe("gains: Form 8949's columns", () => {
  test("the header names the form's columns (a) to (h), then the term and the ledger's own columns", () => {
    expect(GAINS_COLUMNS.slice(0, 9)).toEqual([
      "(a) Description of property",
      "(b) Date acquired",
      "(c) Date sold or disposed of",
      "(d) Proceeds (sales price)",
      "(e) Cost or other basis",
      "(f) Code(s) from instructions",
      "(g) Amount of adjustment",
      "(h) Gain or (loss)",
      "term",
    ]);
    expect(formDate(ms("2026-02-15T23:59:59Z"))).toBe("02/15/2026");
  });

  test("worked example 11 under fifo and lifo: one row per lot, short first, dates MM/DD/YYYY, as CSV", () => {
    const report = (method: "fifo" | "lifo") => deriveLots(example11(), { method, treatment: "income" }).realized.filter((r) => r.owner === "Wallet2");
    const cells = (rows: (string | null)[][]) => rows.map((r) => r.slice(0, 9));
    expect(cells(gainsExportRows(report("fifo"), NAMES))).toEqual([
      ["10 SPYx", "01/10/2025", "02/15/2026", "300", "100", null, null, "200", "long"],
      ["2 SPYx", "02/01/2025", "02/15/2026", "60", "60", null, null, "0", "long"],
    ]);
    // lifo takes Wallet1's March lot first: short, so it comes first.
    expect(cells(gainsExportRows(report("lifo"), NAMES))).toEqual([
      ["10 SPYx", "03/10/2025", "02/15/2026", "300", "200", null, null, "100", "short"],
      ["2 SPYx", "02/01/2025", "02/15/2026", "60", "60", null, null, "0", "long"],
    ]);
    const csv = toCsv(
      ["dataset", ...GAINS_COLUMNS],
      gainsExportRows(report("fifo"), NAMES).map((r) => ["mainnet", ...r]),
    );
    const parsed = parseCsv(csv).map((r) => r.cells);
    expect(parsed[0]!.slice(1, 3)).toEqual(["(a) Description of property", "(b) Date acquired"]);
    expect(parsed[1]).toEqual(["mainnet", "10 SPYx", "01/10/2025", "02/15/2026", "300", "100", "", "", "200", "long", "Wallet2", "SPYx", MINT, "10", "sale", "", "own_transfer", ""]);
  });

  test("bySale: one sale's lots of one term in one row, VARIOUS when their dates differ, amounts summed exactly", () => {
    const input = example11();
    // Sell 25 instead: fifo takes 10 (01-10, long), 10 (02-01, long) and 5 (03-10, short).
    input.movements[5] = { ...input.movements[5]!, rawDelta: -25n * E, usd: usd("750") };
    const rows = deriveLots(input, { method: "fifo", treatment: "income" }).realized.filter((r) => r.owner === "Wallet2");
    expect(gainsExportRows(rows, NAMES, { bySale: true }).map((r) => r.slice(0, 9))).toEqual([
      ["5 SPYx", "03/10/2025", "02/15/2026", "150", "100", null, null, "50", "short"],
      ["20 SPYx", VARIOUS, "02/15/2026", "600", "400", null, null, "200", "long"],
    ]);
    // A part of unknown basis leaves the sale's basis and gain blank, its reason kept.
    const unknown = rows.map((r, i) => (i === 0 ? { ...r, basisUsd: null, gainUsd: null, reason: "basis: transfer" } : r));
    expect(
      gainsExportRows(unknown, NAMES, { bySale: true })[1]!
        .slice(3, 8)
        .concat(gainsExportRows(unknown, NAMES, { bySale: true })[1]!.slice(16)),
    ).toEqual(["600", null, null, null, null, "basis: transfer"]);
  });
});

describe("the exports show the JSON routes' figures", () => {
  test("gains rows carry each GainRow's units, dates, proceeds, basis, gain and term; lots rows each Lot's", () => {
    fc.assert(
      fc.property(historyArb(), fc.nat({ max: 7 }), fc.constantFrom(...WALLETS), (steps, combo, owner) => {
        const report = deriveLots(buildHistory(steps).input, { method: LOT_METHODS[combo % 4]!, treatment: TAX_TREATMENTS[combo % 2]! });
        const json = gainsBody(report, { year: 2025, owners: [owner], dataset: DATASET }, NAMES).rows;
        const csv = gainsExportRows(
          report.realized.filter((r) => r.owner === owner),
          NAMES,
        );
        const ordered = [...json.filter((r) => r.term === "short"), ...json.filter((r) => r.term === "long")];
        expect(csv.map((r) => [r[12], r[1], r[2], r[3], r[4], r[7], r[8]])).toEqual(
          ordered.map((r) => [r.units, r.acquiredAt === null ? null : formDate(Date.parse(r.acquiredAt)), formDate(Date.parse(r.disposedAt)), r.proceedsUsd, r.basisUsd, r.gainUsd, r.term]),
        );
        const lots = lotsBody(report, { owner, asOf: "2030-01-01", dataset: DATASET }, NAMES).lots;
        const rows = lotsExportRows(
          report.lots.filter((l) => l.owner === owner),
          NAMES,
        );
        expect(rows.map((r) => r.length)).toEqual(lots.map(() => LOTS_COLUMNS.length));
        expect(rows.map((r) => [r[3], r[4], r[5], r[7], r[11], r[14], r[15]])).toEqual(lots.map((l) => [l.acquiredAt, l.units, l.basisUsd, l.source, l.id, l.exact.units, l.exact.basisUsd]));
      }),
      { numRuns: 120 },
    );
  });
});
