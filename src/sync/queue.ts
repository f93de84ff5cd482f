// The sync queue lives in the ledger (docs/operations.md#sync-queue): one job row per tenant × wallet, claimed with a
// lease so a job that was running when the process died is claimed again after the lease ends.
// Every transition is one statement or one transaction. Claims lock the row they take (on
// PostgreSQL `FOR UPDATE SKIP LOCKED`: servers sharing the database each take another job). A
// finished job is not the end: every registered wallet is followed, so a finished job runs again
// at its `next_sync_at`.
import { forUpdate } from "../ledger/sql/dialect.ts";
import type { Sql } from "../ledger/sql/port.ts";
import type { JobRow, JobStatus } from "../ledger/sync-jobs.ts";
import { syncEndBefore, writeSyncEndEvents } from "../ledger/outbox.ts";

export const maxAttempts = 5;
// How long a claimed job is held before another claim may take it (a crashed worker's job runs
// again after this). Tests shorten it; operators have no reason to.
export const leaseSeconds = Number(process.env.CA_LEDGER_SYNC_LEASE_SECONDS ?? 120);

export type { JobRow, JobStatus } from "../ledger/sync-jobs.ts";

export interface EnqueueResult { registration: "registered" | "already_registered"; status: "queued" | "running"; job: "enqueued" | "already_pending" }

export class QuotaExceeded extends Error {}

/**
 * Registers the wallet for the tenant (within its quota) and queues a sync unless one is pending,
 * in one write transaction: the registration and its job are stored together or not at all.
 */
export function registerAndEnqueue(db: Sql, tenantId: number, maxWallets: number, owner: string, now = new Date()): Promise<EnqueueResult> {
  const at = now.toISOString();
  return db.write(async (tx): Promise<EnqueueResult> => {
    const known = await tx.get("SELECT 1 AS one FROM tenant_wallets WHERE tenant_id = ? AND owner = ?", tenantId, owner);
    if (!known) {
      const { n } = (await tx.get<{ n: number }>("SELECT count(*) AS n FROM tenant_wallets WHERE tenant_id = ?", tenantId))!;
      if (n >= maxWallets) throw new QuotaExceeded(`This tenant already has its maximum of ${maxWallets} wallets.`);
      await tx.run("INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (?, ?, ?)", tenantId, owner, at);
    }
    const job = await tx.get<{ status: JobStatus }>("SELECT status FROM sync_jobs WHERE tenant_id = ? AND owner = ?", tenantId, owner);
    const registration = known ? "already_registered" : "registered";
    if (job && (job.status === "queued" || job.status === "running")) return { registration, status: job.status, job: "already_pending" };
    if (job) {
      await tx.run(
        `UPDATE sync_jobs SET status = 'queued', requested_at = ?, started_at = NULL, finished_at = NULL, lease_until = NULL,
         attempts = 0, next_retry_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL
         WHERE tenant_id = ? AND owner = ?`,
        at, tenantId, owner,
      );
    } else {
      await tx.run("INSERT INTO sync_jobs (tenant_id, owner, status, requested_at) VALUES (?, ?, 'queued', ?)", tenantId, owner, at);
    }
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
  // Runnable, and its wallet not being synced now (a running job with an expired lease is not).
  const runnable = `((j.status = 'queued' AND (j.next_retry_at IS NULL OR j.next_retry_at <= ?1))
      OR (j.status = 'running' AND j.lease_until < ?1)
      OR (j.status IN ('complete', 'partial', 'failed') AND j.next_sync_at IS NOT NULL AND j.next_sync_at <= ?1))
    AND j.owner NOT IN (SELECT owner FROM sync_jobs WHERE status = 'running' AND lease_until >= ?1)`;
  return db.claim(async (tx): Promise<JobRow | null> => {
    // Two steps, so neither sorts every runnable job: the tenants in their turn, then the chosen
    // tenant's most urgent job. A tenant whose runnable jobs another server holds (PostgreSQL's
    // SKIP LOCKED) passes its turn to the next.
    const tenants = await tx.all<{ tenant_id: number }>(
      `SELECT t.tenant_id FROM (
         SELECT c.tenant_id,
           (SELECT count(*) FROM sync_jobs r WHERE r.tenant_id = c.tenant_id AND r.status = 'running' AND r.lease_until >= ?1) AS running,
           (SELECT coalesce(max(s.started_at), '') FROM sync_jobs s WHERE s.tenant_id = c.tenant_id) AS served
         FROM (SELECT DISTINCT j.tenant_id FROM sync_jobs j WHERE ${runnable}) c
       ) t${opts.idleTenantOnly ? " WHERE t.running = 0" : ""}
       ORDER BY t.running, t.served, t.tenant_id`,
      at,
    );
    let row: { id: number; status: JobStatus } | null = null;
    for (const { tenant_id } of tenants) {
      row = await tx.get<{ id: number; status: JobStatus }>(
        `SELECT j.id, j.status FROM sync_jobs j WHERE j.tenant_id = ?2 AND ${runnable}
         ORDER BY CASE j.status WHEN 'queued' THEN 0 WHEN 'running' THEN 1 ELSE 2 END, coalesce(j.next_sync_at, j.requested_at), j.id
         LIMIT 1${forUpdate(tx, { of: "j", skipLocked: true })}`,
        at, tenant_id,
      );
      if (row) break;
    }
    if (!row) return null;
    if (row.status === "queued" || row.status === "running") {
      await tx.run("UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ?), lease_until = ?, attempts = attempts + 1 WHERE id = ?", at, lease, row.id);
    } else {
      // Followed again: a new run, requested by the schedule.
      await tx.run(
        `UPDATE sync_jobs SET status = 'running', requested_at = next_sync_at, started_at = ?, finished_at = NULL, lease_until = ?, attempts = 1,
         next_retry_at = NULL, next_sync_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL WHERE id = ?`,
        at, lease, row.id,
      );
    }
    return (await tx.get<JobRow>("SELECT * FROM sync_jobs WHERE id = ?", row.id))!;
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
    const row = (await tx.get<JobRow>(`SELECT * FROM sync_jobs WHERE tenant_id = ? AND owner = ?${forUpdate(tx)}`, tenantId, owner))!;
    if (row.status === "running" && row.lease_until !== null && row.lease_until >= at) return { held: row };
    await tx.run("UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ?), lease_until = ?, attempts = attempts + 1 WHERE id = ?", at, lease, row.id);
    return { job: (await tx.get<JobRow>("SELECT * FROM sync_jobs WHERE id = ?", row.id))! };
  });
}

export async function reportProgress(db: Sql, id: number, p: { phase: string; done: number; total: number; transactionsFetched?: number }, now = new Date()): Promise<void> {
  await db.run(
    "UPDATE sync_jobs SET phase = ?, progress_done = ?, progress_total = ?, transactions_fetched = coalesce(?, transactions_fetched), lease_until = ? WHERE id = ? AND status = 'running'",
    p.phase, p.done, p.total, p.transactionsFetched ?? null, new Date(now.getTime() + leaseSeconds * 1000).toISOString(), id,
  );
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
    await tx.run(
      `UPDATE sync_jobs SET status = ?, finished_at = ?, lease_until = NULL, phase = 'done', gaps = ?, transactions_fetched = ?,
       error = NULL, next_retry_at = NULL, next_sync_at = ?, deadline_passed_at = ? WHERE id = ?`,
      status, at, JSON.stringify(outcome.gaps), outcome.transactionsFetched, nextSyncAt(now, resyncSeconds), outcome.deadlinePassed ? at : null, id,
    );
    await tx.run(
      `UPDATE tenant_wallets SET first_synced_at = ?1 WHERE first_synced_at IS NULL
       AND tenant_id = (SELECT tenant_id FROM sync_jobs WHERE id = ?2) AND owner = (SELECT owner FROM sync_jobs WHERE id = ?2)`,
      at, id,
    );
    // wallet.synced, wallet.gap: in the outbox with the job's end (docs/events.md#event-types).
    return told ? (await writeSyncEndEvents(tx, told, outcome.gaps, now)).length : 0;
  });
}

/**
 * Records a failure: queued again with backoff until maxAttempts, then failed; a failed wallet is
 * still followed, and tried again at its next scheduled sync.
 */
export async function failJob(db: Sql, id: number, error: string, now = new Date(), random = Math.random, resyncSeconds = 0): Promise<void> {
  const job = await db.get<{ attempts: number }>("SELECT attempts FROM sync_jobs WHERE id = ?", id);
  if (!job) return;
  if (job.attempts >= maxAttempts) {
    await db.run("UPDATE sync_jobs SET status = 'failed', finished_at = ?, lease_until = NULL, error = ?, next_retry_at = NULL, next_sync_at = ? WHERE id = ?",
      now.toISOString(), error, nextSyncAt(now, resyncSeconds, random), id);
    return;
  }
  const delay = Math.min(3600, 5 * 2 ** (job.attempts - 1)) * (0.75 + random() * 0.5);
  const next = new Date(now.getTime() + delay * 1000).toISOString();
  await db.run("UPDATE sync_jobs SET status = 'queued', lease_until = NULL, error = ?, next_retry_at = ? WHERE id = ?", error, next, id);
}

export async function jobCounts(db: Sql): Promise<Record<JobStatus, number>> {
  const out: Record<JobStatus, number> = { queued: 0, running: 0, complete: 0, partial: 0, failed: 0 };
  for (const r of await db.all<{ status: JobStatus; n: number }>("SELECT status, count(*) AS n FROM sync_jobs GROUP BY status")) out[r.status] = r.n;
  return out;
}

/** What removing a wallet did: whether the tenant followed it, and the run of its job in flight, if any. */
export interface Unregistered { removed: boolean; runningJobId: number | null }

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
    const job = await tx.get<{ id: number; status: JobStatus }>("SELECT id, status FROM sync_jobs WHERE tenant_id = ? AND owner = ?", tenantId, owner);
    await tx.run("DELETE FROM sync_jobs WHERE tenant_id = ? AND owner = ?", tenantId, owner);
    const { changes } = await tx.run("DELETE FROM tenant_wallets WHERE tenant_id = ? AND owner = ?", tenantId, owner);
    return { removed: changes > 0, runningJobId: job?.status === "running" ? job.id : null };
  });
}
