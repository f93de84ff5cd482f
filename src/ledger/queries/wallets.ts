import type { Sql } from "../sql/port.ts";
import { syncJobSql } from "../tables/sync-jobs.ts";
import { tenantWalletSql } from "../tables/tenant-wallets.ts";

export async function listWallets(db: Sql, tenantId: number) {
  const rows = await db.all(tenantWalletSql.withStatus, { tenantId });
  return rows.map((r) => ({ owner: r.owner, registeredAt: r.registered_at, status: r.status }));
}

export async function walletStatus(db: Sql, tenantId: number, owner: string) {
  const j = await db.get(syncJobSql.ofWallet, { tenantId, owner });
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
