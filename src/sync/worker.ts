// The worker runs in the server's process: it drains the SQLite job queue, polls the issuer
// feed and the mints, and re-books when new evidence arrives. Every step writes through the
// store and the replay, which are transactional and idempotent, so a crash at any point is
// repaired by running the step again.
import type { Config } from "../config.ts";
import type { Ledger } from "../ledger/db.ts";
import { replayLedger } from "../ledger/replay.ts";
import { markFeed, readCursors, replayPending, storeObservations } from "../ledger/store.ts";
import type { DatabaseHealth } from "../ledger/health.ts";
import type { Logger } from "../log.ts";
import { createRpc, type RpcMethod, type RpcOutcome } from "../sources/solana/rpc.ts";
import { syncWalletChain, type SyncProgress } from "../sources/solana/history.ts";
import { createIssuerClient } from "../sources/xstocks/client.ts";
import { issuerObservations } from "../sources/xstocks/feed.ts";
import type { FetchLike } from "../sources/retry.ts";
import { claimJob, failJob, finishJob, reportProgress, type JobRow } from "./queue.ts";

export interface WorkerDeps {
  ledger: Ledger;
  config: Config;
  logger: Logger;
  onRpcRequest?: (method: RpcMethod, outcome: RpcOutcome) => void;
  /** The transport to the outside world (tests and the demo pass a loopback or recorded one). */
  fetch?: FetchLike;
  /** Retry and pacing settings for the RPC client (tests shorten them). */
  rpcOptions?: { maxRetries?: number; baseDelayMs?: number; timeoutMs?: number; concurrency?: number };
  now?: () => Date;
  /** Aborted when the worker stops: retries end and the job is left to its lease. */
  signal?: AbortSignal;
  /** Told of every error a step hits, so damage to the database turns health red. */
  health?: Pick<DatabaseHealth, "noteError">;
}

/** Runs one claimed job to its end: fetch the wallet's chain history, store it, re-book. */
export async function runSyncJob(deps: WorkerDeps, job: JobRow, onProgress?: (p: SyncProgress) => void): Promise<"complete" | "partial" | "failed"> {
  const { ledger, config } = deps;
  const now = deps.now ?? (() => new Date());
  const rpc = createRpc({ concurrency: config.rpcConcurrency, spacingMs: config.rpcSpacingMs, ...deps.rpcOptions, url: config.solanaRpcUrl, fetch: deps.fetch, onRequest: deps.onRpcRequest, signal: deps.signal });
  try {
    const result = await syncWalletChain(rpc, job.owner, readCursors(ledger.sqlite) as Record<string, string>, {
      now: () => Math.floor(now().getTime() / 1000),
      onProgress: (p) => {
        reportProgress(ledger.sqlite, job.id, p, now());
        onProgress?.(p);
      },
    });
    const touched = new Set(result.accounts.map((a) => a.tokenAccount));
    storeObservations(ledger.sqlite, {
      mintStates: result.mints,
      multiplierUpdates: result.multiplierUpdates,
      tokenAccounts: result.accounts,
      balanceChanges: result.balanceChanges,
      cursors: result.cursors,
      gaps: result.gaps.map((g) => ({ owner: job.owner, address: g.address, reason: g.reason })),
      clearedGaps: [...touched].filter((a) => !result.gaps.some((g) => g.address === a)).map((address) => ({ owner: job.owner, address })),
    }, now());
    reportProgress(ledger.sqlite, job.id, { phase: "booking", done: 0, total: 1, transactionsFetched: result.transactionsFetched }, now());
    replayLedger(ledger.sqlite, now());
    finishJob(ledger.sqlite, job.id, { gaps: result.gaps, transactionsFetched: result.transactionsFetched }, now());
    return result.gaps.length ? "partial" : "complete";
  } catch (e) {
    // A shutdown is not a failed attempt: the job keeps its lease and runs again after it.
    if (isAbort(e)) return "failed";
    deps.health?.noteError(e);
    const message = e instanceof Error ? e.message : String(e);
    deps.logger.warn("sync failed", { job: job.id, attempt: job.attempts, error: message });
    failJob(ledger.sqlite, job.id, message, now());
    return "failed";
  }
}

function isAbort(e: unknown): boolean {
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause) {
    const err = c as { name?: string; message?: string };
    if (err.name === "AbortError" || err.message === "worker stopping") return true;
  }
  return false;
}

/** Polls the issuer feed; stores every revision (hashing each) and re-books when any is new. */
export async function pollIssuer(deps: WorkerDeps): Promise<{ added: number }> {
  const { ledger, config } = deps;
  const now = deps.now ?? (() => new Date());
  const issuer = createIssuerClient({ baseUrl: config.xstocksApiUrl, fetch: deps.fetch });
  try {
    const [assets, history, upcoming] = await Promise.all([issuer.assets(), issuer.corporateActionsHistory(), issuer.corporateActionsUpcoming()]);
    const res = storeObservations(ledger.sqlite, issuerObservations(assets, history, upcoming), now());
    markFeed(ledger.sqlite, "issuer", { ok: true }, now());
    if (res.issuerRevisionsAdded > 0 || res.instrumentsChanged > 0) replayLedger(ledger.sqlite, now());
    return { added: res.issuerRevisionsAdded };
  } catch (e) {
    deps.health?.noteError(e);
    markFeed(ledger.sqlite, "issuer", { ok: false, error: e instanceof Error ? e.message : String(e) }, now());
    throw e;
  }
}

/**
 * Re-books when a scheduled multiplier has passed its activation since the last replay: the
 * transition turns from `confirmed` to `activated` without any new observation.
 */
export function pollActivations(deps: WorkerDeps): boolean {
  const { ledger } = deps;
  const now = (deps.now ?? (() => new Date()))();
  const nowSec = Math.floor(now.getTime() / 1000);
  const due = ledger.sqlite.query(
    `SELECT count(*) AS n FROM multiplier_updates u WHERE u.effective_ts <= ?
     AND NOT EXISTS (SELECT 1 FROM transitions_seen s WHERE s.key = u.mint || ':' || u.signature || ':' || u.ix_index)
     AND EXISTS (SELECT 1 FROM actions a WHERE a.mint = u.mint AND a.state = 'confirmed')`,
  ).get(nowSec) as { n: number };
  markFeed(ledger.sqlite, "mint_poll", { ok: true }, now);
  if (due.n === 0) return false;
  replayLedger(ledger.sqlite, now);
  return true;
}

export function startWorker(deps: WorkerDeps & { pollNetwork: boolean }) {
  let stopped = false;
  // Stopping aborts the requests in flight: a cut job keeps its lease and is claimed again after
  // it, and every write it made was its own transaction, so nothing is half-booked.
  const abort = new AbortController();
  const base = deps.fetch ?? ((input, init) => fetch(input, init));
  const stepDeps: WorkerDeps = { ...deps, signal: abort.signal, fetch: (input, init) => base(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, abort.signal]) : abort.signal }) };
  let wake: () => void = () => {};
  let lastIssuer = 0, lastMint = 0;
  const loop = async () => {
    // A crash between storing observations and booking them leaves them unbooked, and the next
    // poll would see nothing new: the store marks a pending replay in its own transaction, and
    // the replay clears it in its own, so finish that booking first.
    try {
      if (replayPending(deps.ledger.sqlite)) replayLedger(deps.ledger.sqlite);
    } catch (e) {
      deps.logger.error("start-up replay failed", { error: String((e as Error)?.message ?? e) });
    }
    while (!stopped) {
      const nowMs = Date.now();
      try {
        if (deps.pollNetwork && nowMs - lastIssuer >= deps.config.issuerPollSeconds * 1000) {
          lastIssuer = nowMs;
          await pollIssuer(stepDeps).catch((e) => { if (!stopped) deps.logger.warn("issuer poll failed", { error: String(e?.message ?? e) }); });
        }
        if (stopped) break;
        if (nowMs - lastMint >= deps.config.mintPollSeconds * 1000) {
          lastMint = nowMs;
          pollActivations(stepDeps);
        }
        const job = deps.pollNetwork ? claimJob(deps.ledger.sqlite) : null;
        if (job) { await runSyncJob(stepDeps, job); continue; }
      } catch (e) {
        deps.health?.noteError(e);
        if (!stopped) deps.logger.error("worker step failed", { error: String((e as Error)?.message ?? e) });
      }
      await new Promise<void>((r) => { const t = setTimeout(r, 500); wake = () => { clearTimeout(t); r(); }; });
    }
  };
  const running = loop();
  return {
    /** Stops within about a second: waits for the step in hand, or abandons it to its lease. */
    async stop() {
      stopped = true;
      abort.abort(new Error("worker stopping"));
      wake();
      await Promise.race([running, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}
