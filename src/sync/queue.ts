// The sync queue lives in SQLite (docs/operations.md#sync-queue): one job row per tenant × wallet, claimed with a
// lease so a job that was running when the process died is claimed again after the lease ends.
// Every transition is one statement or one IMMEDIATE transaction. A finished job is not the end:
// every registered wallet is followed, so a finished job runs again at its `next_sync_at`.
import type { Database } from "bun:sqlite";

export const maxAttempts = 5;
// How long a claimed job is held before another claim may take it (a crashed worker's job runs
// again after this). Tests shorten it; operators have no reason to.
export const leaseSeconds = Number(process.env.CA_LEDGER_SYNC_LEASE_SECONDS ?? 120);

export type JobStatus = "queued" | "running" | "complete" | "partial" | "failed";

export interface JobRow {
  id: number; tenant_id: number; owner: string; status: JobStatus; requested_at: string; started_at: string | null;
  finished_at: string | null; lease_until: string | null; attempts: number; next_retry_at: string | null;
  phase: string | null; progress_done: number; progress_total: number; transactions_fetched: number; gaps: string; error: string | null;
  next_sync_at: string | null; deadline_passed_at: string | null;
}

export interface EnqueueResult { registration: "registered" | "already_registered"; status: "queued" | "running"; job: "enqueued" | "already_pending" }

export class QuotaExceeded extends Error {}

/** Registers the wallet for the tenant (within its quota) and queues a sync unless one is pending. */
export function registerAndEnqueue(sqlite: Database, tenantId: number, maxWallets: number, owner: string, now = new Date()): EnqueueResult {
  const at = now.toISOString();
  return sqlite.transaction((): EnqueueResult => {
    const known = sqlite.query("SELECT 1 FROM tenant_wallets WHERE tenant_id = ? AND owner = ?").get(tenantId, owner);
    if (!known) {
      const { n } = sqlite.query("SELECT count(*) AS n FROM tenant_wallets WHERE tenant_id = ?").get(tenantId) as { n: number };
      if (n >= maxWallets) throw new QuotaExceeded(`This tenant already has its maximum of ${maxWallets} wallets.`);
      sqlite.query("INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (?, ?, ?)").run(tenantId, owner, at);
    }
    const job = sqlite.query("SELECT status FROM sync_jobs WHERE tenant_id = ? AND owner = ?").get(tenantId, owner) as { status: JobStatus } | null;
    const registration = known ? "already_registered" : "registered";
    if (job && (job.status === "queued" || job.status === "running")) return { registration, status: job.status, job: "already_pending" };
    if (job) {
      sqlite.query(
        `UPDATE sync_jobs SET status = 'queued', requested_at = ?, started_at = NULL, finished_at = NULL, lease_until = NULL,
         attempts = 0, next_retry_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL
         WHERE tenant_id = ? AND owner = ?`,
      ).run(at, tenantId, owner);
    } else {
      sqlite.query("INSERT INTO sync_jobs (tenant_id, owner, status, requested_at) VALUES (?, ?, 'queued', ?)").run(tenantId, owner, at);
    }
    return { registration, status: "queued", job: "enqueued" };
  }).immediate();
}

/**
 * Claims the most urgent runnable job: queued and due (a request or a retry), running with an
 * expired lease (its process died), or finished and due to be followed again. A wallet another
 * job is syncing right now waits: two jobs would walk the same accounts for nothing.
 */
export function claimJob(sqlite: Database, now = new Date()): JobRow | null {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  return sqlite.transaction((): JobRow | null => {
    const row = sqlite.query(
      `SELECT j.id, j.status FROM sync_jobs j
       WHERE ((j.status = 'queued' AND (j.next_retry_at IS NULL OR j.next_retry_at <= ?1))
          OR (j.status = 'running' AND j.lease_until < ?1)
          OR (j.status IN ('complete', 'partial', 'failed') AND j.next_sync_at IS NOT NULL AND j.next_sync_at <= ?1))
         AND NOT EXISTS (SELECT 1 FROM sync_jobs o WHERE o.owner = j.owner AND o.id <> j.id AND o.status = 'running' AND o.lease_until >= ?1)
       ORDER BY CASE j.status WHEN 'queued' THEN 0 WHEN 'running' THEN 1 ELSE 2 END, coalesce(j.next_sync_at, j.requested_at), j.id LIMIT 1`,
    ).get(at) as { id: number; status: JobStatus } | null;
    if (!row) return null;
    if (row.status === "queued" || row.status === "running") {
      sqlite.query("UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ?), lease_until = ?, attempts = attempts + 1 WHERE id = ?").run(at, lease, row.id);
    } else {
      // Followed again: a new run, requested by the schedule.
      sqlite.query(
        `UPDATE sync_jobs SET status = 'running', requested_at = next_sync_at, started_at = ?, finished_at = NULL, lease_until = ?, attempts = 1,
         next_retry_at = NULL, next_sync_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL WHERE id = ?`,
      ).run(at, lease, row.id);
    }
    return sqlite.query("SELECT * FROM sync_jobs WHERE id = ?").get(row.id) as JobRow;
  }).immediate();
}

/**
 * Claims the job of one tenant × wallet for a foreground sync: queued (due or still backing off:
 * the operator asked for it now) or running with an expired lease. A running job under a live
 * lease belongs to a server: `held` then.
 */
export function claimWalletJob(sqlite: Database, tenantId: number, owner: string, now = new Date()): { job: JobRow } | { held: JobRow } {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  return sqlite.transaction(() => {
    const row = sqlite.query("SELECT * FROM sync_jobs WHERE tenant_id = ? AND owner = ?").get(tenantId, owner) as JobRow;
    if (row.status === "running" && row.lease_until !== null && row.lease_until >= at) return { held: row };
    sqlite.query(
      "UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ?), lease_until = ?, attempts = attempts + 1 WHERE id = ?",
    ).run(at, lease, row.id);
    return { job: sqlite.query("SELECT * FROM sync_jobs WHERE id = ?").get(row.id) as JobRow };
  }).immediate();
}

export function reportProgress(sqlite: Database, id: number, p: { phase: string; done: number; total: number; transactionsFetched?: number }, now = new Date()): void {
  sqlite.query(
    "UPDATE sync_jobs SET phase = ?, progress_done = ?, progress_total = ?, transactions_fetched = coalesce(?, transactions_fetched), lease_until = ? WHERE id = ? AND status = 'running'",
  ).run(p.phase, p.done, p.total, p.transactionsFetched ?? null, new Date(now.getTime() + leaseSeconds * 1000).toISOString(), id);
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
 * wallet's books, and the wallet is followed: the job runs again at `next_sync_at`.
 */
export function finishJob(sqlite: Database, id: number, outcome: JobOutcome, now = new Date(), resyncSeconds = 0): void {
  const at = now.toISOString();
  const status: JobStatus = outcome.gaps.length ? "partial" : "complete";
  sqlite.transaction(() => {
    sqlite.query(
      `UPDATE sync_jobs SET status = ?, finished_at = ?, lease_until = NULL, phase = 'done', gaps = ?, transactions_fetched = ?,
       error = NULL, next_retry_at = NULL, next_sync_at = ?, deadline_passed_at = ? WHERE id = ?`,
    ).run(status, at, JSON.stringify(outcome.gaps), outcome.transactionsFetched, nextSyncAt(now, resyncSeconds), outcome.deadlinePassed ? at : null, id);
    sqlite.query(
      `UPDATE tenant_wallets SET first_synced_at = ?1 WHERE first_synced_at IS NULL
       AND tenant_id = (SELECT tenant_id FROM sync_jobs WHERE id = ?2) AND owner = (SELECT owner FROM sync_jobs WHERE id = ?2)`,
    ).run(at, id);
  }).immediate();
}

/**
 * Records a failure: queued again with backoff until maxAttempts, then failed; a failed wallet is
 * still followed, and tried again at its next scheduled sync.
 */
export function failJob(sqlite: Database, id: number, error: string, now = new Date(), random = Math.random, resyncSeconds = 0): void {
  const job = sqlite.query("SELECT attempts FROM sync_jobs WHERE id = ?").get(id) as { attempts: number } | null;
  if (!job) return;
  if (job.attempts >= maxAttempts) {
    sqlite.query("UPDATE sync_jobs SET status = 'failed', finished_at = ?, lease_until = NULL, error = ?, next_retry_at = NULL, next_sync_at = ? WHERE id = ?")
      .run(now.toISOString(), error, nextSyncAt(now, resyncSeconds, random), id);
    return;
  }
  const delay = Math.min(3600, 5 * 2 ** (job.attempts - 1)) * (0.75 + random() * 0.5);
  const next = new Date(now.getTime() + delay * 1000).toISOString();
  sqlite.query("UPDATE sync_jobs SET status = 'queued', lease_until = NULL, error = ?, next_retry_at = ? WHERE id = ?").run(error, next, id);
}

export function jobCounts(sqlite: Database): Record<JobStatus, number> {
  const out: Record<JobStatus, number> = { queued: 0, running: 0, complete: 0, partial: 0, failed: 0 };
  for (const r of sqlite.query("SELECT status, count(*) AS n FROM sync_jobs GROUP BY status").all() as { status: JobStatus; n: number }[]) out[r.status] = r.n;
  return out;
}
