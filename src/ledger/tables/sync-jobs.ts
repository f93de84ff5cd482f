// The sync queue's rows (queue.ts): one job per tenant × wallet, with its lease, retries and
// progress; and the counts the operator's status reads.
import { forUpdate, query, sql, statements, type Param } from "../sql/statement.ts";

export type JobStatus = "queued" | "running" | "complete" | "partial" | "failed";

export interface JobRow {
  id: number;
  tenant_id: number;
  owner: string;
  status: JobStatus;
  requested_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_until: string | null;
  attempts: number;
  next_retry_at: string | null;
  phase: string | null;
  progress_done: number;
  progress_total: number;
  transactions_fetched: number;
  gaps: string;
  error: string | null;
  next_sync_at: string | null;
  deadline_passed_at: string | null;
}

/** Runnable at `at`, and its wallet not being synced now (a running job with an expired lease is not). */
const runnable = (at: Param<string>) => sql`((j.status = 'queued' AND (j.next_retry_at IS NULL OR j.next_retry_at <= ${at}))
      OR (j.status = 'running' AND j.lease_until < ${at})
      OR (j.status IN ('complete', 'partial', 'failed') AND j.next_sync_at IS NOT NULL AND j.next_sync_at <= ${at}))
    AND j.owner NOT IN (SELECT owner FROM sync_jobs WHERE status = 'running' AND lease_until >= ${at})`;

/** The tenants with a runnable job: fewest syncs running first, then the one served longest ago. */
const tenantsInTurn = (idleOnly: boolean) =>
  query<{ at: string }, { tenant_id: number }>(
    (p) => sql`SELECT t.tenant_id FROM (
         SELECT c.tenant_id,
           (SELECT count(*) FROM sync_jobs r WHERE r.tenant_id = c.tenant_id AND r.status = 'running' AND r.lease_until >= ${p.at}) AS running,
           (SELECT coalesce(max(s.started_at), '') FROM sync_jobs s WHERE s.tenant_id = c.tenant_id) AS served
         FROM (SELECT DISTINCT j.tenant_id FROM sync_jobs j WHERE ${runnable(p.at)}) c
       ) t${idleOnly ? sql` WHERE t.running = 0` : sql``}
       ORDER BY t.running, t.served, t.tenant_id`,
  );

export const syncJobSql = statements("sync_jobs", {
  byId: query<{ id: number }, JobRow>((p) => sql`SELECT * FROM sync_jobs WHERE id = ${p.id}`),
  ofWallet: query<{ tenantId: number; owner: string }, JobRow>((p) => sql`SELECT * FROM sync_jobs WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`),
  /** The same, locked for this transaction on PostgreSQL (a claim on it elsewhere is waited for). */
  ofWalletForUpdate: query<{ tenantId: number; owner: string }, JobRow>((p) => sql`SELECT * FROM sync_jobs WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}${forUpdate()}`),
  insert: query<{ tenantId: number; owner: string; at: string }>((p) => sql`INSERT INTO sync_jobs (tenant_id, owner, status, requested_at) VALUES (${p.tenantId}, ${p.owner}, 'queued', ${p.at})`),
  /** Queued again as a new request. */
  requeue: query<{ tenantId: number; owner: string; at: string }>(
    (p) => sql`UPDATE sync_jobs SET status = 'queued', requested_at = ${p.at}, started_at = NULL, finished_at = NULL, lease_until = NULL,
         attempts = 0, next_retry_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL
         WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`,
  ),
  tenantsInTurn: tenantsInTurn(false),
  idleTenantsInTurn: tenantsInTurn(true),
  /** The tenant's most urgent runnable job (requests and retries before re-syncs, oldest first), locked unless another server holds it. */
  nextOfTenant: query<{ at: string; tenantId: number }, Pick<JobRow, "id" | "status">>(
    (p) => sql`SELECT j.id, j.status FROM sync_jobs j WHERE j.tenant_id = ${p.tenantId} AND ${runnable(p.at)}
         ORDER BY CASE j.status WHEN 'queued' THEN 0 WHEN 'running' THEN 1 ELSE 2 END, coalesce(j.next_sync_at, j.requested_at), j.id
         LIMIT 1${forUpdate({ of: "j", skipLocked: true })}`,
  ),
  start: query<{ id: number; at: string; lease: string }>(
    (p) => sql`UPDATE sync_jobs SET status = 'running', started_at = coalesce(started_at, ${p.at}), lease_until = ${p.lease}, attempts = attempts + 1 WHERE id = ${p.id}`,
  ),
  /** A finished job followed again: a new run, requested by the schedule. */
  restart: query<{ id: number; at: string; lease: string }>(
    (p) => sql`UPDATE sync_jobs SET status = 'running', requested_at = next_sync_at, started_at = ${p.at}, finished_at = NULL, lease_until = ${p.lease}, attempts = 1,
         next_retry_at = NULL, next_sync_at = NULL, phase = NULL, progress_done = 0, progress_total = 0, error = NULL WHERE id = ${p.id}`,
  ),
  progress: query<{ id: number; phase: string; done: number; total: number; transactionsFetched: number | null; lease: string }>(
    (p) =>
      sql`UPDATE sync_jobs SET phase = ${p.phase}, progress_done = ${p.done}, progress_total = ${p.total}, transactions_fetched = coalesce(${p.transactionsFetched}, transactions_fetched), lease_until = ${p.lease} WHERE id = ${p.id} AND status = 'running'`,
  ),
  finish: query<{ id: number; status: JobStatus; at: string; gaps: string; transactionsFetched: number; nextSyncAt: string | null; deadlinePassedAt: string | null }>(
    (p) =>
      sql`UPDATE sync_jobs SET status = ${p.status}, finished_at = ${p.at}, lease_until = NULL, phase = 'done', gaps = ${p.gaps}, transactions_fetched = ${p.transactionsFetched},
       error = NULL, next_retry_at = NULL, next_sync_at = ${p.nextSyncAt}, deadline_passed_at = ${p.deadlinePassedAt} WHERE id = ${p.id}`,
  ),
  /** Failed after every attempt: followed again at its next scheduled sync. */
  fail: query<{ id: number; at: string; error: string; nextSyncAt: string | null }>(
    (p) => sql`UPDATE sync_jobs SET status = 'failed', finished_at = ${p.at}, lease_until = NULL, error = ${p.error}, next_retry_at = NULL, next_sync_at = ${p.nextSyncAt} WHERE id = ${p.id}`,
  ),
  retry: query<{ id: number; error: string; nextRetryAt: string }>(
    (p) => sql`UPDATE sync_jobs SET status = 'queued', lease_until = NULL, error = ${p.error}, next_retry_at = ${p.nextRetryAt} WHERE id = ${p.id}`,
  ),
  deleteOfWallet: query<{ tenantId: number; owner: string }>((p) => sql`DELETE FROM sync_jobs WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`),
  countsByStatus: query<Record<never, never>, { status: JobStatus; n: number }>(() => sql`SELECT status, count(*) AS n FROM sync_jobs GROUP BY status`),

  // ---- the operator's status (queries/ops.ts)
  /** When the oldest due sync (requested or scheduled) became due. */
  oldestDue: query<{ at: string }, { t: string | null }>(
    (p) => sql`SELECT min(t) AS t FROM (SELECT min(requested_at) AS t FROM sync_jobs WHERE status = 'queued' AND (next_retry_at IS NULL OR next_retry_at <= ${p.at})
     UNION ALL SELECT min(next_sync_at) FROM sync_jobs WHERE status IN ('complete', 'partial', 'failed') AND next_sync_at <= ${p.at}) AS due`,
  ),
  runningSince: query<{ before: string }, { n: number }>((p) => sql`SELECT count(*) AS n FROM sync_jobs WHERE status = 'running' AND started_at < ${p.before}`),
  overran: query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM sync_jobs WHERE deadline_passed_at IS NOT NULL`),
  /** Running jobs whose lease was last renewed before `quietSince` would set it. */
  quiet: query<{ quietSince: string }, { n: number }>((p) => sql`SELECT count(*) AS n FROM sync_jobs WHERE status = 'running' AND lease_until < ${p.quietSince}`),
  dueBefore: query<{ before: string }, { n: number }>(
    (p) => sql`SELECT count(*) AS n FROM sync_jobs WHERE (status = 'queued' AND coalesce(next_retry_at, requested_at) < ${p.before})
     OR (status IN ('complete', 'partial', 'failed') AND next_sync_at < ${p.before})`,
  ),
  /** A job's tenant and wallet with what its last sync told them (change-events.ts syncEndBefore). */
  syncEndWatch: query<{ id: number }, { tenant_id: number; owner: string; gaps: string; first_synced_at: string | null; synced_journal_id: number | null }>(
    (p) =>
      sql`SELECT j.tenant_id, j.owner, j.gaps, w.first_synced_at, w.synced_journal_id
       FROM sync_jobs j JOIN tenant_wallets w ON w.tenant_id = j.tenant_id AND w.owner = j.owner WHERE j.id = ${p.id}`,
  ),
});

/** A tenant's sync of a wallet as GET /v1/wallets/{owner}/status shows it (and wallet.* events carry). */
export function walletStatusFromRow(owner: string, j: JobRow) {
  return {
    owner,
    status: j.status,
    requestedAt: j.requested_at,
    startedAt: j.started_at,
    finishedAt: j.finished_at,
    progress: { phase: j.phase, done: j.progress_done, total: j.progress_total },
    transactionsFetched: j.transactions_fetched,
    gaps: JSON.parse(j.gaps) as { address: string; reason: string }[],
    error: j.error,
    attempts: j.attempts,
    nextRetryAt: j.next_retry_at,
  };
}
