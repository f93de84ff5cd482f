// Date filters: the range a from/to/year filter covers, compared with ISO-8601 times as text the way
// the list queries compare them; the property checks it against calendar arithmetic on Date.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ALL_DATES, dateRange, dayAfter, inRange, isDay, yearRange } from "../../src/domain/date-range";

const DAY_MS = 86_400_000;
const MIN = Date.UTC(1970, 0, 1);
const MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const times = fc.integer({ min: MIN, max: MAX }).map((ms) => new Date(ms).toISOString());
const days = fc.integer({ min: MIN, max: MAX }).map((ms) => new Date(ms).toISOString().slice(0, 10));

describe("calendar days", () => {
  test("real days pass, impossible ones do not", () => {
    for (const d of ["2024-02-29", "2025-12-31", "2026-01-01", "1970-01-01", "9999-12-31"]) expect(isDay(d)).toBe(true);
    for (const d of ["2025-02-29", "2025-02-30", "2025-13-01", "2025-00-10", "2025-04-31", "2025-1-01", "20250101", "2025-01-01T00:00:00Z", ""]) expect(isDay(d)).toBe(false);
  });

  test("dayAfter crosses months, years and leap days, and ends at the last nameable day", () => {
    expect(dayAfter("2024-02-28")).toBe("2024-02-29");
    expect(dayAfter("2025-02-28")).toBe("2025-03-01");
    expect(dayAfter("2025-12-31")).toBe("2026-01-01");
    expect(dayAfter("9999-12-31")).toBe(ALL_DATES.before);
  });

  test("property: every ISO day is a day, and the day after it is 24 h later", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: Date.UTC(9999, 11, 30) }), (ms) => {
        const d = new Date(ms).toISOString().slice(0, 10);
        expect(isDay(d)).toBe(true);
        expect(dayAfter(d)).toBe(new Date(Date.parse(d) + DAY_MS).toISOString().slice(0, 10));
      }),
    );
  });
});

describe("dateRange", () => {
  test("property: from/to select exactly the times whose UTC day lies between them, both included", () => {
    fc.assert(
      fc.property(days, days, times, (a, b, t) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const r = dateRange({ from, to });
        if (!r.ok) throw new Error(r.message);
        const day = t.slice(0, 10);
        expect(inRange(r.range, t)).toBe(day >= from && day <= to);
      }),
    );
  });

  test("property: a year selects exactly the times of that UTC year; an open bound selects one side", () => {
    fc.assert(
      fc.property(times, fc.integer({ min: 1970, max: 9999 }), days, (t, year, day) => {
        expect(inRange(yearRange(year), t)).toBe(new Date(t).getUTCFullYear() === year);
        const onlyFrom = dateRange({ from: day });
        const onlyTo = dateRange({ to: day });
        if (!onlyFrom.ok || !onlyTo.ok) throw new Error("refused");
        expect(inRange(onlyFrom.range, t)).toBe(t.slice(0, 10) >= day);
        expect(inRange(onlyTo.range, t)).toBe(t.slice(0, 10) <= day);
      }),
    );
  });

  test("no filter is every time, including the empty time of an action only announced", () => {
    const r = dateRange({});
    expect(r).toEqual({ ok: true, range: ALL_DATES });
    expect(inRange(ALL_DATES, "")).toBe(true);
    expect(inRange(ALL_DATES, "9999-12-31T23:59:59.999Z")).toBe(true);
  });

  test("refusals name the parameters and never echo the value", () => {
    const msg = (f: Parameters<typeof dateRange>[0]) => {
      const r = dateRange(f);
      if (r.ok) throw new Error("accepted");
      return r.message;
    };
    expect(msg({ year: 2025, from: "2025-01-01" })).toMatch(/year.*from or to/);
    expect(msg({ year: 2025, to: "2025-01-01" })).toMatch(/year.*from or to/);
    expect(msg({ from: "2025-02-30" })).toBe("Invalid query parameter from: expected a calendar day written YYYY-MM-DD (UTC).");
    expect(msg({ from: "2025-01-01", to: "2025-13-01" })).toMatch(/^Invalid query parameter to:/);
    expect(msg({ from: "2025-02-02", to: "2025-02-01" })).toMatch(/from is after to/);
    expect(msg({ to: "2025-02-31" })).not.toContain("2025-02-31");
    expect(dateRange({ from: "2025-02-01", to: "2025-02-01" }).ok).toBe(true);
  });
});
