// Date filters (docs/income-and-tax.md#date-filters): `from` and `to` (YYYY-MM-DD, UTC, both days
// included) or a calendar `year`, turned into the half-open range of times they cover. Pure.
//
// The range's bounds are day strings compared with ISO-8601 UTC times as text: "2026-01-31"
// sorts before every time of that day ("2026-01-31T…") and after every time of the day before,
// so `from <= t < before` selects exactly the days asked for, and an index on the time column
// answers it directly.

export interface DateRange {
  /** First day included (YYYY-MM-DD), or "" for no lower bound. */
  from: string;
  /** First day no longer included, or "~" (after every digit) for no upper bound. */
  before: string;
}

export const ALL_DATES: DateRange = { from: "", before: "~" };

export interface DateFilter {
  from?: string;
  to?: string;
  year?: number;
}

export type DateRangeResult = { ok: true; range: DateRange } | { ok: false; message: string };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const LAST_YEAR = 9999;

/** True when `s` is a calendar day written YYYY-MM-DD (2026-02-29 is not one). */
export function isDay(s: string): boolean {
  const m = DAY.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** The day after a calendar day; "~" after 9999-12-31, the last day a filter can name. */
export function dayAfter(day: string): string {
  const [y, mo, d] = day.split("-").map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, mo - 1, d + 1));
  if (next.getUTCFullYear() > LAST_YEAR) return ALL_DATES.before;
  return next.toISOString().slice(0, 10);
}

export function yearRange(year: number): DateRange {
  return { from: `${String(year).padStart(4, "0")}-01-01`, before: year >= LAST_YEAR ? ALL_DATES.before : `${year + 1}-01-01` };
}

/**
 * The range a filter asks for. `year` excludes `from`/`to`; either bound alone is open on the
 * other side; `from` after `to` is refused. Messages name the parameters, never echo values.
 */
export function dateRange(f: DateFilter): DateRangeResult {
  const { from, to, year } = f;
  if (year !== undefined && (from !== undefined || to !== undefined)) {
    return { ok: false, message: "Query parameter year cannot be combined with from or to: give a year, or from and/or to." };
  }
  if (year !== undefined) return { ok: true, range: yearRange(year) };
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (value !== undefined && !isDay(value)) return { ok: false, message: `Invalid query parameter ${name}: expected a calendar day written YYYY-MM-DD (UTC).` };
  }
  if (from !== undefined && to !== undefined && from > to) return { ok: false, message: "Query parameter from is after to: from must be on or before to." };
  return { ok: true, range: { from: from ?? ALL_DATES.from, before: to === undefined ? ALL_DATES.before : dayAfter(to) } };
}

/**
 * The period a filter names, for a file name: "2025" for a year, "2025-01-01_2025-06-30" for from
 * and to, "from-2025-01-01" or "to-2025-06-30" for one bound, and with no filter "to-" the day
 * the file is made (what it covers is everything up to then). The filter is already valid.
 */
export function periodLabel(f: DateFilter, today: string): string {
  if (f.year !== undefined) return String(f.year);
  if (f.from !== undefined && f.to !== undefined) return `${f.from}_${f.to}`;
  if (f.from !== undefined) return `from-${f.from}`;
  return `to-${f.to ?? today}`;
}

/** Whether an ISO-8601 time (or day) falls in the range. */
export const inRange = (r: DateRange, iso: string): boolean => iso >= r.from && iso < r.before;
