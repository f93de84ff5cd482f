import type { Sql } from "../sql/port.ts";
import type { JobRow, JobStatus } from "../sync-jobs.ts";

export async function listWallets(db: Sql, tenantId: number) {
  const rows = await db.all<{ owner: string; registered_at: string; status: JobStatus }>(
    `SELECT w.owner, w.registered_at, coalesce(j.status, 'queued') AS status
     FROM tenant_wallets w LEFT JOIN sync_jobs j ON j.tenant_id = w.tenant_id AND j.owner = w.owner
     WHERE w.tenant_id = ? ORDER BY w.registered_at, w.owner`,
    tenantId,
  );
  return rows.map((r) => ({ owner: r.owner, registeredAt: r.registered_at, status: r.status }));
}

export async function walletStatus(db: Sql, tenantId: number, owner: string) {
  const j = await db.get<JobRow>("SELECT * FROM sync_jobs WHERE tenant_id = ? AND owner = ?", tenantId, owner);
  if (!j) return null;
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
