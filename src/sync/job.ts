// One sync run of one tenant × wallet: walk the wallet's chain history from the tenant's own
// cursors, store it (which marks the wallet dirty), have it booked, finish the job. Each write is
// its own transaction and idempotent, so a run cut short at any point is simply run again.
import type { Config } from "../config.ts";
import { releaseLogSpace } from "../ledger/sql/dialect.ts";
import { isDiskFull } from "../ledger/sql/errors.ts";
import type { Db, Sql } from "../ledger/sql/port.ts";
import { readCursors, scannedOf, storedChangesOf, storedUpdatesOf, storeObservations, tokenAccountsOf, walkedAddresses, type StoredCursor } from "../ledger/store.ts";
import type { Logger } from "../log.ts";
import { syncWalletChain } from "../sources/solana/chain-read/pipeline.ts";
import type { SyncCursors, SyncProgress } from "../sources/solana/chain-read/types.ts";
import { createRpc, type RpcMethod, type RpcOutcome } from "../sources/solana/rpc.ts";
import type { FetchLike } from "../net/http-transport.ts";
import { failJob, finishJob, reportProgress, type JobRow } from "../ledger/queue.ts";

export interface SyncDeps {
  db: Db;
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
  /** Books what is dirty (the worker's single booker); resolves once the run's wallet is booked. */
  book: () => Promise<void>;
  /** Every error a step hits, for the database's health (a damaged file shows first here). */
  onError?: (error: unknown) => void;
  /** A booking or a sync's end wrote events to the outbox (the delivery worker looks at once). */
  onEventsWritten?: () => void;
}

/** The RPC client a sync step uses: the provider and pacing the settings name, the test's transport and retries when given. */
export function syncRpc(deps: Pick<SyncDeps, "config" | "rpcOptions" | "fetch" | "onRpcRequest">, signal: AbortSignal | undefined) {
  return createRpc({
    concurrency: deps.config.rpcConcurrency,
    spacingMs: deps.config.rpcSpacingMs,
    ...deps.rpcOptions,
    url: deps.config.solanaRpcUrl,
    fetch: deps.fetch,
    onRequest: deps.onRpcRequest,
    signal,
  });
}

/** Authority cursors are shared by every wallet and tenant. */
export const AUTHORITY_SCOPE = "*";
/** A tenant's own cursors for the token accounts of the wallets it follows. */
export const tenantScope = (tenantId: number): string => `tenant:${tenantId}`;

export async function runSyncJob(deps: SyncDeps, job: JobRow, onProgress?: (p: SyncProgress) => void): Promise<"complete" | "partial" | "failed"> {
  const { db, config } = deps;
  const now = deps.now ?? (() => new Date());
  const deadline = AbortSignal.timeout(config.jobDeadlineSeconds * 1000);
  // A write that fails (a progress report on a full disk) ends the run at once: nothing it reads
  // could be stored, and the job must say so now, not after its walk and its lease.
  const writeFailed = new AbortController();
  const signal = AbortSignal.any([...(deps.signal ? [deps.signal] : []), deadline, writeFailed.signal]);
  const rpc = syncRpc(deps, signal);
  const started = performance.now();
  const took: Record<string, number> = {};
  const lap = (name: string, since: number) => (took[name] = Math.round(performance.now() - since));
  try {
    const scope = tenantScope(job.tenant_id);
    const progress = progressWriter(db, job.id, now, (e) => writeFailed.abort(e));
    const result = await syncWalletChain(rpc, job.owner, await cursorsFor(db, scope, job.owner), {
      now: () => Math.floor(now().getTime() / 1000),
      onProgress: (p) => {
        progress.report(p);
        onProgress?.(p);
      },
      storedChanges: storedChangesOf(db),
      knownAccounts: await tokenAccountsOf(db, job.owner),
      storedUpdates: storedUpdatesOf(db),
      alreadyScanned: scannedOf(db, job.owner),
      signal,
      maxPages: config.maxSignaturePages,
      parallel: config.rpcConcurrency,
    });
    // Stopping the worker is not the end of a run: leave the job to its lease, write nothing half-read.
    if (deps.signal?.aborted) return "failed";
    lap("chainMs", started);
    const stored = performance.now();
    const walked = new Set([job.owner, ...result.accounts.map((a) => a.tokenAccount), ...Object.keys(result.cursors.authorities)]);
    const cursors: StoredCursor[] = [
      ...Object.entries(result.cursors.accounts).map(([address, cursor]) => ({ scope, address, cursor })),
      ...Object.entries(result.cursors.authorities).map(([address, cursor]) => ({ scope: AUTHORITY_SCOPE, address, cursor })),
      ...(result.cursors.history ? [{ scope, address: historyKey(job.owner), cursor: result.cursors.history }] : []),
    ];
    await progress.settled();
    await storeObservations(
      db,
      {
        instruments: result.instruments,
        mintStates: result.mints,
        multiplierUpdates: result.multiplierUpdates,
        tokenAccounts: result.accounts,
        balanceChanges: result.balanceChanges,
        transactionChanges: result.transactionChanges,
        cursors,
        ownerScans: { owner: job.owner, signatures: result.ownerScans },
        gaps: result.gaps.map((g) => ({ owner: job.owner, address: g.address, reason: g.reason })),
        clearedGaps: [...walked].filter((a) => !result.gaps.some((g) => g.address === a)).map((address) => ({ owner: job.owner, address })),
      },
      now(),
    );
    await reportProgress(db, job.id, { phase: "booking", done: 0, total: 1, transactionsFetched: result.walletTransactions }, now());
    lap("storeMs", stored);
    const booking = performance.now();
    await deps.book();
    lap("bookMs", booking);
    const told = await finishJob(db, job.id, { gaps: result.gaps, transactionsFetched: result.walletTransactions, deadlinePassed: deadline.aborted }, now(), config.resyncSeconds);
    if (told) deps.onEventsWritten?.();
    deps.logger.debug("sync finished", { job: job.id, rpcCalls: result.rpcCalls, transactions: result.walletTransactions, ...took, totalMs: Math.round(performance.now() - started) });
    if (deadline.aborted) deps.logger.warn("sync deadline passed", { job: job.id, seconds: config.jobDeadlineSeconds });
    return result.gaps.length ? "partial" : "complete";
  } catch (caught) {
    const e = writeFailed.signal.aborted ? writeFailed.signal.reason : caught;
    // A shutdown is not a failed attempt: the job keeps its lease and runs again after it.
    if (deps.signal?.aborted || isAbort(e)) return "failed";
    deps.onError?.(e);
    const message = isDiskFull(e) ? `disk full: the ledger could not be written (${errorCode(e)}); free space on the ledger's disk` : e instanceof Error ? e.message : String(e);
    deps.logger.warn("sync failed", { job: job.id, attempt: job.attempts, error: message });
    const error = deadline.aborted ? `the sync's deadline of ${config.jobDeadlineSeconds} s passed: ${message}` : message;
    try {
      await failJob(db, job.id, error, now(), Math.random, config.resyncSeconds);
    } catch (again) {
      if (!isDiskFull(again)) throw again;
      // The disk is still full: give the write-ahead log's space back, then the small write fits.
      await releaseLogSpace(db);
      await failJob(db, job.id, error, now(), Math.random, config.resyncSeconds);
    }
    return "failed";
  }
}

const errorCode = (e: unknown): string => String((e as { code?: unknown })?.code || (e as { errno?: unknown })?.errno || "no code");

/** Where the tenant's walk of the wallet's whole history (getTransactionsForAddress) stands. */
const historyKey = (owner: string): string => `history:${owner}`;

/**
 * The tenant's cursors for the wallet's known token accounts, its own address and its whole
 * history, and every authority's shared cursor.
 */
async function cursorsFor(db: Sql, scope: string, owner: string): Promise<SyncCursors> {
  const accounts = (await tokenAccountsOf(db, owner)).map((a) => a.tokenAccount);
  const authorities = await walkedAddresses(db, AUTHORITY_SCOPE);
  const history = (await readCursors(db, scope, [historyKey(owner)]))[historyKey(owner)];
  return {
    accounts: await readCursors(db, scope, [...accounts, owner]),
    authorities: await readCursors(db, AUTHORITY_SCOPE, authorities),
    ...(history ? { history } : {}),
  };
}

/**
 * Progress as the walk reports it (synchronously, often), written in order, one write at a time:
 * a report that arrives while one is being written replaces the one waiting. `settled` waits for
 * the last, and throws what a write threw; `onFailure` hears of a failed write at once.
 */
function progressWriter(db: Sql, id: number, now: () => Date, onFailure: (e: unknown) => void) {
  let writing = false;
  let waiting: SyncProgress | null = null;
  let failed: unknown = null;
  let done: Promise<void> = Promise.resolve();
  const drain = async (first: SyncProgress) => {
    writing = true;
    try {
      for (let p: SyncProgress | null = first; p; p = waiting, waiting = null) await reportProgress(db, id, p, now());
    } catch (e) {
      failed = e;
      onFailure(e);
    } finally {
      writing = false;
    }
  };
  return {
    report(p: SyncProgress) {
      if (writing) waiting = p;
      else done = drain(p);
    },
    async settled() {
      await done;
      if (failed) throw failed;
    },
  };
}

export function isAbort(e: unknown): boolean {
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause) {
    const err = c as { name?: string; message?: string };
    if (err.name === "AbortError" || err.message === "worker stopping") return true;
  }
  return false;
}
