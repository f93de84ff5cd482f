// The year report's arithmetic: generated journals (recognitions, corrections as reversal +
// recognition, cancellations as a reversal alone) summed by incomeReport must equal what stands,
// per month × symbol and in total, exactly. Every row and the totals add up (docs/income-and-tax.md#year-report):
// gross, withholding and retained cover only the events whose net USD is known, so
// gross − withheld − retained = net exactly; the gross of the others is apart (unvaluedGrossUsd);
// a part one of those events lacks is unknown (null), never a partial sum shown as if whole.
// Converted amounts are each standing event at its day's rate; every figure people read is its
// exact value rounded once.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { usdForPeople } from "../../src/domain/display";
import { CONVERTED_NAME, incomeReport, PARTS, reportForPeople, type IncomeEntry, type Part, type RateQuote } from "../../src/domain/income-report";
import { add, cmp, eq, formatExact, mul, parseDecimal, rat, ratAbs, sub, type Rat, ZERO } from "../../src/domain/numbers";

type Amounts = Record<Part, string | null>;
interface Version {
  effectiveAt: string;
  amounts: Amounts;
}
interface Event {
  symbol: string | null;
  versions: Version[];
  cancelled: boolean;
}

const moneyRat = fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 14n }), fc.integer({ min: 0, max: 12 })).map(([n, p]) => rat(n, 10n ** BigInt(p)));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });

/**
 * An income event's amounts as the ledger books them: where every part is known, gross = net +
 * withholding + retained exactly (src/domain/cash.ts); any part may be unknown (null): no net
 * (an implausible figure, no net published), no split of what was kept back, no gross.
 */
const amounts: fc.Arbitrary<Amounts> = fc
  .record({ usd: maybe(moneyRat), withholdingTaxUsd: maybe(moneyRat), retainedUsd: maybe(moneyRat), gross: maybe(moneyRat), grossKnown: fc.boolean() })
  .map(({ usd, withholdingTaxUsd, retainedUsd, gross, grossKnown }) => {
    const whole = usd !== null && withholdingTaxUsd !== null && retainedUsd !== null;
    const grossUsd = whole ? (grossKnown ? add(add(usd, withholdingTaxUsd), retainedUsd) : null) : gross;
    const text = (r: Rat | null) => (r === null ? null : formatExact(r));
    return { grossUsd: text(grossUsd), withholdingTaxUsd: text(withholdingTaxUsd), retainedUsd: text(retainedUsd), usd: text(usd) };
  });
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
  entryType,
  effectiveAt: v.effectiveAt,
  symbol: e.symbol,
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

/**
 * What should stand for a group, written from the rule rather than from the code: each part is
 * the sum over the events with a known net, null when there is none or one of them lacks it; the
 * gross of the others is their sum, null when one of them lacks it. Converted likewise, null
 * when an event of the group has no rate.
 */
function expected(group: { v: Version }[], rateOn: (day: string) => Rat | null = () => null) {
  const valued = group.filter((g) => g.v.amounts.usd !== null);
  const unvalued = group.filter((g) => g.v.amounts.usd === null);
  const allRated = group.every((g) => rateOn(g.v.effectiveAt.slice(0, 10)) !== null);
  const over = (set: { v: Version }[], p: Part, rate: boolean): Rat | null => {
    if (set.some((g) => g.v.amounts[p] === null)) return null;
    if (rate && !allRated) return null;
    return set.reduce((s, g) => add(s, mul(parseDecimal(g.v.amounts[p]!), rate ? rateOn(g.v.effectiveAt.slice(0, 10))! : rat(1))), ZERO);
  };
  const exact = {} as Record<Part | "unvaluedGrossUsd", string | null>;
  const converted = {} as Record<Part | "unvaluedGrossUsd", Rat | null>;
  for (const p of PARTS) {
    exact[p] = valued.length === 0 ? null : formatExactOrNull(over(valued, p, false));
    converted[p] = valued.length === 0 ? null : over(valued, p, true);
  }
  exact.unvaluedGrossUsd = formatExactOrNull(over(unvalued, "grossUsd", false));
  converted.unvaluedGrossUsd = over(unvalued, "grossUsd", true);
  return { events: group.length, unvaluedEvents: unvalued.length, exact, converted };
}
const formatExactOrNull = (r: Rat | null) => (r === null ? null : formatExact(r));

type Shown = ReturnType<typeof reportForPeople>["totals"];

/** gross − withheld − retained = net, on the exact values, wherever all four are known. */
function addsUp(t: Shown): boolean {
  const [g, w, r, n] = [t.exact.grossUsd, t.exact.withholdingTaxUsd, t.exact.retainedUsd, t.exact.usd];
  if (g === null || w === null || r === null || n === null) return true;
  return eq(sub(sub(parseDecimal(g), parseDecimal(w)), parseDecimal(r)), parseDecimal(n));
}

const exactSum = (values: (string | null)[]) => formatExact(values.reduce<Rat>((s, v) => add(s, parseDecimal(v!)), ZERO));

describe("incomeReport", () => {
  test("property: rows per month × symbol and the totals equal what stands, exactly", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs)));
        const stand = standing(evs);
        const total = expected(stand);
        expect({ events: report.totals.events, unvaluedEvents: report.totals.unvaluedEvents, exact: report.totals.exact }).toEqual({
          events: total.events,
          unvaluedEvents: total.unvaluedEvents,
          exact: total.exact,
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
          expect({ events: row.events, unvaluedEvents: row.unvaluedEvents, exact: row.exact }).toEqual({ events: want.events, unvaluedEvents: want.unvaluedEvents, exact: want.exact });
        }
      }),
      { numRuns: 300 },
    );
  });

  test("property: every row and the totals add up (gross − withheld − retained = net, exactly), and the totals are the sum of the rows", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs)));
        for (const t of [report.totals, ...report.rows]) expect({ addsUp: addsUp(t), exact: t.exact }).toEqual({ addsUp: true, exact: t.exact });
        // Rows with an event whose net is known carry the parts; a part unknown in one of them is unknown in the totals.
        const valuedRows = report.rows.filter((r) => r.events - r.unvaluedEvents > 0);
        for (const p of PARTS) {
          const values = valuedRows.map((r) => r.exact[p]);
          expect({ p, total: report.totals.exact[p] }).toEqual({ p, total: valuedRows.length === 0 || values.includes(null) ? null : exactSum(values) });
        }
        // Rows without such an event have no parts at all: unknown, not 0.
        for (const r of report.rows.filter((r) => r.events - r.unvaluedEvents <= 0)) for (const p of PARTS) expect(r.exact[p]).toBeNull();
        const unvalued = report.rows.map((r) => r.exact.unvaluedGrossUsd);
        expect(report.totals.exact.unvaluedGrossUsd).toBe(unvalued.includes(null) ? null : exactSum(unvalued));
        expect(report.totals.events).toBe(report.rows.reduce((n, r) => n + r.events, 0));
        expect(report.totals.unvaluedEvents).toBe(report.rows.reduce((n, r) => n + r.unvaluedEvents, 0));
      }),
      { numRuns: 300 },
    );
  });

  test("property: the events are the plain signed count of the journal entries", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const journal = journalOf(evs);
        const report = incomeReport(journal);
        expect(report.totals.events).toBe(journal.reduce((n, e) => n + (e.entryType === "reversal" ? -1 : 1), 0));
        expect(report.totals.unvaluedEvents).toBe(journal.reduce((n, e) => n + (e.usd !== null ? 0 : e.entryType === "reversal" ? -1 : 1), 0));
      }),
      { numRuns: 300 },
    );
  });

  test("property: every amount people read is its exact value rounded once (6 decimals, half-even)", () => {
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs)));
        for (const t of [report.totals, ...report.rows]) {
          for (const p of [...PARTS, "unvaluedGrossUsd"] as const) expect(t[p]).toBe(t.exact[p] === null ? null : usdForPeople(parseDecimal(t.exact[p]!)));
        }
      }),
    );
  });

  test("property: converted amounts are each standing event at its day's rate, under the same rule; a missing rate makes them null with a reason", () => {
    // A rate for most days (a deterministic rational), none for days whose number ends in 7.
    const rateOn = (day: string): Rat | null => (day.endsWith("7") ? null : rat((BigInt(day.replace(/-/g, "")) % 997n) + 50n, 113n));
    const quoteOn = (day: string): RateQuote | null => {
      const r = rateOn(day);
      return r && { rateDate: day, usdPerEur: "1", perEur: "1", rate: r };
    };
    const names = { ...CONVERTED_NAME, unvaluedGrossUsd: "unvaluedGross" } as const;
    fc.assert(
      fc.property(events, (evs) => {
        const report = reportForPeople(incomeReport(journalOf(evs), { currency: "XYZ", quoteOn }));
        const want = expected(standing(evs), rateOn);
        const c = report.totals.converted!;
        for (const p of [...PARTS, "unvaluedGrossUsd"] as const) {
          const w = want.converted[p];
          const got = c.exact[names[p]];
          if (w === null) expect(got).toBeNull();
          // Exact when the expansion ends, else within half a unit of the 18th decimal.
          else expect(cmp(ratAbs(sub(parseDecimal(got!), w)), rat(1n, 2n * 10n ** 18n))).toBeLessThanOrEqual(0);
          expect(c[names[p]]).toBe(w === null ? null : usdForPeople(w));
        }
        const missing = standing(evs).filter((s) => rateOn(s.v.effectiveAt.slice(0, 10)) === null).length;
        expect(c.reason === null).toBe(missing === 0);
        if (missing) expect(c.reason).toContain("XYZ reference rate");
      }),
      { numRuns: 200 },
    );
  });

  test("a refund's negative withholding lowers the withholding total; an event without net USD keeps its gross apart", () => {
    const at = "2026-03-10T00:00:00.000Z";
    const report = reportForPeople(
      incomeReport([
        { entryType: "recognition", effectiveAt: at, symbol: "NVOx", grossUsd: "10", withholdingTaxUsd: "1.5", retainedUsd: "0", usd: "8.5" },
        { entryType: "recognition", effectiveAt: at, symbol: "NVOx", grossUsd: "0", withholdingTaxUsd: "-0.5", retainedUsd: "0", usd: "0.5" },
        { entryType: "recognition", effectiveAt: "2026-04-01T00:00:00.000Z", symbol: "SPYx", grossUsd: "22.52", withholdingTaxUsd: null, retainedUsd: null, usd: null },
      ]),
    );
    expect(report.totals).toMatchObject({ events: 3, unvaluedEvents: 1, grossUsd: "10", withholdingTaxUsd: "1", retainedUsd: "0", usd: "9", unvaluedGrossUsd: "22.52" });
    expect(report.rows[0]).toMatchObject({ month: "2026-03", unvaluedEvents: 0, unvaluedGrossUsd: "0" });
    expect(report.rows[1]).toMatchObject({
      month: "2026-04",
      symbol: "SPYx",
      events: 1,
      unvaluedEvents: 1,
      grossUsd: null,
      withholdingTaxUsd: null,
      retainedUsd: null,
      usd: null,
      unvaluedGrossUsd: "22.52",
    });
  });

  test("a month whose withholding is unknown for one valued event reads null, not the other event's 0", () => {
    // STRCx's August: one dividend paid without tax (withholding 0), one whose issuer kept back
    // $0.30 without saying whether as tax or retention (src/domain/cash.ts: both null).
    const at = "2026-08-14T00:00:00.000Z";
    const report = reportForPeople(
      incomeReport([
        { entryType: "recognition", effectiveAt: at, symbol: "STRCx", grossUsd: "13.372294", withholdingTaxUsd: "0", retainedUsd: "0", usd: "13.372294" },
        { entryType: "recognition", effectiveAt: at, symbol: "STRCx", grossUsd: "1", withholdingTaxUsd: null, retainedUsd: null, usd: "0.7" },
      ]),
    );
    expect(report.rows[0]).toMatchObject({ grossUsd: "14.372294", withholdingTaxUsd: null, retainedUsd: null, usd: "14.072294", unvaluedEvents: 0 });
    expect(report.totals).toMatchObject({ withholdingTaxUsd: null, retainedUsd: null });
  });
});
