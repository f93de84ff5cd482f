// The sync queue lives in SQLite (docs/operations.md#sync-queue): one job row per tenant × wallet, claimed with a
// lease so a job that was running when the process died is claimed again after the lease ends.
// Every transition is one statement or one IMMEDIATE transaction.
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

/** Claims the oldest runnable job: queued and due, or running with an expired lease. */
export function claimJob(sqlite: Database, now = new Date()): JobRow | null {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  return sqlite.transaction((): JobRow | null => {
    const row = sqlite.query(
      `SELECT id FROM sync_jobs
       WHERE (status = 'queued' AND (next_retry_at IS NULL OR next_retry_at <= ?1))
          OR (status = 'running' AND lease_until < ?1)
       ORDER BY requested_at, id LIMIT 1`,
    ).get(at) as { id: number } | null;
    if (!row) return null;
    sqlite.query(
      "UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ?), lease_until = ?, attempts = attempts + 1 WHERE id = ?",
    ).run(at, lease, row.id);
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

export function finishJob(sqlite: Database, id: number, outcome: { gaps: { address: string; reason: string }[]; transactionsFetched: number }, now = new Date()): void {
  const status: JobStatus = outcome.gaps.length ? "partial" : "complete";
  sqlite.query(
    `UPDATE sync_jobs SET status = ?, finished_at = ?, lease_until = NULL, phase = 'done', gaps = ?, transactions_fetched = ?,
     error = NULL, next_retry_at = NULL WHERE id = ?`,
  ).run(status, now.toISOString(), JSON.stringify(outcome.gaps), outcome.transactionsFetched, id);
}

/** Records a failure: queued again with backoff until maxAttempts, then failed for good. */
export function failJob(sqlite: Database, id: number, error: string, now = new Date(), random = Math.random): void {
  const job = sqlite.query("SELECT attempts FROM sync_jobs WHERE id = ?").get(id) as { attempts: number } | null;
  if (!job) return;
  if (job.attempts >= maxAttempts) {
    sqlite.query("UPDATE sync_jobs SET status = 'failed', finished_at = ?, lease_until = NULL, error = ?, next_retry_at = NULL WHERE id = ?").run(now.toISOString(), error, id);
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
