// Properties of the lot engine over random tenant histories (docs/lots.md#what-the-tests-prove):
// units follow the chain at every instant, basis is conserved, every window reconciles, the four
// methods agree where they must, and the order the input was listed in changes nothing. The
// reference is the chain's own state, replayed by test/domain/lots-support.ts, not the engine.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { deriveLots, LOT_METHODS, type LotMethod, type LotReport, type OpenLot, type RealizedRow, TAX_TREATMENTS, type TaxTreatment } from "../../src/domain/lots";
import { add, cmp, div, formatDecimal, type Rat, sub, sum, ZERO } from "../../src/domain/numbers";
import type { Movement } from "../../src/domain/lots";
import { buildHistory, historyArb, key, movement, MINTS, shuffled, WALLETS } from "./lots-support";

const s = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r, 40));
const COMBOS = TAX_TREATMENTS.flatMap((treatment) => LOT_METHODS.map((method) => ({ treatment, method })));
const RUNS = { numRuns: 120 };

describe("units follow the chain", () => {
  test("at every instant, for every method and both treatments, each wallet's open lots hold Σ raw × M / 10^d", () => {
    fc.assert(
      fc.property(historyArb(), (steps) => {
        const h = buildHistory(steps);
        const at = new Map(h.instants.map((i) => [i.at, i.units]));
        for (const options of COMBOS) {
          let seen = 0;
          const report = deriveLots(h.input, {
            ...options,
            onInstant: (instant, view) => {
              seen++;
              const expected = at.get(instant)!;
              for (const w of WALLETS) {
                for (const { mint } of MINTS) {
                  const units = view.units(w, mint);
                  expect({ options, instant, w, mint, units: s(units) }).toEqual({ options, instant, w, mint, units: s(expected.get(key(w, mint))!) });
                  expect(s(sum(view.lots(w, mint).map((l) => l.units)))).toBe(s(units));
                }
              }
            },
          });
          expect(seen).toBe(new Set([...h.input.movements, ...h.input.actions].map((e) => e.at)).size);
          // A consistent history raises no problem: every disposal finds its lots, every own transfer arrives.
          expect(report.problems).toEqual([]);
        }
      }),
      RUNS,
    );
  });
});

function openBasis(report: LotReport, owner: string, mint: string): { known: Rat; unknownUnits: Rat } {
  const lots = report.lots.filter((l) => l.owner === owner && l.mint === mint);
  return { known: sum(lots.flatMap((l) => (l.basisUsd ? [l.basisUsd] : []))), unknownUnits: sum(lots.filter((l) => !l.basisKnown).map((l) => l.units)) };
}

describe("basis is conserved", () => {
  test("per wallet: acquired + income − disposed + own transfers = open basis; tenant-wide: acquired + income = disposed + open", () => {
    fc.assert(
      fc.property(historyArb(), (steps) => {
        const h = buildHistory(steps);
        for (const options of COMBOS) {
          const r = deriveLots(h.input, options);
          for (const i of r.instruments) {
            const b = i.basis;
            expect(s(b.openingUsd)).toBe("0");
            expect(s(sub(add(add(b.acquiredUsd, b.incomeUsd), b.ownTransferUsd), b.disposedUsd))).toBe(s(b.closingUsd));
            const open = openBasis(r, i.owner, i.mint);
            expect(s(open.known)).toBe(s(b.closingUsd));
            expect(s(open.unknownUnits)).toBe(s(i.unknownBasisUnits));
            const realized = r.realized.filter((x) => x.owner === i.owner && x.mint === i.mint);
            expect(s(sum(realized.flatMap((x) => (x.basisUsd ? [x.basisUsd] : []))))).toBe(s(b.disposedUsd));
          }
          const total = (f: (i: (typeof r.instruments)[number]) => Rat): string | null => s(sum(r.instruments.map(f)));
          // Own transfers move basis and units between wallets: tenant-wide they add to nothing.
          expect(total((i) => i.basis.ownTransferUsd)).toBe("0");
          expect(total((i) => i.reconciliation.ownTransferUnits)).toBe("0");
          // What went in is what the history says went in.
          expect(total((i) => i.basis.acquiredUsd)).toBe(s(h.costUsd));
          expect(total((i) => i.basis.incomeUsd)).toBe(options.treatment === "income" ? s(h.incomeUsd) : "0");
          expect(total((i) => sub(add(i.basis.acquiredUsd, i.basis.incomeUsd), i.basis.disposedUsd))).toBe(total((i) => i.basis.closingUsd));
        }
      }),
      RUNS,
    );
  });
});

describe("every window reconciles", () => {
  test("opening + acquired − disposed + own transfers + corporate actions + uncovered = closing, and opening and closing are the chain's", () => {
    fc.assert(
      fc.property(historyArb(), fc.nat(), fc.nat(), fc.constantFrom(...COMBOS), (steps, a, b, options) => {
        const h = buildHistory(steps);
        const times = h.instants.map((i) => i.at);
        const from = times[a % times.length]!;
        const asOf = Math.max(from, times[b % times.length]!);
        const r = deriveLots(h.input, { ...options, from, asOf });
        const before = [...h.instants].reverse().find((i) => i.at < from);
        const closing = [...h.instants].reverse().find((i) => i.at <= asOf)!;
        for (const w of WALLETS) {
          for (const { mint } of MINTS) {
            const i = r.instruments.find((x) => x.owner === w && x.mint === mint);
            const opening = before?.units.get(key(w, mint)) ?? ZERO;
            const close = closing.units.get(key(w, mint))!;
            if (!i) {
              expect([s(opening), s(close)]).toEqual(["0", "0"]);
              continue;
            }
            const c = i.reconciliation;
            expect(s(c.openingUnits)).toBe(s(opening));
            expect(s(c.closingUnits)).toBe(s(close));
            const sumUp = add(add(add(sub(add(c.openingUnits, c.acquiredUnits), c.disposedUnits), c.ownTransferUnits), c.corporateActionUnits), c.uncoveredUnits);
            expect(s(sumUp)).toBe(s(c.closingUnits));
            expect(s(c.uncoveredUnits)).toBe("0");
          }
        }
        for (const row of r.realized) expect(row.disposedAt >= from && row.disposedAt <= asOf).toBe(true);
        for (const x of r.actions) expect(x.at >= from && x.at <= asOf).toBe(true);
      }),
      RUNS,
    );
  });
});

/** Proceeds per disposal (a transaction or a termination), summed over the lots it consumed. */
function proceedsByDisposal(rows: RealizedRow[]): Record<string, { units: string | null; proceeds: string | null }> {
  const out: Record<string, { units: Rat; proceeds: Rat | null }> = {};
  for (const r of rows) {
    const k = `${r.owner}|${r.mint}|${r.signature ?? r.actionId}`;
    const prev = out[k] ?? { units: ZERO, proceeds: ZERO };
    out[k] = { units: add(prev.units, r.units), proceeds: prev.proceeds === null || r.proceedsUsd === null ? null : add(prev.proceeds, r.proceedsUsd) };
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, { units: s(v.units), proceeds: s(v.proceeds) }]));
}

const byMethod = (input: Parameters<typeof deriveLots>[0], treatment: TaxTreatment): Record<LotMethod, LotReport> =>
  Object.fromEntries(LOT_METHODS.map((method) => [method, deriveLots(input, { method, treatment })])) as Record<LotMethod, LotReport>;

describe("the four methods agree where they must", () => {
  test("same units held, same units and proceeds per disposal, same basis in; average consumes lots in FIFO order", () => {
    fc.assert(
      fc.property(historyArb(), fc.constantFrom(...TAX_TREATMENTS), (steps, treatment) => {
        const h = buildHistory(steps);
        const r = byMethod(h.input, treatment);
        const view = (x: LotReport) => ({
          units: x.instruments.map((i) => [i.owner, i.mint, s(i.units)]),
          disposals: proceedsByDisposal(x.realized),
          in: x.instruments.map((i) => [s(i.basis.acquiredUsd), s(i.basis.incomeUsd)]),
        });
        for (const method of LOT_METHODS) expect(view(r[method])).toEqual(view(r.fifo));
        // Average takes units in FIFO order (dates, terms, lots); only the basis differs.
        const dates = (x: LotReport) => x.realized.map((row) => [row.owner, row.mint, s(row.units), row.acquiredAt, row.disposedAt, row.term, row.lotId, s(row.proceedsUsd)]);
        expect(dates(r.average)).toEqual(dates(r.fifo));
        expect(r.average.lots.map((l) => [l.id, s(l.units), l.acquiredAt])).toEqual(r.fifo.lots.map((l) => [l.id, s(l.units), l.acquiredAt]));
      }),
      RUNS,
    );
  });

  test("with every value known: Σ gain − open basis = Σ proceeds − Σ cost − Σ income basis, the same for every method", () => {
    fc.assert(
      fc.property(historyArb(true), fc.constantFrom(...TAX_TREATMENTS), (steps, treatment) => {
        const h = buildHistory(steps);
        const r = byMethod(h.input, treatment);
        const income = treatment === "income" ? h.incomeUsd : ZERO;
        for (const method of LOT_METHODS) {
          const x = r[method];
          expect(x.realized.every((row) => row.gainUsd !== null)).toBe(true);
          expect(x.lots.every((l) => l.basisKnown)).toBe(true);
          const gains = sum(x.realized.map((row) => row.gainUsd!));
          const proceeds = sum(x.realized.map((row) => row.proceedsUsd!));
          const open = sum(x.lots.map((l) => l.basisUsd!));
          expect({ method, value: s(sub(gains, open)) }).toEqual({ method, value: s(sub(sub(proceeds, h.costUsd), income)) });
        }
      }),
      RUNS,
    );
  });

  test("for one disposal from the same lots, hifo's basis is at least every other method's", () => {
    const buy = fc.record({ raw: fc.bigInt({ min: 1n, max: 10n ** 10n }), cents: fc.integer({ min: 0, max: 1_000_000 }) });
    fc.assert(
      fc.property(fc.array(buy, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 100 }), (buys, percent) => {
        const total = buys.reduce((acc, b) => acc + b.raw, 0n);
        const movements = buys.map((b, i) =>
          movement({ owner: "W", mint: "X", at: 1_700_000_000_000 + i * 86_400_000, signature: `b${i}`, rawDelta: b.raw, multiplier: 1.25, usd: { n: BigInt(b.cents), d: 100n } }),
        );
        const sold = (total * BigInt(percent)) / 100n;
        if (sold === 0n) return;
        movements.push(movement({ owner: "W", mint: "X", at: 1_800_000_000_000, signature: "sell", rawDelta: -sold, multiplier: 1.25, usd: { n: 1n, d: 1n } }));
        const basis = Object.fromEntries(LOT_METHODS.map((method) => [method, sum(deriveLots({ movements, actions: [] }, { method, treatment: "income" }).realized.map((row) => row.basisUsd!))]));
        for (const method of LOT_METHODS) expect(cmp(basis.hifo!, basis[method]!)).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });
});

describe("determinism", () => {
  test("the same events listed in another order give the same report", () => {
    fc.assert(
      fc.property(historyArb(), fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(...COMBOS), (steps, seed, options) => {
        const h = buildHistory(steps);
        expect(deriveLots(shuffled(h.input, seed), options)).toEqual(deriveLots(h.input, options));
      }),
      RUNS,
    );
  });
});

describe("hifo order", () => {
  test("every lot a sale takes has the highest basis per unit of the lots still open (ties: the older), even after partial takes", () => {
    // Few prices and sizes: many lots with exactly the same basis per unit, split again and again;
    // a cent more on some makes the shares inexact, so the 10^-18 rounding of a split shows.
    const step = fc.record({ sell: fc.boolean(), units: fc.constantFrom(1n, 3n, 7n), price: fc.constantFrom(10n, 20n), cent: fc.constantFrom(0n, 1n), percent: fc.constantFrom(13, 33, 50, 71) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 30 }), (steps) => {
        const E = 100_000_000n;
        let raw = 0n;
        const movements: Movement[] = [];
        for (const [i, st] of steps.entries()) {
          const at = 1_700_000_000_000 + i * 86_400_000;
          if (st.sell && raw > 0n) {
            const amount = (raw * BigInt(st.percent)) / 100n;
            if (amount === 0n) continue;
            movements.push(movement({ owner: "W", mint: "X", at, signature: `s${i}`, rawDelta: -amount, multiplier: 1, usd: { n: 1n, d: 1n } }));
            raw -= amount;
          } else if (!st.sell) {
            movements.push(movement({ owner: "W", mint: "X", at, signature: `b${i}`, rawDelta: st.units * E, multiplier: 1, usd: { n: st.units * st.price * 100n + st.cent, d: 100n } }));
            raw += st.units * E;
          }
        }
        // The lots open just before each instant, as the view showed them after the previous one.
        const before = new Map<number, OpenLot[]>();
        let open: OpenLot[] = [];
        const r = deriveLots(
          { movements, actions: [] },
          {
            method: "hifo",
            treatment: "income",
            onInstant: (at, view) => {
              before.set(at, open);
              open = view.lots("W", "X");
            },
          },
        );
        for (const [at, lots] of before) {
          const rows = r.realized.filter((row) => row.disposedAt === at);
          const left = new Map(lots.map((l) => [l.id, l]));
          for (const row of rows) {
            const taken = left.get(row.lotId!)!;
            for (const other of left.values()) {
              const c = cmp(div(other.basisUsd!, other.units), div(taken.basisUsd!, taken.units));
              expect(c < 0 || (c === 0 && other.acquiredAt >= taken.acquiredAt)).toBe(true);
            }
            left.delete(row.lotId!);
          }
        }
      }),
      RUNS,
    );
  });
});
