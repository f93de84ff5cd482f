// The sync queue lives in the ledger (docs/operations.md#sync-queue): one job row per tenant × wallet, claimed with a
// lease so a job that was running when the process died is claimed again after the lease ends.
// Every transition is one statement or one transaction. Claims lock the row they take (on
// PostgreSQL `FOR UPDATE SKIP LOCKED`: servers sharing the database each take another job). A
// finished job is not the end: every registered wallet is followed, so a finished job runs again
// at its `next_sync_at`.
import { syncEndBefore, writeSyncEndEvents } from "./change-events.ts";
import type { Sql } from "./sql/port.ts";
import { syncJobSql, type JobRow, type JobStatus } from "./tables/sync-jobs.ts";
import { tenantWalletSql } from "./tables/tenant-wallets.ts";

export type { JobRow, JobStatus };

export const maxAttempts = 5;
// How long a claimed job is held before another claim may take it (a crashed worker's job runs
// again after this). Tests shorten it; operators have no reason to.
export const leaseSeconds = Number(process.env.CA_LEDGER_SYNC_LEASE_SECONDS ?? 120);

export interface EnqueueResult {
  registration: "registered" | "already_registered";
  status: "queued" | "running";
  job: "enqueued" | "already_pending";
}

export class QuotaExceeded extends Error {}

/**
 * Registers the wallet for the tenant (within its quota) and queues a sync unless one is pending,
 * in one write transaction: the registration and its job are stored together or not at all.
 */
export function registerAndEnqueue(db: Sql, tenantId: number, maxWallets: number, owner: string, now = new Date()): Promise<EnqueueResult> {
  const at = now.toISOString();
  return db.write(async (tx): Promise<EnqueueResult> => {
    const known = await tx.get(tenantWalletSql.registered, { tenantId, owner });
    if (!known) {
      const { n } = (await tx.get(tenantWalletSql.countOfTenant, { tenantId }))!;
      if (n >= maxWallets) throw new QuotaExceeded(`This tenant already has its maximum of ${maxWallets} wallets.`);
      await tx.run(tenantWalletSql.insert, { tenantId, owner, at });
    }
    const job = await tx.get(syncJobSql.ofWallet, { tenantId, owner });
    const registration = known ? "already_registered" : "registered";
    if (job && (job.status === "queued" || job.status === "running")) return { registration, status: job.status, job: "already_pending" };
    await tx.run(job ? syncJobSql.requeue : syncJobSql.insert, { tenantId, owner, at });
    return { registration, status: "queued", job: "enqueued" };
  });
}

/** How a claim chooses (docs/operations.md#fair-share). */
export interface ClaimOptions {
  /**
   * Only a job of a tenant that has no sync running now: the worker's spare slot, so a tenant
   * whose syncs hang on its provider answers can never hold every slot against another tenant.
   */
  idleTenantOnly?: boolean;
}

/**
 * Claims the next runnable job: queued and due (a request or a retry), running with an expired
 * lease (its process died), or finished and due to be followed again. A wallet another job is
 * syncing right now waits: two jobs would walk the same accounts for nothing.
 *
 * Fair share between tenants: the job is taken from the tenant with the fewest syncs running
 * now, ties going to the tenant served longest ago (round-robin); only then the most urgent of
 * that tenant's jobs (requests and retries before scheduled re-syncs, oldest first). So a tenant
 * that registers a hundred wallets, or whose syncs hang, holds no more than an even share of the
 * slots while another tenant has a sync due.
 */
export function claimJob(db: Sql, now = new Date(), opts: ClaimOptions = {}): Promise<JobRow | null> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  return db.claim(async (tx): Promise<JobRow | null> => {
    // Two steps, so neither sorts every runnable job: the tenants in their turn, then the chosen
    // tenant's most urgent job. A tenant whose runnable jobs another server holds (PostgreSQL's
    // SKIP LOCKED) passes its turn to the next.
    const tenants = await tx.all(opts.idleTenantOnly ? syncJobSql.idleTenantsInTurn : syncJobSql.tenantsInTurn, { at });
    let row: Pick<JobRow, "id" | "status"> | null = null;
    for (const { tenant_id } of tenants) {
      row = await tx.get(syncJobSql.nextOfTenant, { at, tenantId: tenant_id });
      if (row) break;
    }
    if (!row) return null;
    // Queued or running: this run goes on. Finished: followed again, a new run.
    await tx.run(row.status === "queued" || row.status === "running" ? syncJobSql.start : syncJobSql.restart, { id: row.id, at, lease });
    return (await tx.get(syncJobSql.byId, { id: row.id }))!;
  });
}

/**
 * Claims the job of one tenant × wallet for a foreground sync: queued (due or still backing off:
 * the operator asked for it now) or running with an expired lease. A running job under a live
 * lease belongs to a server: `held` then.
 */
export function claimWalletJob(db: Sql, tenantId: number, owner: string, now = new Date()): Promise<{ job: JobRow } | { held: JobRow }> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  return db.claim(async (tx) => {
    // Not skipped: a server claiming this very row is waited for, and its claim then seen.
    const row = (await tx.get(syncJobSql.ofWalletForUpdate, { tenantId, owner }))!;
    if (row.status === "running" && row.lease_until !== null && row.lease_until >= at) return { held: row };
    await tx.run(syncJobSql.start, { id: row.id, at, lease });
    return { job: (await tx.get(syncJobSql.byId, { id: row.id }))! };
  });
}

export async function reportProgress(db: Sql, id: number, p: { phase: string; done: number; total: number; transactionsFetched?: number }, now = new Date()): Promise<void> {
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  await db.run(syncJobSql.progress, { id, phase: p.phase, done: p.done, total: p.total, transactionsFetched: p.transactionsFetched ?? null, lease });
}

/** When a finished job runs again: `resyncSeconds` later, ±20% so thousands of wallets spread out; never with 0. */
export function nextSyncAt(now: Date, resyncSeconds: number, random = Math.random): string | null {
  if (resyncSeconds <= 0) return null;
  return new Date(now.getTime() + resyncSeconds * 1000 * (0.8 + 0.4 * random())).toISOString();
}

export interface JobOutcome {
  gaps: { address: string; reason: string }[];
  transactionsFetched: number;
  deadlinePassed?: boolean;
}

/**
 * Finishes a run: complete, or partial with its named gaps. From now on the tenant sees the
 * wallet's books, and the wallet is followed: the job runs again at `next_sync_at`. The tenant's
 * `wallet.synced` and `wallet.gap` events are written in the same transaction; returns how many.
 */
export async function finishJob(db: Sql, id: number, outcome: JobOutcome, now = new Date(), resyncSeconds = 0): Promise<number> {
  const at = now.toISOString();
  const status: JobStatus = outcome.gaps.length ? "partial" : "complete";
  return db.write(async (tx) => {
    const told = await syncEndBefore(tx, id);
    await tx.run(syncJobSql.finish, {
      id,
      status,
      at,
      gaps: JSON.stringify(outcome.gaps),
      transactionsFetched: outcome.transactionsFetched,
      nextSyncAt: nextSyncAt(now, resyncSeconds),
      deadlinePassedAt: outcome.deadlinePassed ? at : null,
    });
    await tx.run(tenantWalletSql.markFirstSynced, { at, jobId: id });
    // wallet.synced, wallet.gap: in the outbox with the job's end (docs/events.md#event-types).
    return told ? (await writeSyncEndEvents(tx, told, outcome.gaps, now)).length : 0;
  });
}

/**
 * Records a failure: queued again with backoff until maxAttempts, then failed; a failed wallet is
 * still followed, and tried again at its next scheduled sync.
 */
export async function failJob(db: Sql, id: number, error: string, now = new Date(), random = Math.random, resyncSeconds = 0): Promise<void> {
  const job = await db.get(syncJobSql.byId, { id });
  if (!job) return;
  if (job.attempts >= maxAttempts) {
    await db.run(syncJobSql.fail, { id, at: now.toISOString(), error, nextSyncAt: nextSyncAt(now, resyncSeconds, random) });
    return;
  }
  const delay = Math.min(3600, 5 * 2 ** (job.attempts - 1)) * (0.75 + random() * 0.5);
  await db.run(syncJobSql.retry, { id, error, nextRetryAt: new Date(now.getTime() + delay * 1000).toISOString() });
}

export async function jobCounts(db: Sql): Promise<Record<JobStatus, number>> {
  const out: Record<JobStatus, number> = { queued: 0, running: 0, complete: 0, partial: 0, failed: 0 };
  for (const r of await db.all(syncJobSql.countsByStatus)) out[r.status] = r.n;
  return out;
}

/** What removing a wallet did: whether the tenant followed it, and the run of its job in flight, if any. */
export interface Unregistered {
  removed: boolean;
  runningJobId: number | null;
}

/**
 * The tenant stops following the wallet (docs/following.md#removing-a-wallet): its registration
 * and its job row go in one transaction, so the job is never claimed, retried nor followed again,
 * and the tenant's quota place is free. Nothing of the ledger is erased (observations, books, the
 * journal stay, and the tenant's cursors, so registering again resumes where it stopped). A run
 * in flight finds its row gone: what it still reports or finishes changes nothing; the caller
 * may abort it (`runningJobId`).
 */
export function unregisterWallet(db: Sql, tenantId: number, owner: string): Promise<Unregistered> {
  return db.write(async (tx): Promise<Unregistered> => {
    const job = await tx.get(syncJobSql.ofWallet, { tenantId, owner });
    await tx.run(syncJobSql.deleteOfWallet, { tenantId, owner });
    const { changes } = await tx.run(tenantWalletSql.delete, { tenantId, owner });
    return { removed: changes > 0, runningJobId: job?.status === "running" ? job.id : null };
  });
}

/** A job as stored (the CLI's foreground sync reads its outcome). */
export const jobById = (db: Sql, id: number): Promise<JobRow | null> => db.get(syncJobSql.byId, { id });
