// A clock for tests of pacing (src/net/retry.ts Clock): time moves only when every sleeper
// waits, straight to the earliest wake-up, so spacing and waits are exact numbers whatever the
// machine's load, and a test never waits out the delays it checks.
import type { Clock } from "../../src/net/retry.ts";

export interface TestClock extends Clock {
  /** Every sleep asked for, in milliseconds, in the order asked. */
  readonly slept: number[];
}

export function testClock(start = Date.UTC(2026, 0, 1)): TestClock {
  let now = start;
  const slept: number[] = [];
  const sleepers: { at: number; seq: number; wake: () => void }[] = [];
  let seq = 0;
  let scheduled = false;
  // One wake-up per turn of the event loop: what the woken sleeper does next (a request starts,
  // another sleep is asked for) happens before time moves again.
  const wakeNext = () => {
    scheduled = false;
    sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = sleepers.shift();
    if (!next) return;
    now = Math.max(now, next.at);
    next.wake();
    if (sleepers.length) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(wakeNext);
  };
  return {
    slept,
    now: () => now,
    sleep(ms: number) {
      slept.push(ms);
      if (ms <= 0) return Promise.resolve();
      return new Promise<void>((wake) => {
        sleepers.push({ at: now + ms, seq: seq++, wake });
        schedule();
      });
    },
  };
}
