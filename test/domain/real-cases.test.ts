// Every row of docs/real-cases.md, run through the whole engine. Inputs: the recorded issuer
// records and multiplier histories in test/fixtures/recorded; the chain updates are SYNTHESIZED
// from the recorded activations and f64 multipliers (see helpers.ts), and the wallet holds a
// chosen raw balance R = 1,000,000,000 (10 tokens at 8 decimals) from 2025-06-01.
// Expected values are derived by hand below: U0 = 10 × M_old (exact f64 expansion), usd = U0 × net.
import { describe, expect, test } from "bun:test";
import { runEngine } from "../../src/domain/engine";
import type { ActionRecord, EngineOutput } from "../../src/domain/types";
import { usdTextForPeople } from "../../src/domain/display";
import { decMul, decSub, decUsd6, f64Exact, scenario, unix } from "./helpers";

const R = 1_000_000_000n;
const cache = new Map<string, EngineOutput>();
function run(sym: string): EngineOutput {
  if (!cache.has(sym)) cache.set(sym, runEngine(scenario([sym], R)));
  return cache.get(sym)!;
}
function action(sym: string, activation: string): ActionRecord {
  const a = run(sym).actions.find((x) => x.effectiveAt === activation);
  if (!a) throw new Error(`no ${sym} action at ${activation}`);
  return a;
}
const U0 = (mOld: number): string => decMul("10", f64Exact(mOld));

describe("dividends and cash", () => {
  test("SPYx 2026-06-18: cash_dividend, usd = U0 × 1.3324612 (implied ≈ $741)", () => {
    const a = action("SPYx", "2026-06-18T04:00:00.000Z");
    expect(a.type).toBe("cash_dividend");
    expect(a.treatment).toBe("income");
    expect(a.unitsBefore).toBe(U0(1.003909240011759));
    expect(a.usd).toBe(decMul(U0(1.003909240011759), "1.3324612"));
    expect(a.usd!.startsWith("13.3767011")).toBe(true);
    expect(a.incomeUnits).toBe(decSub(U0(1.005714560286254), U0(1.003909240011759)));
    expect(a.warnings).toEqual([]);
    expect(a.matched?.eventId.startsWith("aeb368f9")).toBe(true);
    // implied reinvestment price M_old·net/(M_new−M_old) ≈ 741
    const p = (1.003909240011759 * 1.3324612) / (1.005714560286254 - 1.003909240011759);
    expect(Math.round(p)).toBe(741);
    expect(a.v1.kind).toBe("dividend");
  });

  test("SPYx 2026-05-01: longer issuer M_old string still matches; no net, no WHT -> usd null + warning", () => {
    const a = action("SPYx", "2026-05-01T00:15:00.000Z");
    expect(a.matched?.eventId.startsWith("83999b87")).toBe(true);
    expect(a.matched?.version).toBe(2);
    expect(a.revisions.some((r) => r.record.multiplierOld === "1.002560758222989779")).toBe(true);
    expect(a.type).toBe("cash_dividend");
    expect(a.usd).toBeNull();
    expect(a.warnings).toContain("issuer net cash missing and no withholding rate: USD unknown");
  });

  test("HONx 2026-05-15: issuer M_old one ulp off still matches; net 0.833", () => {
    const a = action("HONx", "2026-05-15T00:30:00.000Z");
    expect(a.matched?.eventId.startsWith("a1d6c16c")).toBe(true);
    expect(a.type).toBe("cash_dividend");
    expect(a.usd).toBe(decMul(U0(1.020191445467247), "0.833"));
  });

  test("KLACx: both dividends valued; implied $1,804 and $204 agree across the 1→10 split", () => {
    const a = action("KLACx", "2026-05-17T02:30:00.000Z");
    const b = action("KLACx", "2026-08-15T00:30:00.000Z");
    expect(a.usd).toBe(decMul(U0(1), "1.61"));
    expect(a.usd).toBe("16.1");
    expect(b.usd).toBe(decMul(U0(10.00892302917), "0.161"));
    expect([...a.warnings, ...b.warnings]).not.toContain("implausible issuer cash");
    expect(Math.round((1 * 1.61) / (1.000892302917 - 1))).toBe(1804);
    expect(Math.round((10.00892302917 * 0.161) / (10.01683308516363 - 10.00892302917))).toBe(204);
  });

  test("STRCx 2025-11-30: implied ≈ $953,728 a share -> usd null, 'implausible issuer cash'", () => {
    const a = action("STRCx", "2025-11-30T23:55:00.000Z");
    expect(a.type).toBe("cash_dividend");
    expect(a.usd).toBeNull();
    expect(a.warnings).toContain("implausible issuer cash");
    expect(Math.round((1 * 0.62708331) / (1.000000657507339 - 1) / 1000)).toBe(954);
  });

  test("STRCx 2026-04-01 and 2026-05-15: unknown, unclassified_adjustment, no issuer record", () => {
    const a = action("STRCx", "2026-04-01T00:30:00.000Z");
    const b = action("STRCx", "2026-05-15T00:30:00.000Z");
    expect(a.chain.multiplierOld).toBe(f64Exact(1.0196722741780835));
    expect(b.chain.multiplierNew).toBe(f64Exact(1.0412940114352347));
    for (const x of [a, b]) {
      expect(x.type).toBe("unknown");
      expect(x.treatment).toBe("not_booked");
      expect(x.usd).toBeNull();
      expect(x.matched).toBeNull();
      expect(x.v1.kind).toBe("unclassified_adjustment");
      expect(x.v1.classificationResult).toBe("unclassified");
      expect(x.reason.startsWith("no issuer record")).toBe(true);
      expect(x.v1.reasons).toEqual([x.reason]);
    }
    expect(a.reason).toBe("no issuer record");
  });

  test("STRCx 2026-08-30: matched to v8 only; all 8 revisions in the detail; usd null", () => {
    const a = action("STRCx", "2026-08-30T23:55:00.000Z");
    expect(a.matched?.eventId.startsWith("c5721924")).toBe(true);
    expect(a.matched?.version).toBe(8);
    expect(a.revisions.map((r) => r.version).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const standing = Object.fromEntries(a.revisions.map((r) => [r.version, r.standing]));
    expect(standing[2]).toBe("cancelled");
    expect(standing[4]).toBe("cancelled");
    expect(standing[6]).toBe("cancelled");
    expect(standing[8]).toBe("standing");
    expect(a.usd).toBeNull();
    expect(a.warnings.length).toBeGreaterThan(0);
  });

  test("NVOx 2025-08-26 / 09-05: cash_dividend then withholding_adjustment; net parts add to gross; v1 both dividend", () => {
    const a = action("NVOx", "2025-08-26T23:55:00.000Z");
    const b = action("NVOx", "2025-09-05T23:55:00.000Z");
    expect(a.type).toBe("cash_dividend");
    expect(a.usd).toBe(decMul(U0(1), "0.2883412"));
    expect(b.type).toBe("withholding_adjustment");
    expect(b.treatment).toBe("income");
    expect(b.refundNote).toContain("passes back tax withheld");
    expect(b.usd).toBe(decMul(U0(1.003841218823), "0.1232128"));
    expect(b.matched?.version).toBe(2);
    expect(a.matched?.eventId).toBe(b.matched?.eventId as string);
    expect(decSub("0.411554", "0.2883412")).toBe("0.1232128");
    expect(a.v1.kind).toBe("dividend");
    expect(b.v1.kind).toBe("dividend");
    expect(b.v1.reasons.some((r) => r.includes("passes back tax withheld earlier"))).toBe(true);
    // The refund stands beside the original: the original is not corrected by it.
    expect(a.lifecycle.state).toBe("activated");
  });

  test("NVOx 2026-03-28: gross only -> usd null with a warning", () => {
    const a = action("NVOx", "2026-03-28T23:55:00.000Z");
    expect(a.type).toBe("cash_dividend");
    expect(a.usd).toBeNull();
    expect(a.warnings).toContain("issuer net cash missing and no withholding rate: USD unknown");
  });

  test("AZNx 2026-08-07: matched to v6 only; lifecycle shows cancelled and corrected revisions", () => {
    const a = action("AZNx", "2026-08-07T00:30:00.000Z");
    expect(a.matched?.eventId.startsWith("b32055bf")).toBe(true);
    expect(a.matched?.version).toBe(6);
    expect(a.usd).toBe(decMul(U0(0.5077944626216563), "1.06"));
    const standing = Object.fromEntries(a.revisions.map((r) => [r.version, r.standing]));
    expect(standing[2]).toBe("cancelled");
    expect(standing[4]).toBe("cancelled");
    expect(standing[3]).toBe("cancellation");
    const reversed = a.lifecycle.steps.filter((s) => s.state === "reversed").map((s) => s.supersedes?.version);
    expect(reversed).toEqual([2, 4]);
    expect(a.lifecycle.steps.some((s) => s.state === "corrected" && s.revision?.version === 6)).toBe(true);
    expect(a.lifecycle.steps.some((s) => s.state === "activated")).toBe(true);
  });
});

describe("income breakdown: gross, withholding tax, retention, net, to a millionth of a dollar", () => {
  /** Expected [gross, withholding, retained, net] a share (null = unknown), and the rates. */
  const cases: [string, string, number, (string | null)[], string | null][] = [
    ["SPYx", "2026-06-18T04:00:00.000Z", 1.003909240011759, ["1.903516", "0.5710548", "0", "1.3324612"], "0.3"],
    ["SPYx", "2026-05-01T00:15:00.000Z", 1.0025607582229898, ["1.796999", null, null, null], null],
    ["HONx", "2026-05-15T00:30:00.000Z", 1.020191445467247, ["1.19", "0.357", "0", "0.833"], "0.3"],
    ["KLACx", "2026-05-17T02:30:00.000Z", 1, ["2.3", "0.69", "0", "1.61"], "0.3"],
    ["KLACx", "2026-08-15T00:30:00.000Z", 10.00892302917, ["0.23", "0.069", "0", "0.161"], "0.3"],
    ["STRCx", "2025-11-30T23:55:00.000Z", 1, [null, null, null, null], "0.3"],
    ["STRCx", "2026-08-30T23:55:00.000Z", 1.0753686544887686, ["0.5", null, null, null], null],
    ["NVOx", "2025-08-26T23:55:00.000Z", 1, ["0.411554", "0.1232128", "0", "0.2883412"], "0.3"],
    ["NVOx", "2025-09-05T23:55:00.000Z", 1.003841218823, ["0", "-0.1232128", "0", "0.1232128"], "0"],
    ["NVOx", "2026-03-28T23:55:00.000Z", 1.0051095254039053, ["0.915824", null, null, null], null],
    ["AZNx", "2026-08-07T00:30:00.000Z", 0.5077944626216563, ["1.06", "0", "0", "1.06"], "0"],
  ];
  test.each(cases)("%s %s", (sym, at, mOld, perShare, rate) => {
    const a = action(sym, at);
    const [gross, withholding, retained, net] = perShare.map((x) => (x === null ? null : decMul(U0(mOld), x)));
    expect([a.grossUsd, a.withholdingTaxUsd, a.retainedUsd, a.usd]).toEqual([gross!, withholding!, retained!, net!]);
    expect([a.withholdingTaxRate, a.retentionRate]).toEqual([rate, null]);
    // What a person reads: half-even at 6 places, derived here independently.
    for (const [exact, shown] of [
      [a.grossUsd, gross],
      [a.withholdingTaxUsd, withholding],
      [a.retainedUsd, retained],
      [a.usd, net],
    ]) {
      expect(usdTextForPeople(exact ?? null)).toBe(shown === null ? null : decUsd6(shown!));
    }
    if (gross != null && net != null) expect(decSub(decSub(gross, withholding!), retained!)).toBe(net);
  });

  test("SPYx 2026-06-18 reads $13.376701 net, $19.109573 gross, $5.732872 tax withheld (they add up)", () => {
    const a = action("SPYx", "2026-06-18T04:00:00.000Z");
    expect([a.usd, a.grossUsd, a.withholdingTaxUsd].map(usdTextForPeople)).toEqual(["13.376701", "19.109573", "5.732872"]);
  });

  test("a superseded schedule shows no USD: nothing took force; the schedule that replaced it is booked", () => {
    const input = scenario(["SPYx"], R);
    // The 2026-06-18 04:00 schedule is overwritten 5 minutes before it would take force by the
    // same multiplier one minute later: the first schedule is superseded, the second activates.
    const first = input.multiplierUpdates.find((u) => u.effectiveTimestamp === unix("2026-06-18T04:00:00Z"))!;
    input.multiplierUpdates.push({ ...first, signature: "overwrite", slot: first.slot + 1, blockTime: first.effectiveTimestamp - 300, effectiveTimestamp: first.effectiveTimestamp + 60 });
    const out = runEngine(input);
    const superseded = out.actions.find((a) => a.lifecycle.state === "superseded")!;
    expect(superseded.matched?.eventId.startsWith("aeb368f9")).toBe(true);
    expect([superseded.usd, superseded.grossUsd, superseded.withholdingTaxUsd, superseded.retainedUsd, superseded.proceedsUsd]).toEqual([null, null, null, null, null]);
    expect(out.bookings.some((b) => b.actionId === superseded.id)).toBe(false);
    const booked = out.actions.find((a) => a.effectiveAt === "2026-06-18T04:01:00.000Z")!;
    expect(booked.lifecycle.state).toBe("activated");
    expect(booked.usd).toBe(decMul(U0(1.003909240011759), "1.3324612"));
  });
});

describe("quantity and basis changes", () => {
  test("KLACx 2026-06-12: forward_split, splitFactor 10 (f64 ratio 10 + 4.4e-16 reconciles)", () => {
    const a = action("KLACx", "2026-06-12T13:30:00.000Z");
    expect(a.type).toBe("forward_split");
    expect(a.treatment).toBe("quantity_basis");
    expect(a.factor).toBe("10");
    expect(a.splitFactor).toBe("10");
    expect(a.v1.kind).toBe("split");
    expect(a.v1.splitFactor).toBe("10");
    // The exact f64 ratio is not 10: M_new ≠ 10 × M_old exactly, yet the issuer's 1→10 reconciles.
    expect(f64Exact(10.00892302917)).not.toBe(decMul("10", f64Exact(1.000892302917)));
    expect(a.usd).toBeNull();
    expect(a.incomeUnits).toBe("0");
  });

  test("HONx 2026-06-29 15:30: reverse_split, factor exactly 1/2", () => {
    const a = action("HONx", "2026-06-29T15:30:00.000Z");
    expect(a.type).toBe("reverse_split");
    expect(a.factor).toBe("0.5");
    expect(a.splitFactor).toBe("0.5");
    expect(a.v1.kind).toBe("split");
  });

  test("HONx 2025-10-30: spin_off (history reason says Dividend), distributedFraction ≈ 0.0109, no proceeds, never income", () => {
    const a = action("HONx", "2025-10-30T23:55:00.000Z");
    expect(a.type).toBe("spin_off");
    expect(a.treatment).toBe("basis_allocation");
    expect(a.distributedFraction!.startsWith("0.0108981")).toBe(true);
    expect(a.proceedsUsd).toBeNull();
    expect(a.usd).toBeNull();
    expect(a.incomeUnits).toBe("0");
    expect(a.v1.kind).toBe("unclassified_adjustment");
    expect(a.v1.reasons[0]).toBe("Spin-off booked as a basis allocation, not income");
    expect(a.v1.reasons[1]).toBe("1.0898% of the position's value distributed and reinvested");
  });

  test("HONx 2026-06-29 23:55: spin_off, distributedFraction ≈ 0.48747, proceedsUsd = U0 × 216.6649884 (plausible)", () => {
    const a = action("HONx", "2026-06-29T23:55:00.000Z");
    expect(a.type).toBe("spin_off");
    expect(a.distributedFraction!.startsWith("0.48747")).toBe(true);
    expect(a.proceedsUsd).toBe(decMul(U0(0.5120473566533945), "216.6649884"));
    expect(a.warnings).not.toContain("implausible issuer cash");
    expect(a.usd).toBeNull();
    const parent = (0.5120473566533945 * 216.6649884) / (0.9990655067370947 - 0.5120473566533945);
    const next = (0.9990655067370947 * 0.49) / (1.0011576563945983 - 0.9990655067370947);
    expect(Math.round(parent)).toBe(228);
    expect(Math.round(next)).toBe(234);
  });

  test("SCCOx 2026-08-12: stock_dividend from v5, factor ≈ 1.0153176; v1 unclassified with the stock-dividend reason", () => {
    const a = action("SCCOx", "2026-08-12T00:30:00.000Z");
    expect(a.type).toBe("stock_dividend");
    expect(a.matched?.eventId.startsWith("ed857d4c")).toBe(true);
    expect(a.matched?.version).toBe(5);
    expect(a.factor!.startsWith("1.0153176")).toBe(true);
    expect(a.revisions.map((r) => r.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.v1.kind).toBe("unclassified_adjustment");
    expect(a.v1.reasons).toEqual(["Stock dividend booked as a quantity adjustment, not income", `units ×${a.factor}, cost basis spread across them`]);
    expect(a.incomeUnits).toBe("0");
  });

  test("KRAQx 2026-03-26: rights_distribution from a 1:1 UnitSplit with warrant proceeds, ≈ 0.01357, not income", () => {
    const a = action("KRAQx", "2026-03-26T23:55:00.000Z");
    expect(a.type).toBe("rights_distribution");
    expect(a.treatment).toBe("basis_allocation");
    expect(a.matched?.version).toBe(3);
    expect(a.distributedFraction!.startsWith("0.01357")).toBe(true);
    expect(a.proceedsUsd).toBe(decMul(U0(1), "0.1356647"));
    expect(a.usd).toBeNull();
    expect(a.incomeUnits).toBe("0");
    expect(a.v1.reasons[0]).toBe("Rights distribution booked as a basis allocation, not income");
  });

  test("AZNx 2026-02-02: identity_change, factor 1/2, NASDAQ:AZN (ADR) -> NYSE:AZN, lineage link basis 1", () => {
    const out = run("AZNx");
    const a = action("AZNx", "2026-02-02T22:00:00.000Z");
    expect(a.type).toBe("identity_change");
    expect(a.treatment).toBe("identity");
    expect(a.factor).toBe("0.5");
    expect(a.underlying).toEqual({ from: "NASDAQ:AZN (ADR)", to: "NYSE:AZN" });
    expect(a.lineageLink?.basisFraction).toBe("1");
    expect(a.timestamps.issuerCreatedAt).toBe("2026-02-02T22:49:18.000Z");
    expect(a.v1.reasons[0]).toBe("Identity change of the underlying booked as a quantity adjustment, not income");
    const lin = out.lineage.find((l) => l.mint === a.mint)!;
    expect(lin.identities.map((i) => i.underlying)).toEqual(["NASDAQ:AZN (ADR)", "NYSE:AZN"]);
    expect(lin.links).toEqual([{ type: "identity_change", from: "NASDAQ:AZN (ADR)", to: "NYSE:AZN", basisFraction: "1", cashFraction: "0", at: "2026-02-02T22:00:00.000Z" }]);
    expect(lin.basisNowSits).toEqual([{ holding: "NYSE:AZN", kind: "position", fraction: "1" }]);
  });
});

describe("positions over the recorded histories", () => {
  test.each(["SPYx", "HONx", "KLACx", "STRCx", "NVOx", "AZNx", "SCCOx", "KRAQx", "KOx", "NVDAx", "NFLXx"])("%s replay reconciles with raw × multiplier", (sym) => {
    const p = run(sym).positions[0]!;
    expect(p.status).toBe("ok");
    expect(p.rawBalance).toBe("1000000000");
    const hist = run(sym).transitions.filter((t) => t.state === "activated");
    const mNow = hist[hist.length - 1]!.multiplierNewF64;
    expect(p.quantity).toBe(decMul("10", f64Exact(mNow)));
  });
});
