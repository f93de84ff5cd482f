// Unix seconds <-> ISO-8601 UTC strings. Pure: the clock is always an argument, never read.
export function isoFromUnix(sec: number): string {
  return new Date(sec * 1000).toISOString();
}

/** Parse an ISO-8601 string to unix seconds (fractional seconds kept); null when absent/invalid. */
export function unixFromIso(iso: string | null | undefined): number | null {
  if (!iso) return null;
  // Lifecycles sort and filter on the same few issuer times for every action: parse each once.
  let sec = parsed.get(iso);
  if (sec === undefined) {
    const ms = Date.parse(iso);
    sec = Number.isNaN(ms) ? null : ms / 1000;
    if (parsed.size >= 8192) parsed.clear();
    parsed.set(iso, sec);
  }
  return sec;
}

const parsed = new Map<string, number | null>();
