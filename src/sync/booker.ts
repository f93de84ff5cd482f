// The one booker of a worker: runs booking rounds (see ledger/booking.ts) one at a time, a chunk
// per turn of the event loop, so the worker's sync jobs keep talking to the network meanwhile.
// A chunk the engine fails on is split until the failing wallet or mint is found; that mark is
// deferred (retried later, logged, counted by the ops status) and never holds up the others.
import { bookMarks, bookNextChunk, BUSY_WAIT_MS, ChunkFailed, markDueClockChanges, type BookingOptions, type ChunkResult } from "../ledger/booking.ts";
import { deferDirty } from "../ledger/dirty.ts";
import type { Db } from "../ledger/sql/port.ts";
import { isBusy } from "../ledger/sql/errors.ts";
import type { Logger } from "../log.ts";

export interface Booker {
  /** Resolves once a round that started after this call has finished. */
  request(): Promise<void>;
  /**
   * Empties the ledger's log if a round wrote to it and booking is idle now (the worker calls it
   * each tick, so an attempt that found another connection reading is tried again).
   */
  emptyLogIfIdle(): Promise<void>;
  /** Rounds and chunks booked so far (tests, bench). */
  stats(): { rounds: number; chunks: ChunkResult[] };
}

/** How long a mark the engine failed on waits before it is tried again. */
export const POISON_RETRY_MS = 60 * 60 * 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createBooker(db: Db, logger: Logger, opts: BookingOptions & { now?: () => Date; stopped?: () => boolean; onError?: (e: unknown) => void; onEventsWritten?: () => void } = {}): Booker {
  const clock = opts.now ?? (() => new Date());
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const chunks: ChunkResult[] = [];
  let rounds = 0;
  // Chunks booked since the ledger's log was last emptied (docs/storage.md#the-wal).
  let unemptied = 0;
  const booked = (chunk: ChunkResult) => {
    chunks.push(chunk);
    unemptied++;
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

  /**
   * Once nothing is due any more, the WAL a round wrote is copied into the ledger and its file
   * emptied, rather than left on disk (up to its size limit) until the next write; the log never
   * waits for anyone to do it (Db.emptyLog). A no-op on PostgreSQL.
   */
  async function emptyLogIfIdle(): Promise<void> {
    const since = unemptied;
    if (!since || current || opts.stopped?.()) return;
    if (await db.emptyLog()) unemptied -= since; // a chunk booked meanwhile waits for the next time
  }

  function request(): Promise<void> {
    if (!current) {
      current = round().finally(() => (current = null));
      // Not awaited: the caller's round has ended; the worker's tick tries again if need be.
      current.then(
        () =>
          (queued ? Promise.resolve() : emptyLogIfIdle()).catch((e) => {
            if (!opts.stopped?.()) logger.warn("emptying the log failed", { error: String((e as Error)?.message ?? e) });
          }),
        () => {}, // the caller hears of a round that failed
      );
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

  return { request, emptyLogIfIdle, stats: () => ({ rounds, chunks }) };
}
