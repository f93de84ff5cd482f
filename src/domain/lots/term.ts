// Holding term: long when the disposal's UTC date is after the first anniversary of the
// acquisition's UTC date, else short. A lot acquired on 29 February has its anniversary on
// 28 February of a common year (docs/lots.md#term).
import type { Term } from "./types";

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The UTC calendar date of a unix-ms instant as one comparable number, yyyymmdd. */
function dateNumber(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}

/** The first anniversary of the acquisition's UTC date, yyyymmdd. */
export function firstAnniversary(acquiredAt: number): number {
  const d = new Date(acquiredAt);
  const year = d.getUTCFullYear() + 1;
  const month = d.getUTCMonth() + 1;
  const day = month === 2 && d.getUTCDate() === 29 && !isLeap(year) ? 28 : d.getUTCDate();
  return year * 10_000 + month * 100 + day;
}

export function termOf(acquiredAt: number, disposedAt: number): Term {
  return dateNumber(disposedAt) > firstAnniversary(acquiredAt) ? "long" : "short";
}
