// Unix seconds <-> ISO-8601 UTC strings. Pure: the clock is always an argument, never read.
export function isoFromUnix(sec: number): string {
  return new Date(sec * 1000).toISOString();
}

/** Parse an ISO-8601 string to unix seconds (fractional seconds kept); null when absent/invalid. */
export function unixFromIso(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
}
