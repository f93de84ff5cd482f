// Each wallet's portfolio as the route serves it (less owner, dataset and asOf), rendered at
// booking; `updated_at` is when the body last changed (docs/storage.md#writing-only-what-changed).
import { ownerPlacement, ownerRowid, placedColumn, placedValue } from "../sql/placement.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";
import type { TenantWalletRow } from "./tenant-wallets.ts";

export interface PortfolioRow {
  owner: string;
  body: string;
  updated_at: string;
}

export const portfolioSql = statements("portfolios", {
  upsert: query<{ owner: string; body: string; at: string }>(
    (
      p,
    ) => sql`INSERT INTO portfolios (${placedColumn}owner, body, updated_at) VALUES (${placedValue(ownerRowid("portfolios", p.owner))}${p.owner}, ${p.body}, ${p.at}) ON CONFLICT(owner) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
     WHERE portfolios.body IS DISTINCT FROM excluded.body`,
  ),
  ofOwner: query<{ owner: string }, Pick<PortfolioRow, "body">>((p) => sql`SELECT body FROM portfolios WHERE owner = ${p.owner}`),
  /**
   * The tenant's registration of the wallet with the wallet's stored portfolio (null when it has
   * none), or no row when the tenant does not follow it: the portfolio route's two reads as one
   * statement (docs/performance.md#the-portfolio-in-one-statement).
   */
  ofRegistered: query<{ tenantId: number; owner: string }, Pick<TenantWalletRow, "first_synced_at"> & { body: string | null }>(
    (p) => sql`SELECT w.first_synced_at, p.body FROM tenant_wallets w LEFT JOIN portfolios p ON p.owner = w.owner WHERE w.tenant_id = ${p.tenantId} AND w.owner = ${p.owner}`,
  ),
  ofOwners: query<{ owners: readonly string[] }, Pick<PortfolioRow, "owner" | "body">>((p) => sql`SELECT owner, body FROM portfolios WHERE owner IN ${inList(p.owners)}`),
  owners: query<Record<never, never>, { owner: string }>(() => sql`SELECT owner FROM portfolios ORDER BY owner`),
  // ---- the upgrade to rows placed in key order (../upgrades.ts; SQLite's alone)
  ...ownerPlacement("portfolios"),
});
