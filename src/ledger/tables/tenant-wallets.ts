// The wallets each tenant follows: registered, and from its first finished sync its books visible.
import { inList, query, sql, statements } from "../sql/statement.ts";
import type { JobStatus } from "./sync-jobs.ts";

export interface TenantWalletRow {
  tenant_id: number;
  owner: string;
  registered_at: string;
  first_synced_at: string | null;
}

/**
 * Whether the tenant sees the wallet's books: only once its own first sync of it finished,
 * whatever other tenants following the wallet did before (docs/following.md#tenants-and-first-sync).
 */
export function booksVisible(row: Pick<TenantWalletRow, "first_synced_at">): boolean {
  return row.first_synced_at !== null;
}

export const tenantWalletSql = statements("tenant_wallets", {
  registered: query<{ tenantId: number; owner: string }, Pick<TenantWalletRow, "first_synced_at">>(
    (p) => sql`SELECT first_synced_at FROM tenant_wallets WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`,
  ),
  ofTenant: query<{ tenantId: number }, Pick<TenantWalletRow, "owner" | "first_synced_at">>(
    (p) => sql`SELECT owner, first_synced_at FROM tenant_wallets WHERE tenant_id = ${p.tenantId} ORDER BY owner`,
  ),
  /** Of these wallets, those the tenant follows. */
  ofTenantAmong: query<{ tenantId: number; owners: readonly string[] }, Pick<TenantWalletRow, "owner" | "first_synced_at">>(
    (p) => sql`SELECT owner, first_synced_at FROM tenant_wallets WHERE tenant_id = ${p.tenantId} AND owner IN ${inList(p.owners)}`,
  ),
  /** Of these wallets, those some tenant follows. */
  followedAmong: query<{ owners: readonly string[] }, Pick<TenantWalletRow, "owner">>((p) => sql`SELECT DISTINCT owner FROM tenant_wallets WHERE owner IN ${inList(p.owners)}`),
  countOfTenant: query<{ tenantId: number }, { n: number }>((p) => sql`SELECT count(*) AS n FROM tenant_wallets WHERE tenant_id = ${p.tenantId}`),
  insert: query<{ tenantId: number; owner: string; at: string }>((p) => sql`INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (${p.tenantId}, ${p.owner}, ${p.at})`),
  /** The tenant of job `jobId` sees the wallet's books from `at` on (once). */
  markFirstSynced: query<{ at: string; jobId: number }>(
    (p) => sql`UPDATE tenant_wallets SET first_synced_at = ${p.at} WHERE first_synced_at IS NULL
       AND tenant_id = (SELECT tenant_id FROM sync_jobs WHERE id = ${p.jobId}) AND owner = (SELECT owner FROM sync_jobs WHERE id = ${p.jobId})`,
  ),
  delete: query<{ tenantId: number; owner: string }>((p) => sql`DELETE FROM tenant_wallets WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`),
  /** The tenant's wallets with their job's status, in the order they were registered. */
  withStatus: query<{ tenantId: number }, Pick<TenantWalletRow, "owner" | "registered_at"> & { status: JobStatus }>(
    (p) => sql`SELECT w.owner, w.registered_at, coalesce(j.status, 'queued') AS status
     FROM tenant_wallets w LEFT JOIN sync_jobs j ON j.tenant_id = w.tenant_id AND j.owner = w.owner
     WHERE w.tenant_id = ${p.tenantId} ORDER BY w.registered_at, w.owner`,
  ),
  /** The tenants that see each of these wallets' books (their own first sync finished): who is told of them. */
  watchersOf: query<{ owners: readonly string[] }, { tenant_id: number; owner: string }>(
    (p) => sql`SELECT tenant_id, owner FROM tenant_wallets WHERE first_synced_at IS NOT NULL AND owner IN ${inList(p.owners)} ORDER BY tenant_id`,
  ),
  /** The newest journal entry the tenant was told of with wallet.synced. */
  setSyncedJournal: query<{ tenantId: number; owner: string; journalId: number | null }>(
    (p) => sql`UPDATE tenant_wallets SET synced_journal_id = ${p.journalId} WHERE tenant_id = ${p.tenantId} AND owner = ${p.owner}`,
  ),
});
