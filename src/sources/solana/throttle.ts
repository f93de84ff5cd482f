// The RPC's throttle: at most `concurrency` requests in flight, their starts at least `spacingMs`
// apart (a provider's rate limit), waiting in arrival order. Only the RPC has one: the issuer's
// feed is read a page at a time.
import type { Clock } from "../../net/retry.ts";

export interface Throttle {
  /** Waits for a slot and for the spacing since the previous start. */
  acquire(): Promise<void>;
  release(): void;
}

/** A FIFO semaphore that also keeps request starts at least `spacingMs` apart. */
export function createThrottle(concurrency: number, spacingMs: number, clock: Clock): Throttle {
  let active = 0;
  let nextStartAt = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (active < concurrency) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve)); // the releaser hands its slot over
      if (spacingMs > 0) {
        const now = clock.now();
        const at = Math.max(now, nextStartAt);
        nextStartAt = at + spacingMs;
        await clock.sleep(at - now);
      }
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}

/** `work` run in a slot of the throttle, the slot given back however it ends. */
export async function throttled<T>(throttle: Throttle, work: () => Promise<T>): Promise<T> {
  await throttle.acquire();
  try {
    return await work();
  } finally {
    throttle.release();
  }
}
