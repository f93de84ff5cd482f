// The two in-memory limits (docs/api.md#limits): requests per key per minute, and failed key
// attempts per client address per minute (a lockout that refuses even a valid key).
// Fixed one-minute windows that start at a key's (or address's) first hit.

export interface WindowState {
  start: number;
  count: number;
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export function createWindowCounter(limit: () => number, windowMs = 60_000, maxEntries = 100_000) {
  const windows = new Map<string, WindowState>();
  let newest = -Infinity; // when the most recent window started: once it has ended, so have all
  const current = (id: string, now: number): WindowState => {
    let w = windows.get(id);
    if (!w || now - w.start >= windowMs) {
      // Bound memory under a flood of distinct ids: drop expired windows first.
      if (windows.size >= maxEntries) for (const [k, v] of windows) if (now - v.start >= windowMs) windows.delete(k);
      w = { start: now, count: 0 };
      windows.set(id, w);
      newest = now;
    }
    return w;
  };
  const result = (w: WindowState, now: number): LimitResult => ({
    allowed: w.count <= limit(),
    limit: limit(),
    remaining: Math.max(0, limit() - w.count),
    resetSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)),
  });
  return {
    /** Counts one hit and says whether it is within the limit. */
    hit(id: string, now = Date.now()): LimitResult {
      const w = current(id, now);
      w.count++;
      return result(w, now);
    },
    /** Says whether the id is already over the limit, without counting. */
    blocked(id: string, now = Date.now()): LimitResult | null {
      const w = windows.get(id);
      if (!w || now - w.start >= windowMs) return null;
      return w.count >= limit() ? { ...result(w, now), allowed: false } : null;
    },
    /**
     * No id has a window open, so none is blocked: a caller can skip working out which id it is
     * (the lockout's client address, read from the socket) until it has something to count.
     */
    idle(now = Date.now()): boolean {
      return now - newest >= windowMs;
    },
    /** The id's current window, without counting (for headers on a refused request). */
    peek(id: string, now = Date.now()): LimitResult {
      const w = windows.get(id);
      return w && now - w.start < windowMs ? result(w, now) : { allowed: true, limit: limit(), remaining: limit(), resetSeconds: Math.ceil(windowMs / 1000) };
    },
  };
}
