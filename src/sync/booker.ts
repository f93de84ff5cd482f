// The one booker of a worker: runs booking rounds (see ledger/booking.ts) one at a time, a chunk
// per turn of the event loop, so the worker's sync jobs keep talking to the network meanwhile.
// A chunk the engine fails on is split until the failing wallet or mint is found; that mark is
// deferred (retried later, logged, counted by the ops status) and never holds up the others.
import { bookMarks, bookNextChunk, BUSY_WAIT_MS, ChunkFailed, markDueClockChanges, type BookingOptions, type ChunkResult } from "../ledger/booking.ts";
import { deferDirty } from "../ledger/dirty.ts";
import type { Sql } from "../ledger/sql/port.ts";
import { isBusy } from "../ledger/sql/errors.ts";
import type { Logger } from "../log.ts";

export interface Booker {
  /** Resolves once a round that started after this call has finished. */
  request(): Promise<void>;
  /** Rounds and chunks booked so far (tests, bench). */
  stats(): { rounds: number; chunks: ChunkResult[] };
}

/** How long a mark the engine failed on waits before it is tried again. */
export const POISON_RETRY_MS = 60 * 60 * 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createBooker(db: Sql, logger: Logger, opts: BookingOptions & { now?: () => Date; stopped?: () => boolean; onError?: (e: unknown) => void; onEventsWritten?: () => void } = {}): Booker {
  const clock = opts.now ?? (() => new Date());
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const chunks: ChunkResult[] = [];
  let rounds = 0;
  const booked = (chunk: ChunkResult) => {
    chunks.push(chunk);
    if (chunk.events) opts.onEventsWritten?.(); // the delivery worker looks at once
  };

  async function round(): Promise<void> {
    const now = clock();
    await markDueClockChanges(db, now);
    while (!opts.stopped?.()) {
      let chunk: ChunkResult | null | "busy";
      try {
        chunk = await bookNextChunk(db, now, opts);
      } catch (e) {
        if (!(e instanceof ChunkFailed) || isBusy(e.cause)) throw e;
        await isolate(e, now);
        continue;
      }
      if (!chunk) break;
      // Every due mark is another server's chunk: wait for it, so this round ends with them booked.
      if (chunk === "busy") await Bun.sleep(BUSY_WAIT_MS);
      else booked(chunk);
      await nextTurn();
    }
    rounds++;
  }

  /** Books the failed chunk's marks one by one; each one that still fails is deferred. */
  async function isolate(failed: ChunkFailed, now: Date): Promise<void> {
    for (const mark of failed.marks) {
      try {
        booked(await bookMarks(db, failed.kind, [mark], now));
      } catch (e) {
        const cause = e instanceof ChunkFailed ? e.cause : e;
        if (isBusy(cause)) throw e;
        opts.onError?.(cause);
        logger.error("booking failed; retried later", { kind: failed.kind, key: mark.key, error: String((cause as Error)?.message ?? cause) });
        await deferDirty(db, failed.kind, mark.key, new Date(now.getTime() + POISON_RETRY_MS));
      }
    }
  }

  function request(): Promise<void> {
    if (!current) {
      current = round().finally(() => (current = null));
      return current;
    }
    // A round is under way and may have read the marks before the caller stored its own: one
    // more round after it (shared by every caller that asks meanwhile).
    queued ??= current
      .catch(() => {})
      .then(() => {
        queued = null;
        return request();
      });
    return queued;
  }

  return { request, stats: () => ({ rounds, chunks }) };
}
