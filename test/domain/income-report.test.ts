// The year report's arithmetic: generated journals (recognitions, corrections as reversal +
// recognition, cancellations as a reversal alone) summed by incomeReport must equal what stands,
// per month × symbol and in total, exactly; converted amounts are each standing event at its
// day's rate; every figure people read is its exact value rounded once.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { usdForPeople } from "../../src/domain/display";
import { CONVERTED_NAME, incomeReport, PARTS, reportForPeople, type IncomeEntry, type Part, type RateQuote } from "../../src/domain/income-report";
import { add, cmp, eq, formatExact, mul, parseDecimal, rat, ratAbs, sub, type Rat, ZERO } from "../../src/domain/numbers";

type Amounts = Record<Part, string | null>;
interface Version { effectiveAt: string; amounts: Amounts }
interface Event { symbol: string | null; versions: Version[]; cancelled: boolean }

const money = fc.option(
  fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 14n }), fc.integer({ min: 0, max: 12 })).map(([n, p]) => formatExact(rat(n, 10n ** BigInt(p)))),
  { nil: null, freq: 4 },
);
const amounts: fc.Arbitrary<Amounts> = fc.record({ grossUsd: money, withholdingTaxUsd: money, retainedUsd: money, usd: money });
const times = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2025, 11, 31, 23, 59, 59) }).map((ms) => new Date(ms).toISOString());
const events = fc.array(
  fc.record({
    symbol: fc.constantFrom("SPYx", "NVOx", "HONx", null),
    versions: fc.array(fc.record({ effectiveAt: times, amounts }), { minLength: 1, maxLength: 3 }),
    cancelled: fc.boolean(),
  }),
  { maxLength: 25 },
);

const negate = (s: string | null) => (s === null ? null : formatExact({ ...parseDecimal(s), n: -parseDecimal(s).n }));
const entry = (e: Event, v: Version, entryType: IncomeEntry["entryType"]): IncomeEntry => ({
  entryType, effectiveAt: v.effectiveAt, symbol: e.symbol,
  ...(Object.fromEntries(PARTS.map((p) => [p, entryType === "reversal" ? negate(v.amounts[p]) : v.amounts[p]])) as Amounts),
});

/** The journal the booking would write: each version recognised, each replaced one reversed. */
function journalOf(evs: Event[]): IncomeEntry[] {
  const out: IncomeEntry[] = [];
  for (const e of evs) {
    e.versions.forEach((v, i) => {
      out.push(entry(e, v, "recognition"));
      if (i < e.versions.length - 1 || e.cancelled) out.push(entry(e, v, "reversal"));
    });
  }
  return out;
}

const standing = (evs: Event[]) => evs.filter((e) => !e.cancelled).map((e) => ({ symbol: e.symbol, v: e.versions[e.versions.length - 1]! }));

/** What should stand for a group: per part the sum over events that carry it, null when none does. */
function expected(group: { v: Version }[], rateOn: (day: string) => Rat | null = () => null) {
  const parts = {} as Record<Part, string | null>;
  const converted = {} as Record<Part, Rat | null>;
  const allRated = group.every((g) => rateOn(g.v.effectiveAt.slice(0, 10)) !== null);
  for (const p of PARTS) {
    const carriers = group.filter((g) => g.v.amounts[p] !== null);
    const total = carriers.reduce((s, g) => add(s, parseDecimal(g.v.amounts[p]!)), ZERO);
    parts[p] = carriers.length ? formatExact(total) : null;
    converted[p] = carriers.length && allRated ? carriers.reduce((s, g) => add(s, mul(parseDecimal(g.v.amounts[p]!), rateOn(g.v.effectiveAt.slice(0, 10))!)), ZERO) : null;
  }
  return { events: group.length, unvaluedEvents: group.filter((g) => g.v.amounts.usd === null).length, parts, converted };
}

describe("incomeReport", () => {
  test("property: rows per month × symbol and the totals equal what stands, exactly", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs)));
        const stand = standing(evs);
        const total = expected(stand);
        expect({ events: report.totals.events, unvaluedEvents: report.totals.unvaluedEvents, exact: report.totals.exact }).toEqual({
          events: total.events, unvaluedEvents: total.unvaluedEvents, exact: total.parts,
        });
        // The last day with an event that stands: how far a currency's rates must reach.
        const standingDays = stand.map((s) => s.v.effectiveAt.slice(0, 10)).sort();
        expect(report.lastEventDate).toBe(standingDays[standingDays.length - 1] ?? null);
        const groups = new Map<string, typeof stand>();
        for (const s of stand) {
          const key = `${s.v.effectiveAt.slice(0, 7)}|${s.symbol}`;
          groups.set(key, [...(groups.get(key) ?? []), s]);
        }
        expect(report.rows.map((r) => `${r.month}|${r.symbol}`).sort()).toEqual([...groups.keys()].sort());
        for (const row of report.rows) {
          const want = expected(groups.get(`${row.month}|${row.symbol}`)!);
          expect({ events: row.events, unvaluedEvents: row.unvaluedEvents, exact: row.exact }).toEqual({ events: want.events, unvaluedEvents: want.unvaluedEvents, exact: want.parts });
        }
      }),
      { numRuns: 300 },
    );
  });

  test("property: the report equals the plain signed sum of the journal entries it covers", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const journal = journalOf(evs);
        const report = incomeReport(journal);
        for (const p of PARTS) {
          const sum = journal.reduce((s, e) => (e[p] === null ? s : add(s, parseDecimal(e[p]!))), ZERO);
          if (report.totals.carriers[p] > 0) expect(eq(report.totals.sums[p], sum)).toBe(true);
          // Rows add up to the totals exactly (each is rounded only when shown).
          expect(eq(report.rows.reduce((s, r) => add(s, r.sums[p]), ZERO), sum)).toBe(true);
        }
        expect(report.totals.events).toBe(journal.reduce((n, e) => n + (e.entryType === "reversal" ? -1 : 1), 0));
      }),
      { numRuns: 300 },
    );
  });

  test("property: every amount people read is its exact value rounded once (6 decimals, half-even)", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs)));
        for (const t of [report.totals, ...report.rows]) {
          for (const p of PARTS) expect(t[p]).toBe(t.exact[p] === null ? null : usdForPeople(parseDecimal(t.exact[p]!)));
        }
      }),
    );
  });

  test("property: converted amounts are each standing event at its day's rate; a missing rate makes them null with a reason", () => {
    // A rate for most days (a deterministic rational), none for days whose number ends in 7.
    const rateOn = (day: string): Rat | null => (day.endsWith("7") ? null : rat(BigInt(day.replace(/-/g, "")) % 997n + 50n, 113n));
    const quoteOn = (day: string): RateQuote | null => {
      const r = rateOn(day);
      return r && { rateDate: day, usdPerEur: "1", perEur: "1", rate: r };
    };
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs), { currency: "XYZ", quoteOn }));
        const want = expected(standing(evs), rateOn);
        const c = report.totals.converted!;
        for (const p of PARTS) {
          const w = want.converted[p];
          const got = c.exact[CONVERTED_NAME[p]];
          if (w === null) expect(got).toBeNull();
          // Exact when the expansion ends, else within half a unit of the 18th decimal.
          else expect(cmp(ratAbs(sub(parseDecimal(got!), w)), rat(1n, 2n * 10n ** 18n))).toBeLessThanOrEqual(0);
          expect(c[CONVERTED_NAME[p]]).toBe(w === null ? null : usdForPeople(w));
        }
        const missing = standing(evs).filter((s) => rateOn(s.v.effectiveAt.slice(0, 10)) === null).length;
        expect(c.reason === null).toBe(missing === 0);
        if (missing) expect(c.reason).toContain("XYZ reference rate");
      }),
      { numRuns: 200 },
    );
  });

  test("a refund's negative withholding lowers the withholding total; unknown parts stay null, never 0", () => {
    const at = "2026-03-10T00:00:00.000Z";
    const report = reportForPeople(
      incomeReport([
        { entryType: "recognition", effectiveAt: at, symbol: "NVOx", grossUsd: "10", withholdingTaxUsd: "1.5", retainedUsd: "0", usd: "8.5" },
        { entryType: "recognition", effectiveAt: at, symbol: "NVOx", grossUsd: null, withholdingTaxUsd: "-0.5", retainedUsd: null, usd: "0.5" },
        { entryType: "recognition", effectiveAt: "2026-04-01T00:00:00.000Z", symbol: "SPYx", grossUsd: null, withholdingTaxUsd: null, retainedUsd: null, usd: null },
      ]),
    );
    expect(report.totals).toMatchObject({ events: 3, unvaluedEvents: 1, grossUsd: "10", withholdingTaxUsd: "1", retainedUsd: "0", usd: "9" });
    expect(report.rows[1]).toMatchObject({ month: "2026-04", symbol: "SPYx", events: 1, unvaluedEvents: 1, grossUsd: null, withholdingTaxUsd: null, retainedUsd: null, usd: null });
  });
});
