// Tenants: each follows its own wallets under its own keys, within its quota.
import { query, sql, statements } from "../sql/statement.ts";

export const tenantSql = statements("tenants", {
  ensure: query<{ slug: string; maxWallets: number; at: string }>(
    (p) => sql`INSERT INTO tenants (slug, max_wallets, created_at) VALUES (${p.slug}, ${p.maxWallets}, ${p.at}) ON CONFLICT(slug) DO NOTHING`,
  ),
  idOf: query<{ slug: string }, { id: number }>((p) => sql`SELECT id FROM tenants WHERE slug = ${p.slug}`),
});
