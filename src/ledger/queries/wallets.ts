import type { Sql } from "../sql/port.ts";
import { syncJobSql, walletStatusFromRow } from "../tables/sync-jobs.ts";
import { tenantWalletSql } from "../tables/tenant-wallets.ts";

export async function listWallets(db: Sql, tenantId: number) {
  const rows = await db.all(tenantWalletSql.withStatus, { tenantId });
  return rows.map((r) => ({ owner: r.owner, registeredAt: r.registered_at, status: r.status }));
}

export async function walletStatus(db: Sql, tenantId: number, owner: string) {
  const j = await db.get(syncJobSql.ofWallet, { tenantId, owner });
  return j ? walletStatusFromRow(owner, j) : null;
}
