// The worked examples of docs/lots.md, digit for digit. The real cases run the whole way: the
// recorded issuer records and multiplier histories (test/fixtures/recorded) go through the booking
// engine for a wallet whose balance changes are the example's, and its booked actions feed the lot
// engine through actionEventOf, as the integration will. The expected figures were worked by hand
// in docs/lots.md (exact f64 expansions, checked with Python's fractions), not by this code.
import { describe, expect, test } from "bun:test";
import { usdForPeople } from "../../src/domain/display";
import { runEngine } from "../../src/domain/engine";
import { actionEventOf, deriveLots, type LotMethod, type LotOptions, type LotReport, type TaxTreatment } from "../../src/domain/lots";
import { div, formatDecimal, liftF64, type Rat, rat, sub, sum } from "../../src/domain/numbers";
import { buildTransitions, effectiveTransitions, multiplierAt } from "../../src/domain/timeline";
import { instrument, loadSymbol, NOW, OWNER, revision, synthUpdates, unix } from "./helpers";
import { action, movement, ms, usd } from "./lots-support";

const x = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r));
const people = (r: Rat | null): string | null => (r === null ? null : usdForPeople(r));
const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

interface Step {
  at: string;
  signature: string;
  raw: bigint;
  usd: string | null;
}

/** A wallet trading a recorded symbol: the booking engine books its actions, the lot engine derives its lots. */
function realCase(symbol: string, steps: Step[], options: Omit<LotOptions, "asOf"> & { asOf?: string }): LotReport {
  const d = loadSymbol(symbol);
  const updates = synthUpdates(d);
  const activated = effectiveTransitions(buildTransitions(updates, NOW));
  let balance = 0n;
  const changes = steps.map((s, i) => {
    const preRaw = balance;
    balance += s.raw;
    return { owner: OWNER, tokenAccount: `ta-${symbol}`, mint: d.mint, signature: s.signature, slot: 390_000_000 + i, blockTime: unix(s.at), preRaw, postRaw: balance };
  });
  const out = runEngine({
    now: NOW,
    instruments: [instrument(d)],
    mintStates: [],
    multiplierUpdates: updates,
    issuerRevisions: d.records.map((r) => revision(r)),
    wallets: [{ owner: OWNER, gaps: [], accounts: [{ owner: OWNER, tokenAccount: `ta-${symbol}`, mint: d.mint, rawBalance: balance, slot: 446_000_000 }], balanceChanges: changes }],
  });
  const actions = out.actions.map(actionEventOf).filter((a) => a !== null);
  const movements = steps.map((s) =>
    movement({
      owner: OWNER,
      mint: d.mint,
      at: ms(s.at),
      signature: s.signature,
      rawDelta: s.raw,
      multiplier: multiplierAt(activated, unix(s.at)),
      usd: s.usd === null ? null : usd(s.usd),
      reason: s.usd === null ? "transfer" : null,
    }),
  );
  const { asOf, ...rest } = options;
  return deriveLots({ movements, actions }, { ...rest, asOf: asOf === undefined ? undefined : ms(asOf) });
}

const lotsOf = (r: LotReport) => r.lots.map((l) => ({ acquiredAt: iso(l.acquiredAt), source: l.source, units: x(l.units), basisUsd: x(l.basisUsd) }));
const rowsOf = (r: LotReport) =>
  r.realized.map((row) => ({
    acquiredAt: iso(row.acquiredAt),
    disposedAt: iso(row.disposedAt),
    units: x(row.units),
    proceedsUsd: x(row.proceedsUsd),
    basisUsd: x(row.basisUsd),
    gainUsd: x(row.gainUsd),
    term: row.term,
  }));
const effects = (r: LotReport) =>
  r.actions.map((a) => ({ at: iso(a.at), type: a.type, effect: a.effect, factor: x(a.factor), incomeUnits: x(a.incomeUnits), incomeBasisUsd: x(a.incomeBasisUsd), proceedsUsd: x(a.proceedsUsd) }));

// Exact expansions of the recorded f64 multipliers (docs/lots.md#the-multipliers).
const SPY_M0 = "1.00390924001175907420702060335315763950347900390625";
const SPY_M1 = "1.005714560286254055654353578574955463409423828125";

describe("docs/lots.md: the multipliers", () => {
  test("each recorded f64 is lifted to exactly the expansion the page shows", () => {
    const table: [number, string][] = [
      [1.003909240011759, "1.00390924001175907420702060335315763950347900390625"],
      [1.005714560286254, "1.005714560286254055654353578574955463409423828125"],
      [1.000892302917, "1.0008923029170000429388664997532032430171966552734375"],
      [10.00892302917, "10.0089230291700008734778748475946485996246337890625"],
      [1.024094713306789, "1.024094713306789028450793921365402638912200927734375"],
      [0.5120473566533945, "0.5120473566533945142253969606827013194561004638671875"],
      [0.9990655067370947, "0.99906550673709471066530340976896695792675018310546875"],
      [1.003871122822, "1.0038711228220000837296765894279815256595611572265625"],
      [0.501935561411, "0.50193556141100004186483829471399076282978057861328125"],
      [1.003847883664, "1.0038478836639999070001749714720062911510467529296875"],
      [1.019224471246712, "1.0192244712467120049126378944492898881435394287109375"],
      [1.01375909737, "1.013759097369999917503946562646888196468353271484375"],
      [1.003841218823, "1.0038412188229999255639768307446502149105072021484375"],
      [1.0051095254039053, "1.00510952540390530174363448168151080608367919921875"],
      [1.0196722741780835, "1.0196722741780834819991241602110676467418670654296875"],
      [1.0216191519711808, "1.02161915197118080556037966744042932987213134765625"],
    ];
    for (const [f64, exact] of table) expect(x(liftF64(f64))).toBe(exact);
  });
});

describe("docs/lots.md: example 1, a cash dividend (SPYx, 2026-06-18)", () => {
  const steps: Step[] = [
    { at: "2026-05-10T12:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "7400" },
    { at: "2026-07-01T15:00:00Z", signature: "sell", raw: -1_000_000_000n, usd: "7560" },
  ];
  const U0 = "10.0390924001175907420702060335315763950347900390625";
  const INCOME_UNITS = "0.0180532027449498144733297522179782390594482421875";
  const INCOME_USD = "13.376701106371565101287757215686724521219730377197265625";

  test("the multipliers are the recorded f64 values, lifted exactly", () => {
    expect([x(liftF64(1.003909240011759)), x(liftF64(1.005714560286254))]).toEqual([SPY_M0, SPY_M1]);
  });

  test("income treatment: a new lot of U1 − U0 units at $13.376701, then the sale realizes both lots", () => {
    const before = realCase("SPYx", steps, { method: "fifo", treatment: "income", asOf: "2026-06-30T23:59:59.999Z" });
    expect(lotsOf(before)).toEqual([
      { acquiredAt: "2026-05-10T12:00:00.000Z", source: "purchase", units: U0, basisUsd: "7400" },
      { acquiredAt: "2026-06-18T04:00:00.000Z", source: "income", units: INCOME_UNITS, basisUsd: INCOME_USD },
    ]);
    expect(effects(before)).toEqual([
      { at: "2026-06-18T04:00:00.000Z", type: "cash_dividend", effect: "income_lot", factor: "1.001798290325999824", incomeUnits: INCOME_UNITS, incomeBasisUsd: INCOME_USD, proceedsUsd: null },
    ]);
    // ≈ $741 an income unit: the reinvestment price the issuer's cash implies.
    expect(Math.round(Number(formatDecimal(div(before.lots[1]!.basisUsd!, before.lots[1]!.units), 6)))).toBe(741);
    const after = realCase("SPYx", steps, { method: "fifo", treatment: "income" });
    expect(after.lots).toEqual([]);
    expect(rowsOf(after)).toEqual([
      {
        acquiredAt: "2026-05-10T12:00:00.000Z",
        disposedAt: "2026-07-01T15:00:00.000Z",
        units: U0,
        proceedsUsd: "7546.429329141563387358",
        basisUsd: "7400",
        gainUsd: "146.429329141563387358",
        term: "short",
      },
      {
        acquiredAt: "2026-06-18T04:00:00.000Z",
        disposedAt: "2026-07-01T15:00:00.000Z",
        units: INCOME_UNITS,
        proceedsUsd: "13.570670858436612642",
        basisUsd: INCOME_USD,
        gainUsd: "0.193969752065047540712242784313275478780269622802734375",
        term: "short",
      },
    ]);
    const [a, b] = after.realized;
    expect([people(a!.proceedsUsd), people(b!.proceedsUsd), people(a!.gainUsd), people(b!.gainUsd)]).toEqual(["7546.429329", "13.570671", "146.429329", "0.19397"]);
  });

  test("deferred treatment: the one lot grows to U1 units, basis $7,400; the sale gains $160", () => {
    const before = realCase("SPYx", steps, { method: "fifo", treatment: "deferred", asOf: "2026-06-30T23:59:59.999Z" });
    expect(lotsOf(before)).toEqual([{ acquiredAt: "2026-05-10T12:00:00.000Z", source: "purchase", units: "10.05714560286254055654353578574955463409423828125", basisUsd: "7400" }]);
    expect(effects(before)[0]!.effect).toBe("scaled");
    const after = realCase("SPYx", steps, { method: "fifo", treatment: "deferred" });
    expect(rowsOf(after)).toEqual([
      {
        acquiredAt: "2026-05-10T12:00:00.000Z",
        disposedAt: "2026-07-01T15:00:00.000Z",
        units: "10.05714560286254055654353578574955463409423828125",
        proceedsUsd: "7560",
        basisUsd: "7400",
        gainUsd: "160",
        term: "short",
      },
    ]);
  });

  test("the two readings differ by exactly the income basis: 160 − 146.623298893628434898… = 13.376701106371565101…", () => {
    const income = realCase("SPYx", steps, { method: "fifo", treatment: "income" });
    const gain = sum(income.realized.map((r) => r.gainUsd!));
    expect(formatDecimal(gain)).toBe("146.623298893628434898712242784313275478780269622802734375");
    expect(formatDecimal(sub(rat(160), gain))).toBe(INCOME_USD);
  });
});

describe("docs/lots.md: example 2, a forward split (KLACx, 2026-06-12)", () => {
  const steps: Step[] = [
    { at: "2026-05-20T10:00:00Z", signature: "buy", raw: 300_000_000n, usd: "5400" },
    { at: "2026-07-01T15:00:00Z", signature: "sell", raw: -100_000_000n, usd: "2000" },
  ];
  for (const treatment of ["income", "deferred"] as TaxTreatment[]) {
    test(`${treatment}: units ×10.000000000000000444, basis and date kept; selling a third realizes $200 on $1,800`, () => {
      const before = realCase("KLACx", steps, { method: "fifo", treatment, asOf: "2026-06-30T23:59:59.999Z" });
      expect(lotsOf(before)).toEqual([{ acquiredAt: "2026-05-20T10:00:00.000Z", source: "purchase", units: "30.0267690875100026204336245427839457988739013671875", basisUsd: "5400" }]);
      expect(effects(before)).toEqual([
        { at: "2026-06-12T13:30:00.000Z", type: "forward_split", effect: "scaled", factor: "10.000000000000000444", incomeUnits: "0", incomeBasisUsd: null, proceedsUsd: null },
      ]);
      expect([x(before.actions[0]!.unitsBefore), x(before.actions[0]!.unitsAfter)]).toEqual([
        "3.0026769087510001288165994992596097290515899658203125",
        "30.0267690875100026204336245427839457988739013671875",
      ]);
      const after = realCase("KLACx", steps, { method: "fifo", treatment, asOf: "2026-07-31T23:59:59.999Z" });
      expect(rowsOf(after)).toEqual([
        {
          acquiredAt: "2026-05-20T10:00:00.000Z",
          disposedAt: "2026-07-01T15:00:00.000Z",
          units: "10.0089230291700008734778748475946485996246337890625",
          proceedsUsd: "2000",
          basisUsd: "1800",
          gainUsd: "200",
          term: "short",
        },
      ]);
      expect(lotsOf(after)).toEqual([{ acquiredAt: "2026-05-20T10:00:00.000Z", source: "purchase", units: "20.017846058340001746955749695189297199249267578125", basisUsd: "3600" }]);
    });
  }
});

describe("docs/lots.md: example 3, a reverse split then a spin-off the same day (HONx, 2026-06-29)", () => {
  const steps: Step[] = [
    { at: "2026-06-01T14:00:00Z", signature: "buy", raw: 400_000_000n, usd: "920" },
    { at: "2026-07-15T15:00:00Z", signature: "sell", raw: -200_000_000n, usd: "470" },
  ];
  for (const treatment of ["income", "deferred"] as TaxTreatment[]) {
    test(`${treatment}: ×1/2, then ×1.951119352058999850 with $443.770938 of proceeds shown, nothing realized; half sold gains $10`, () => {
      const r = realCase("HONx", steps, { method: "fifo", treatment, asOf: "2026-07-31T23:59:59.999Z" });
      expect(effects(r)).toEqual([
        { at: "2026-06-29T15:30:00.000Z", type: "reverse_split", effect: "scaled", factor: "0.5", incomeUnits: "0", incomeBasisUsd: null, proceedsUsd: null },
        {
          at: "2026-06-29T23:55:00.000Z",
          type: "spin_off",
          effect: "scaled",
          factor: "1.95111935205899985",
          incomeUnits: "0",
          incomeBasisUsd: null,
          proceedsUsd: "443.7709383582335409810770698868509498424828052520751953125",
        },
      ]);
      expect(r.actions.map((a) => [x(a.unitsBefore), x(a.unitsAfter)])).toEqual([
        ["4.0963788532271561138031756854616105556488037109375", "2.04818942661357805690158784273080527782440185546875"],
        ["2.04818942661357805690158784273080527782440185546875", "3.996262026948378842661213639075867831707000732421875"],
      ]);
      expect(rowsOf(r)).toEqual([
        {
          acquiredAt: "2026-06-01T14:00:00.000Z",
          disposedAt: "2026-07-15T15:00:00.000Z",
          units: "1.9981310134741894213306068195379339158535003662109375",
          proceedsUsd: "470",
          basisUsd: "460",
          gainUsd: "10",
          term: "short",
        },
      ]);
      expect(lotsOf(r)).toEqual([{ acquiredAt: "2026-06-01T14:00:00.000Z", source: "purchase", units: "1.9981310134741894213306068195379339158535003662109375", basisUsd: "460" }]);
    });
  }
});

describe("docs/lots.md: example 4, an identity change (AZNx, 2026-02-02)", () => {
  test("units ×1/2 on the same mint, basis $800 and the acquisition date carried; the sale gains $50", () => {
    const steps: Step[] = [
      { at: "2025-10-01T09:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "800" },
      { at: "2026-03-01T15:00:00Z", signature: "sell", raw: -1_000_000_000n, usd: "850" },
    ];
    for (const method of ["fifo", "lifo", "hifo", "average"] as LotMethod[]) {
      const before = realCase("AZNx", steps, { method, treatment: "income", asOf: "2026-02-28T23:59:59.999Z" });
      expect(effects(before)).toEqual([{ at: "2026-02-02T22:00:00.000Z", type: "identity_change", effect: "scaled", factor: "0.5", incomeUnits: "0", incomeBasisUsd: null, proceedsUsd: null }]);
      expect(x(before.actions[0]!.unitsBefore)).toBe("10.038711228220000837296765894279815256595611572265625");
      expect(lotsOf(before)).toEqual([{ acquiredAt: "2025-10-01T09:00:00.000Z", source: "purchase", units: "5.0193556141100004186483829471399076282978057861328125", basisUsd: "800" }]);
      const after = realCase("AZNx", steps, { method, treatment: "income" });
      expect(rowsOf(after)).toEqual([
        {
          acquiredAt: "2025-10-01T09:00:00.000Z",
          disposedAt: "2026-03-01T15:00:00.000Z",
          units: "5.0193556141100004186483829471399076282978057861328125",
          proceedsUsd: "850",
          basisUsd: "800",
          gainUsd: "50",
          term: "short",
        },
      ]);
    }
  });
});

describe("docs/lots.md: example 5, a stock dividend (SCCOx, 2026-08-12)", () => {
  test("units ×1.015317647058823535, basis spread: half the raw sold carries half the basis", () => {
    const steps: Step[] = [
      { at: "2026-08-11T12:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "1500" },
      { at: "2026-08-20T15:00:00Z", signature: "sell", raw: -500_000_000n, usd: "770" },
    ];
    const r = realCase("SCCOx", steps, { method: "fifo", treatment: "income", asOf: "2026-08-31T23:59:59.999Z" });
    expect(effects(r)).toEqual([
      { at: "2026-08-12T00:30:00.000Z", type: "stock_dividend", effect: "scaled", factor: "1.015317647058823535", incomeUnits: "0", incomeBasisUsd: null, proceedsUsd: null },
    ]);
    expect(x(r.actions[0]!.unitsAfter)).toBe("10.192244712467120049126378944492898881435394287109375");
    expect(rowsOf(r)).toEqual([
      {
        acquiredAt: "2026-08-11T12:00:00.000Z",
        disposedAt: "2026-08-20T15:00:00.000Z",
        units: "5.0961223562335600245631894722464494407176971435546875",
        proceedsUsd: "770",
        basisUsd: "750",
        gainUsd: "20",
        term: "short",
      },
    ]);
  });
});

describe("docs/lots.md: example 6, a rights distribution (KRAQx, 2026-03-26)", () => {
  test("units ×1.01375909737 (f64), basis $500 unchanged, $1.356647 of warrant proceeds shown, nothing realized", () => {
    const steps: Step[] = [{ at: "2026-03-01T12:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "500" }];
    for (const treatment of ["income", "deferred"] as TaxTreatment[]) {
      const r = realCase("KRAQx", steps, { method: "fifo", treatment });
      expect(effects(r)).toEqual([
        {
          at: "2026-03-26T23:55:00.000Z",
          type: "rights_distribution",
          effect: "scaled",
          factor: "1.013759097369999917503946562646888196468353271484375",
          incomeUnits: "0",
          incomeBasisUsd: null,
          proceedsUsd: "1.356647",
        },
      ]);
      expect(lotsOf(r)).toEqual([{ acquiredAt: "2026-03-01T12:00:00.000Z", source: "purchase", units: "10.13759097369999917503946562646888196468353271484375", basisUsd: "500" }]);
      expect(r.realized).toEqual([]);
    }
  });
});

describe("docs/lots.md: example 7, a dividend and its withholding refund (NVOx, 2025-08-26 and 2025-09-05)", () => {
  const steps: Step[] = [{ at: "2025-08-01T12:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "700" }];
  test("income treatment: two income lots, $2.883412 and $1.236861 (the refund is income too)", () => {
    const r = realCase("NVOx", steps, { method: "fifo", treatment: "income", asOf: "2025-09-30T23:59:59.999Z" });
    expect(effects(r).map((e) => [e.type, e.effect, e.incomeUnits, e.incomeBasisUsd])).toEqual([
      ["cash_dividend", "income_lot", "0.038412188229999255639768307446502149105072021484375", "2.883412"],
      ["withholding_adjustment", "income_lot", "0.012683065809053761796576509368605911731719970703125", "1.23686087326594525228529164451174437999725341796875"],
    ]);
    expect(lotsOf(r)).toEqual([
      { acquiredAt: "2025-08-01T12:00:00.000Z", source: "purchase", units: "10", basisUsd: "700" },
      { acquiredAt: "2025-08-26T23:55:00.000Z", source: "income", units: "0.038412188229999255639768307446502149105072021484375", basisUsd: "2.883412" },
      { acquiredAt: "2025-09-05T23:55:00.000Z", source: "income", units: "0.012683065809053761796576509368605911731719970703125", basisUsd: "1.23686087326594525228529164451174437999725341796875" },
    ]);
    expect(people(r.lots[2]!.basisUsd)).toBe("1.236861");
    expect(x(r.instruments[0]!.units)).toBe("10.0510952540390530174363448168151080608367919921875");
  });
  test("deferred treatment: one lot of 10.051095… units, basis $700", () => {
    const r = realCase("NVOx", steps, { method: "fifo", treatment: "deferred", asOf: "2025-09-30T23:59:59.999Z" });
    expect(lotsOf(r)).toEqual([{ acquiredAt: "2025-08-01T12:00:00.000Z", source: "purchase", units: "10.0510952540390530174363448168151080608367919921875", basisUsd: "700" }]);
  });
});

describe("docs/lots.md: example 8, a change no issuer record explains (STRCx, 2026-04-01)", () => {
  test("both treatments: scaled ×1.001909317182000092, basis unchanged, flagged unbooked", () => {
    const steps: Step[] = [{ at: "2026-03-20T12:00:00Z", signature: "buy", raw: 1_000_000_000n, usd: "1000" }];
    for (const treatment of ["income", "deferred"] as TaxTreatment[]) {
      const r = realCase("STRCx", steps, { method: "fifo", treatment, asOf: "2026-04-10T00:00:00Z" });
      expect(r.actions.map((a) => [a.type, a.effect, x(a.factor), a.unbooked])).toEqual([["unknown", "scaled", "1.001909317182000092", true]]);
      expect(lotsOf(r)).toEqual([{ acquiredAt: "2026-03-20T12:00:00.000Z", source: "purchase", units: "10.2161915197118080556037966744042932987213134765625", basisUsd: "1000" }]);
    }
  });
});

// Synthetic: no recorded case of these types. A mint at multiplier 1, 8 decimals.
const SYN = { owner: "Wallet1", mint: "SynthMint", decimals: 8 };

describe("docs/lots.md: example 9, a cash and stock dividend (synthetic)", () => {
  test("income treatment: lots ×1.05, then an income lot of U1 − 10.5 units at $5", () => {
    const input = {
      movements: [movement({ ...SYN, at: ms("2026-01-05T00:00:00Z"), signature: "buy", rawDelta: 1_000_000_000n, multiplier: 1, usd: usd("1000") })],
      actions: [
        action({
          ...SYN,
          actionId: "cs",
          at: ms("2026-02-01T00:00:00Z"),
          type: "cash_and_stock_dividend",
          raw: 1_000_000_000n,
          mOld: 1,
          mNew: 1.0605,
          stockFactor: usd("1.05"),
          cashPerShare: usd("0.5"),
        }),
      ],
    };
    const r = deriveLots(input, { method: "fifo", treatment: "income" });
    expect(lotsOf(r)).toEqual([
      { acquiredAt: "2026-01-05T00:00:00.000Z", source: "purchase", units: "10.5", basisUsd: "1000" },
      { acquiredAt: "2026-02-01T00:00:00.000Z", source: "income", units: "0.104999999999999982236431605997495353221893310546875", basisUsd: "5" },
    ]);
    const d = deriveLots(input, { method: "fifo", treatment: "deferred" });
    expect(lotsOf(d)).toEqual([{ acquiredAt: "2026-01-05T00:00:00.000Z", source: "purchase", units: "10.604999999999999982236431605997495353221893310546875", basisUsd: "1000" }]);
  });
});

describe("docs/lots.md: example 10, a termination (synthetic cash merger)", () => {
  const buys = [
    movement({ ...SYN, at: ms("2024-03-01T12:00:00Z"), signature: "buy1", rawDelta: 1_000_000_000n, multiplier: 1, usd: usd("1000") }),
    movement({ ...SYN, at: ms("2025-06-01T12:00:00Z"), signature: "buy2", rawDelta: 1_000_000_000n, multiplier: 1, usd: usd("1300") }),
  ];
  const merger = (mNew: number, proceeds: Rat | null) =>
    action({ ...SYN, actionId: "merger", at: ms("2025-09-01T00:00:00Z"), type: "cash_merger", raw: 2_000_000_000n, mOld: 1, mNew, proceedsPerShare: proceeds });
  test("every lot is disposed of at its share of the $2,400 cash-out, whatever the method or treatment", () => {
    for (const treatment of ["income", "deferred"] as TaxTreatment[]) {
      for (const method of ["fifo", "lifo", "hifo", "average"] as LotMethod[]) {
        const r = deriveLots({ movements: buys, actions: [merger(0, usd("120"))] }, { method, treatment });
        expect(r.lots).toEqual([]);
        expect(rowsOf(r)).toEqual([
          {
            acquiredAt: "2024-03-01T12:00:00.000Z",
            disposedAt: "2025-09-01T00:00:00.000Z",
            units: "10",
            proceedsUsd: "1200",
            basisUsd: method === "average" ? "1150" : "1000",
            gainUsd: method === "average" ? "50" : "200",
            term: "long",
          },
          {
            acquiredAt: "2025-06-01T12:00:00.000Z",
            disposedAt: "2025-09-01T00:00:00.000Z",
            units: "10",
            proceedsUsd: "1200",
            basisUsd: method === "average" ? "1150" : "1300",
            gainUsd: method === "average" ? "50" : "-100",
            term: "short",
          },
        ]);
        expect(r.realized.map((row) => row.actionId)).toEqual(["merger", "merger"]);
      }
    }
  });
  test("cash-out unknown and the tokens still showing units: proceeds null with a reason, the units left have unknown basis", () => {
    const r = deriveLots({ movements: buys, actions: [merger(1, null)] }, { method: "fifo", treatment: "income" });
    expect(r.realized.map((row) => [x(row.units), row.proceedsUsd, row.gainUsd, row.reason])).toEqual([
      ["10", null, null, "proceeds: termination_proceeds_unknown"],
      ["10", null, null, "proceeds: termination_proceeds_unknown"],
    ]);
    expect(r.lots.map((l) => [l.source, x(l.units), l.basisKnown, l.reason, iso(l.acquiredAt)])).toEqual([["transfer_in", "20", false, "after_termination", "2025-09-01T00:00:00.000Z"]]);
  });
});

describe("docs/lots.md: example 11, an own transfer and a sale under each method (synthetic)", () => {
  const W1 = { ...SYN, owner: "Wallet1" };
  const W2 = { ...SYN, owner: "Wallet2" };
  const E = 100_000_000n; // one unit at multiplier 1 and 8 decimals
  const input = {
    movements: [
      movement({ ...W1, at: ms("2025-01-10T12:00:00Z"), signature: "b1", rawDelta: 10n * E, multiplier: 1, usd: usd("100") }),
      movement({ ...W2, at: ms("2025-02-01T12:00:00Z"), signature: "b3", rawDelta: 10n * E, multiplier: 1, usd: usd("300") }),
      movement({ ...W1, at: ms("2025-03-10T12:00:00Z"), signature: "b2", rawDelta: 10n * E, multiplier: 1, usd: usd("200") }),
      movement({ ...W1, at: ms("2025-04-01T12:00:00Z"), signature: "own", rawDelta: -15n * E, multiplier: 1, reason: "transfer", counterpart: "Wallet2" }),
      movement({ ...W2, at: ms("2025-04-01T12:00:00Z"), signature: "own", rawDelta: 15n * E, multiplier: 1, reason: "transfer", counterpart: "Wallet1" }),
      movement({ ...W2, at: ms("2026-02-15T12:00:00Z"), signature: "sell", rawDelta: -12n * E, multiplier: 1, usd: usd("360") }),
    ],
    actions: [],
  };
  const D = (s: string) => `2025-${s}T12:00:00.000Z`;
  const sale = "2026-02-15T12:00:00.000Z";
  const expected: Record<LotMethod, { rows: ReturnType<typeof rowsOf>; wallet1: (string | null)[][]; wallet2: (string | null)[][] }> = {
    fifo: {
      rows: [
        { acquiredAt: D("01-10"), disposedAt: sale, units: "10", proceedsUsd: "300", basisUsd: "100", gainUsd: "200", term: "long" },
        { acquiredAt: D("02-01"), disposedAt: sale, units: "2", proceedsUsd: "60", basisUsd: "60", gainUsd: "0", term: "long" },
      ],
      wallet1: [[D("03-10"), "purchase", "5", "100"]],
      wallet2: [
        [D("02-01"), "purchase", "8", "240"],
        [D("03-10"), "own_transfer", "5", "100"],
      ],
    },
    lifo: {
      rows: [
        { acquiredAt: D("03-10"), disposedAt: sale, units: "10", proceedsUsd: "300", basisUsd: "200", gainUsd: "100", term: "short" },
        { acquiredAt: D("02-01"), disposedAt: sale, units: "2", proceedsUsd: "60", basisUsd: "60", gainUsd: "0", term: "long" },
      ],
      wallet1: [[D("01-10"), "purchase", "5", "50"]],
      wallet2: [
        [D("01-10"), "own_transfer", "5", "50"],
        [D("02-01"), "purchase", "8", "240"],
      ],
    },
    hifo: {
      rows: [
        { acquiredAt: D("02-01"), disposedAt: sale, units: "10", proceedsUsd: "300", basisUsd: "300", gainUsd: "0", term: "long" },
        { acquiredAt: D("03-10"), disposedAt: sale, units: "2", proceedsUsd: "60", basisUsd: "40", gainUsd: "20", term: "short" },
      ],
      wallet1: [[D("01-10"), "purchase", "5", "50"]],
      wallet2: [
        [D("01-10"), "own_transfer", "5", "50"],
        [D("03-10"), "own_transfer", "8", "160"],
      ],
    },
    average: {
      rows: [
        { acquiredAt: D("01-10"), disposedAt: sale, units: "10", proceedsUsd: "300", basisUsd: "210", gainUsd: "90", term: "long" },
        { acquiredAt: D("02-01"), disposedAt: sale, units: "2", proceedsUsd: "60", basisUsd: "42", gainUsd: "18", term: "long" },
      ],
      wallet1: [[D("03-10"), "purchase", "5", "75"]],
      wallet2: [
        [D("02-01"), "purchase", "8", "168"],
        [D("03-10"), "own_transfer", "5", "105"],
      ],
    },
  };
  for (const method of ["fifo", "lifo", "hifo", "average"] as LotMethod[]) {
    test(`${method}: the lots move with their dates and basis, then the sale takes them in ${method} order`, () => {
      const r = deriveLots(input, { method, treatment: "income" });
      expect(rowsOf(r)).toEqual(expected[method].rows);
      const open = (owner: string) => r.lots.filter((l) => l.owner === owner).map((l) => [iso(l.acquiredAt), l.source, x(l.units), x(l.basisUsd)]);
      expect(open("Wallet1")).toEqual(expected[method].wallet1);
      expect(open("Wallet2")).toEqual(expected[method].wallet2);
      expect(r.problems).toEqual([]);
      // Gain − open basis = proceeds − basis in = 360 − 600, whatever the method.
      expect(x(sub(sum(r.realized.map((row) => row.gainUsd!)), sum(r.lots.map((l) => l.basisUsd!))))).toBe("-240");
    });
  }
});
