// The sync worker: follows every registered wallet. It polls the issuer feed and the mints, runs
// up to SYNC_CONCURRENCY sync jobs at once (requests, retries and scheduled re-syncs), plus one
// spare slot for a tenant that has nothing running (docs/operations.md#fair-share), and books
// what they stored through one booker. In `serve` it runs on its own thread (thread.ts) with its
// own SQLite connection, so neither the engine nor a booking transaction ever runs on the thread
// that answers HTTP. Every step writes through the store and the booking, which are
// transactional and idempotent, so a crash at any point is repaired by running the step again.
import { markStaleWallets } from "../ledger/dirty.ts";
import type { Logger } from "../log.ts";
import { createBooker, type Booker } from "./booker.ts";
import { pollIssuer } from "./issuer-poll.ts";
import { runSyncJob, type SyncDeps } from "./job.ts";
import { pollMints } from "./mint-poll.ts";
import { claimJob, type JobRow } from "../ledger/queue.ts";

export type WorkerDeps = Omit<SyncDeps, "book" | "signal">;

export interface Worker {
  /** Looks for work now (a wallet was just registered). */
  wake(): void;
  /** Stops within about a second: jobs in flight are abandoned to their lease. */
  stop(): Promise<void>;
  /** Aborts a run in flight here whose wallet was removed: it stops reading and writes nothing more. */
  cancel(jobId: number): void;
  booker: Booker;
}

/** How often a wallet's derived figures (yield windows, announced events) are refreshed by the clock alone. */
export const REFRESH_SECONDS = 24 * 3600;
const TICK_MS = 500;
/** A step that keeps failing (the database gone, a disk full) is tried less and less often, up to this. */
const MAX_BACKOFF_MS = 30_000;

export function startWorker(deps: WorkerDeps & { pollNetwork: boolean }): Worker {
  let stopped = false;
  const abort = new AbortController();
  const logger: Logger = deps.logger;
  const clock = deps.now ?? (() => new Date());
  const booker = createBooker(deps.db, logger, { now: clock, stopped: () => stopped, onError: deps.onError, onEventsWritten: deps.onEventsWritten });
  const stepDeps: SyncDeps = { ...deps, signal: abort.signal, book: () => booker.request() };
  const running = new Set<Promise<unknown>>();
  let wake: () => void = () => {};
  let lastIssuer = 0,
    lastMint = 0,
    lastRefresh = 0;
  let jobsInFlight = 0;
  let spareInFlight = false;
  // Each run's own abort, beside the worker's: a removed wallet's run stops alone (cancel).
  const runs = new Map<number, AbortController>();
  const run = (job: JobRow, done: () => void) => {
    const controller = new AbortController();
    runs.set(job.id, controller);
    track(
      "sync",
      runSyncJob({ ...stepDeps, signal: AbortSignal.any([abort.signal, controller.signal]) }, job).finally(() => {
        runs.delete(job.id);
        done();
        wake();
      }),
    );
  };

  const track = (name: string, p: Promise<unknown>) => {
    const tracked = p
      .catch((e) => {
        if (stopped) return;
        deps.onError?.(e);
        logger.warn(`${name} failed`, { error: String((e as Error)?.message ?? e) });
      })
      .finally(() => running.delete(tracked));
    running.add(tracked);
  };

  const tick = async () => {
    const nowMs = Date.now();
    track("emptying the log", booker.emptyLogIfIdle());
    if (deps.pollNetwork && nowMs - lastIssuer >= deps.config.issuerPollSeconds * 1000) {
      lastIssuer = nowMs;
      track(
        "issuer poll",
        pollIssuer(stepDeps).then(() => booker.request()),
      );
    }
    if (deps.pollNetwork && nowMs - lastMint >= deps.config.mintPollSeconds * 1000) {
      lastMint = nowMs;
      track(
        "mint poll",
        pollMints(stepDeps).then(() => booker.request()),
      );
    }
    if (deps.pollNetwork && nowMs - lastRefresh >= 60_000) {
      lastRefresh = nowMs;
      // Books last derived a day ago or more: yields and announced events move with the clock.
      const now = clock();
      if (await markStaleWallets(deps.db, new Date(now.getTime() - REFRESH_SECONDS * 1000), now)) track("refresh", booker.request());
    }
    // Jobs: up to SYNC_CONCURRENCY at once (polls share the RPC limits but not these slots).
    while (deps.pollNetwork && jobsInFlight < deps.config.syncConcurrency) {
      const job = await claimJob(deps.db, clock());
      if (!job) break;
      jobsInFlight++;
      run(job, () => jobsInFlight--);
    }
    // Every slot is taken (by one tenant's hung syncs, say): a tenant with nothing running still
    // gets one, so it never waits for another tenant's provider to answer.
    if (deps.pollNetwork && jobsInFlight >= deps.config.syncConcurrency && !spareInFlight) {
      const job = await claimJob(deps.db, clock(), { idleTenantOnly: true });
      if (job) {
        spareInFlight = true;
        run(job, () => (spareInFlight = false));
      }
    }
  };

  const loop = async () => {
    // Marks left by a crash between storing and booking (or by an upgrade) are booked first.
    track("start-up booking", booker.request());
    // A step that keeps failing is logged once when it starts failing (and again only if the
    // cause changes), and tried with a growing pause; once it works again, that is logged too.
    let failing: string | null = null;
    let pause = TICK_MS;
    while (!stopped) {
      try {
        await tick();
        if (failing !== null) logger.info("worker step works again", { after: failing });
        failing = null;
        pause = TICK_MS;
      } catch (e) {
        if (stopped) break;
        deps.onError?.(e);
        const error = String((e as Error)?.message ?? e);
        if (error !== failing) logger.error("worker step failed", { error, retryingEveryUpToSeconds: MAX_BACKOFF_MS / 1000 });
        failing = error;
        pause = Math.min(MAX_BACKOFF_MS, pause * 2);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, pause);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  };
  const done = loop();
  return {
    wake: () => wake(),
    cancel: (jobId) => runs.get(jobId)?.abort(new Error("wallet removed")),
    booker,
    async stop() {
      stopped = true;
      abort.abort(new Error("worker stopping"));
      wake();
      await Promise.race([Promise.all([done, ...running]), new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}
