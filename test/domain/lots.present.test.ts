// The bodies of /v2/lots, /v2/reports/gains and /v2/reports/holdings (docs/lots.md#the-three-routes),
// shaped from lot reports of random tenant histories: each validates against its schema, each
// shown figure is its exact value rounded once by the display rule, the gains totals are the sums
// of the rows' exact values, and the holdings reconciliation adds up exactly as stated.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FormatRegistry, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import * as S from "../../schemas/index.ts";
import { quantityForPeople, uiAmount, usdForPeople } from "../../src/domain/display";
import type { Conversion } from "../../src/domain/income-report";
import { deriveLots, LOT_METHODS, type LotReport, TAX_TREATMENTS } from "../../src/domain/lots";
import { gainsBody, gainsRateDays, holdingsBody, type InstrumentNames, lotsBody, walletUnitsText } from "../../src/domain/lots/present";
import { add, eq, formatDecimal, liftF64, parseDecimal, rat, type Rat, sub, sum } from "../../src/domain/numbers";
import { parseEcbHistory, usdRate } from "../../src/domain/reference-rates";
import { action, buildHistory, DAY, historyArb, MINTS, movement, ms, usd, WALLETS } from "./lots-support";

// ISO-8601 UTC as the server's JSON schema validator reads it (TypeBox leaves formats to the caller).
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => ISO_UTC.test(v) && !Number.isNaN(Date.parse(v)));
const DATASET = { kind: "mainnet" as const, description: null };
const NAMES: InstrumentNames = new Map([
  [MINTS[0].mint, { symbol: "XXx", isin: "US0000000001", decimals: MINTS[0].decimals }],
  [MINTS[1].mint, { symbol: null, isin: null, decimals: MINTS[1].decimals }],
]);
const d = (s: string): Rat => parseDecimal(s);
const total = (xs: (string | null)[]): Rat => sum(xs.filter((x): x is string => x !== null).map(d));

/** USD → EUR from an ECB history (rates that end, so sums of converted rows are exact); some early days have none. */
function eurFrom(text: string): Conversion {
  const days = parseEcbHistory(text, "2030-01-01").days.sort((a, b) => (a.date < b.date ? -1 : 1));
  return {
    currency: "EUR",
    quoteOn(day) {
      const found = days.filter((x) => x.date <= day).pop();
      if (!found) return null;
      const usdPerEur = found.perEur.get("USD")!;
      return { rateDate: found.date, usdPerEur, perEur: "1", rate: usdRate(d(usdPerEur), rat(1)) };
    },
  };
}
const EUR = eurFrom("Date,USD,\n2024-06-03,1.25,\n2025-01-02,1.6,\n2025-07-01,1.024,\n");

const windowArb = fc.record({ fromDays: fc.option(fc.nat({ max: 900 }), { nil: undefined }), lengthDays: fc.option(fc.nat({ max: 900 }), { nil: undefined }) });
const T0 = ms("2024-01-01T00:00:00Z");

function reportOf(steps: Parameters<typeof buildHistory>[0], w: { fromDays?: number; lengthDays?: number }, combo: number): LotReport {
  const h = buildHistory(steps);
  const from = w.fromDays === undefined ? undefined : T0 + w.fromDays * DAY;
  const asOf = w.lengthDays === undefined ? undefined : (from ?? T0) + w.lengthDays * DAY;
  return deriveLots(h.input, { method: LOT_METHODS[combo % 4]!, treatment: TAX_TREATMENTS[combo % 2]!, from, asOf });
}

describe("every body validates against its schema, on random reports", () => {
  test("lots, gains (with and without a currency, all wallets or some) and holdings", () => {
    fc.assert(
      fc.property(historyArb(), windowArb, fc.nat({ max: 7 }), fc.subarray([...WALLETS], { minLength: 1 }), (steps, w, combo, owners) => {
        const report = reportOf(steps, w, combo);
        for (const owner of WALLETS) {
          const body = lotsBody(report, { owner, asOf: "2026-01-01", dataset: DATASET }, NAMES);
          expect([...Value.Errors(S.LotsResponse, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
        }
        for (const conversion of [null, EUR]) {
          const body = gainsBody(report, { year: 2025, owners, dataset: DATASET, conversion }, NAMES);
          expect([...Value.Errors(S.GainsReport, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
        }
        const statement = holdingsBody(report, { asOf: "2026-01-01", from: "2025-01-01", owners, dataset: DATASET }, NAMES);
        expect([...Value.Errors(S.HoldingsStatement, statement)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test("the bodies' types are the schemas' (checked by tsc)", () => {
    const report = deriveLots({ movements: [], actions: [] }, { method: "fifo", treatment: "income" });
    const lots: Static<typeof S.LotsResponse> = lotsBody(report, { owner: "W", asOf: "2026-01-01", dataset: DATASET }, NAMES);
    const gains: Static<typeof S.GainsReport> = gainsBody(report, { year: 2026, owners: ["W"], dataset: DATASET, conversion: EUR }, NAMES);
    const holdings: Static<typeof S.HoldingsStatement> = holdingsBody(report, { asOf: "2026-01-01", from: "2026-01-01", owners: ["W"], dataset: DATASET }, NAMES);
    expect([lots.lots, gains.rows, holdings.wallets[0]!.instruments]).toEqual([[], [], []]);
  });

  test("the schemas name the engine's treatments, methods and lot sources", () => {
    expect([...S.taxTreatments]).toEqual([...TAX_TREATMENTS]);
    expect([...S.lotMethods]).toEqual([...LOT_METHODS]);
    expect(Value.Check(S.LotsQuery, { owner: WALLETS[0], method: "hifo", treatment: "deferred", asOf: "2026-01-31" })).toBe(true);
    expect(Value.Check(S.LotsQuery, { owner: WALLETS[0], method: "lofo" })).toBe(false);
    expect(Value.Check(S.GainsReportQuery, { year: 2025, owner: [WALLETS[0]], currency: "EUR" })).toBe(true);
    expect(Value.Check(S.HoldingsQuery, { from: "2025-01-01" })).toBe(false);
  });
});

describe("gains: the totals are the rows' exact values summed, each figure rounded once", () => {
  test("per term, Σ rows' exact proceeds, basis and gains = the totals' exact values; counts agree; shown = rounded exact", () => {
    fc.assert(
      fc.property(historyArb(), windowArb, fc.nat({ max: 7 }), fc.subarray([...WALLETS], { minLength: 1 }), (steps, w, combo, owners) => {
        const body = gainsBody(reportOf(steps, w, combo), { year: 2025, owners, dataset: DATASET, conversion: EUR }, NAMES);
        for (const term of ["short", "long"] as const) {
          const rows = body.rows.filter((r) => r.term === term);
          const t = body.totals[term];
          expect([t.rows, t.unknownRows]).toEqual([rows.length, rows.filter((r) => r.gainUsd === null).length]);
          for (const [column, shown] of [
            ["proceedsUsd", t.proceedsUsd],
            ["basisUsd", t.basisUsd],
            ["gainUsd", t.gainUsd],
          ] as const) {
            const exactSum = total(rows.map((r) => r.exact[column]));
            expect(eq(d(t.exact[column]), exactSum)).toBe(true);
            expect(shown).toBe(usdForPeople(exactSum));
          }
          // In the currency too, where every row with a known USD value has its rates.
          const c = t.converted!;
          for (const column of ["proceeds", "basis", "gain"] as const) {
            if (c.exact[column] !== null) expect(eq(d(c.exact[column]!), total(rows.map((r) => r.converted!.exact[column])))).toBe(true);
          }
        }
        for (const r of body.rows) {
          expect([r.proceedsUsd, r.basisUsd, r.gainUsd]).toEqual([r.exact.proceedsUsd, r.exact.basisUsd, r.exact.gainUsd].map((x) => (x === null ? null : usdForPeople(d(x)))));
          if (r.exact.gainUsd !== null) expect(eq(d(r.exact.gainUsd), sub(d(r.exact.proceedsUsd!), d(r.exact.basisUsd!)))).toBe(true);
          // A null value always says why.
          expect(r.reason === null).toBe(r.proceedsUsd !== null && r.basisUsd !== null);
          expect((owners as string[]).includes(r.owner)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("holdings: the reconciliation adds up exactly as stated", () => {
  test("opening + acquired − disposed + own transfers + corporate-action units = closing, on the exact values; basis likewise", () => {
    fc.assert(
      fc.property(historyArb(), windowArb, fc.nat({ max: 7 }), (steps, w, combo) => {
        const body = holdingsBody(reportOf(steps, w, combo), { asOf: "2026-01-01", from: "2025-01-01", owners: [...WALLETS], dataset: DATASET }, NAMES);
        expect(body.wallets.map((x) => x.owner)).toEqual([...WALLETS]);
        for (const i of body.wallets.flatMap((x) => x.instruments)) {
          const u = i.exact.reconciliation;
          const closing = add(sub(add(d(u.openingUnits), d(u.acquiredUnits)), d(u.disposedUnits)), add(d(u.ownTransferUnits), d(u.corporateActionUnits)));
          expect(formatDecimal(closing, 40)).toBe(formatDecimal(d(u.closingUnits), 40));
          expect(u.closingUnits).toBe(i.exact.units);
          const b = i.exact.basis;
          const closingUsd = add(sub(add(add(d(b.openingUsd), d(b.acquiredUsd)), d(b.incomeUsd)), d(b.disposedUsd)), d(b.ownTransferUsd));
          expect(eq(closingUsd, d(b.closingUsd))).toBe(true);
          // A history the random builder keeps consistent has nothing uncovered.
          expect(u.uncoveredUnits).toBe("0");
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("holdings of an incomplete history", () => {
  test("units that left beyond what the history held are shown apart, so the stated identity still holds", () => {
    const mint = MINTS[0].mint;
    const input = {
      movements: [
        movement({ owner: "W", mint, at: ms("2025-02-01T00:00:00Z"), signature: "in", rawDelta: 100_000_000n, multiplier: 1, usd: usd("10") }),
        movement({ owner: "W", mint, at: ms("2025-03-01T00:00:00Z"), signature: "out", rawDelta: -300_000_000n, multiplier: 1, usd: usd("45") }),
      ],
      actions: [],
    };
    const report = deriveLots(input, { method: "fifo", treatment: "income", from: ms("2025-01-01T00:00:00Z"), asOf: ms("2025-12-31T23:59:59.999Z") });
    const [i] = holdingsBody(report, { asOf: "2025-12-31", from: "2025-01-01", owners: ["W"], dataset: DATASET }, NAMES).wallets[0]!.instruments;
    expect(i!.reconciliation).toEqual({ openingUnits: "0", acquiredUnits: "1", disposedUnits: "1", ownTransferUnits: "0", corporateActionUnits: "0", closingUnits: "0", uncoveredUnits: "2" });
    expect(report.problems.map((p) => p.code)).toEqual(["no_open_lot"]);
  });
});

describe("figures for people", () => {
  test("a wallet's units are shown as the Token-2022 program shows them (truncated), a lot's half-even", () => {
    // raw 1 at M = 1.5 with 2 decimals: 0.015 units; the program shows 0.01, half-even would say 0.02.
    expect(walletUnitsText(rat(15, 1000), liftF64(1.5), 2)).toBe(uiAmount(1n, 1.5, 2));
    expect(walletUnitsText(rat(15, 1000), liftF64(1.5), 2)).toBe("0.01");
    expect(quantityForPeople(rat(15, 1000), 2)).toBe("0.02");
    // Units that are no whole raw amount (an incomplete history) are rounded half-even.
    expect(walletUnitsText(rat(1, 3), liftF64(1), 2)).toBe("0.33");
  });

  test("worked example 1 (SPYx dividend, income treatment): the lots, then the sale's two rows and their total", () => {
    const spyx = "SPYxMint";
    const names: InstrumentNames = new Map([[spyx, { symbol: "SPYx", isin: "XS2771643016", decimals: 8 }]]);
    const base = { owner: "Wallet1", mint: spyx };
    const input = {
      movements: [
        movement({ ...base, at: ms("2026-05-10T12:00:00Z"), signature: "buy", rawDelta: 1_000_000_000n, multiplier: 1.003909240011759, usd: usd("7400") }),
        movement({ ...base, at: ms("2026-07-01T15:00:00Z"), signature: "sell", rawDelta: -1_000_000_000n, multiplier: 1.005714560286254, usd: usd("7560") }),
      ],
      actions: [
        action({
          ...base,
          actionId: "div",
          at: ms("2026-06-18T04:00:00Z"),
          type: "cash_dividend",
          raw: 1_000_000_000n,
          mOld: 1.003909240011759,
          mNew: 1.005714560286254,
          cashPerShare: usd("1.3324612"),
        }),
      ],
    };
    const before = deriveLots(input, { method: "fifo", treatment: "income", asOf: ms("2026-06-30T23:59:59.999Z") });
    const lots = lotsBody(before, { owner: "Wallet1", asOf: "2026-06-30", dataset: DATASET }, names);
    expect(lots.lots.map((l) => [l.symbol, l.acquiredAt, l.units, l.basisUsd, l.source])).toEqual([
      ["SPYx", "2026-05-10T12:00:00.000Z", "10.0390924", "7400", "purchase"],
      ["SPYx", "2026-06-18T04:00:00.000Z", "0.0180532", "13.376701", "income"],
    ]);
    expect(lots.instruments.map((i) => [i.units, i.basisUsd, i.unknownBasisUnits])).toEqual([[uiAmount(1_000_000_000n, 1.005714560286254, 8), "7413.376701", "0"]]);
    const year = deriveLots(input, { method: "fifo", treatment: "income", from: ms("2026-01-01T00:00:00Z"), asOf: ms("2026-12-31T23:59:59.999Z") });
    const gains = gainsBody(year, { year: 2026, owners: ["Wallet1"], dataset: DATASET }, names);
    expect(gains.rows.map((r) => [r.units, r.proceedsUsd, r.basisUsd, r.gainUsd, r.term])).toEqual([
      ["10.0390924", "7546.429329", "7400", "146.429329", "short"],
      ["0.0180532", "13.570671", "13.376701", "0.19397", "short"],
    ]);
    expect([gains.totals.short.proceedsUsd, gains.totals.short.gainUsd, gains.totals.short.exact.gainUsd]).toEqual([
      "7560",
      "146.623299",
      "146.623298893628434898712242784313275478780269622802734375",
    ]);
    expect(gains.totals.long).toMatchObject({ rows: 0, proceedsUsd: "0", gainUsd: "0" });
    expect(gainsRateDays(year, ["Wallet1"])).toEqual(["2026-05-10", "2026-06-18", "2026-07-01"]);
  });

  test("in a currency: the basis at the acquisition day's rate, the proceeds at the disposal's; a day without a rate is null with a reason", () => {
    const mint = MINTS[0].mint;
    const input = {
      movements: [
        movement({ owner: "W", mint, at: ms("2024-01-10T00:00:00Z"), signature: "b0", rawDelta: 100_000_000n, multiplier: 1, usd: usd("50") }),
        movement({ owner: "W", mint, at: ms("2025-01-05T00:00:00Z"), signature: "b1", rawDelta: 100_000_000n, multiplier: 1, usd: usd("100") }),
        movement({ owner: "W", mint, at: ms("2025-08-01T00:00:00Z"), signature: "s1", rawDelta: -200_000_000n, multiplier: 1, usd: usd("256") }),
      ],
      actions: [],
    };
    const body = gainsBody(deriveLots(input, { method: "fifo", treatment: "income" }), { year: 2025, owners: ["W"], dataset: DATASET, conversion: EUR }, NAMES);
    const [early, later] = body.rows.map((r) => r.converted!);
    // 1 USD = 1/1.6 EUR on 2025-01-02 (for 01-05) and 1/1.024 EUR from 2025-07-01 (for 08-01).
    expect([later!.proceeds, later!.basis, later!.gain]).toEqual(["125", "62.5", "62.5"]);
    expect(later!.rates.basis).toEqual({ eventDate: "2025-01-05", rateDate: "2025-01-02", usdPerEur: "1.6", perEur: "1", rate: "0.625" });
    // Bought 2024-01-10, before the first rate (2024-06-03): the basis in EUR is unknown, never 0.
    expect([early!.proceeds, early!.basis, early!.gain]).toEqual(["125", null, null]);
    expect(early!.reason).toBe("No EUR reference rate on or before 2024-01-10; import the ECB history with `ca-ledger rates import <eurofxref-hist.csv>`.");
    // The long row's basis has no rate: that term's converted basis and gain are unknown, with the reason; the short term's are whole.
    expect(body.totals.long.converted).toMatchObject({ proceeds: "125", basis: null, gain: null });
    expect(body.totals.long.converted!.reason).toContain("the first on 2024-01-10");
    expect(body.totals.short.converted).toMatchObject({ proceeds: "125", basis: "62.5", gain: "62.5", reason: null });
  });
});
