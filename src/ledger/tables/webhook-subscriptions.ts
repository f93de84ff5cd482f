// A tenant's webhook subscriptions (docs/events.md): where its events are sent, which types
// (`events`, comma-separated; null for all), and the sealed signing secrets.
import { query, sql, statements } from "../sql/statement.ts";

export const webhookSubscriptionSql = statements("webhook_subscriptions", {
  /** The tenant's live subscriptions, or only `only` when given. */
  live: query<{ tenantId: number; only: string | null }, { id: string; events: string | null }>(
    (p) => sql`SELECT id, events FROM webhook_subscriptions WHERE tenant_id = ${p.tenantId} AND removed_at IS NULL AND (CAST(${p.only} AS TEXT) IS NULL OR id = ${p.only}) ORDER BY id`,
  ),
  insert: query<{ id: string; tenantId: number; url: string; events: string | null; sealedSecrets: string; at: string }>(
    (p) => sql`INSERT INTO webhook_subscriptions (id, tenant_id, url, events, sealed_secrets, created_at) VALUES (${p.id}, ${p.tenantId}, ${p.url}, ${p.events}, ${p.sealedSecrets}, ${p.at})`,
  ),
  /** Every subscription (or a tenant's) with its deliveries counted by status. */
  listing: query<
    { tenant: string | null },
    {
      id: string;
      tenant: string;
      url: string;
      events: string | null;
      created_at: string;
      removed_at: string | null;
      pending: number;
      delivered: number;
      failed: number;
      last_attempt_at: string | null;
    }
  >(
    (p) =>
      sql`SELECT s.id, t.slug AS tenant, s.url, s.events, s.created_at, s.removed_at,
       count(d.id) FILTER (WHERE d.status = 'pending') AS pending, count(d.id) FILTER (WHERE d.status = 'delivered') AS delivered,
       count(d.id) FILTER (WHERE d.status = 'failed') AS failed, max(d.last_attempt_at) AS last_attempt_at
     FROM webhook_subscriptions s JOIN tenants t ON t.id = s.tenant_id LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id
     WHERE (CAST(${p.tenant} AS TEXT) IS NULL OR t.slug = ${p.tenant})
     GROUP BY s.id, t.slug, s.url, s.events, s.created_at, s.removed_at ORDER BY s.created_at, s.id`,
  ),
  remove: query<{ id: string; at: string }>((p) => sql`UPDATE webhook_subscriptions SET removed_at = ${p.at} WHERE id = ${p.id} AND removed_at IS NULL`),
  exists: query<{ id: string }, { one: number }>((p) => sql`SELECT 1 AS one FROM webhook_subscriptions WHERE id = ${p.id}`),
  liveById: query<{ id: string }, { tenant_id: number }>((p) => sql`SELECT tenant_id FROM webhook_subscriptions WHERE id = ${p.id} AND removed_at IS NULL`),
  /** A live subscription's sealed secrets (JSON array, newest first). */
  secretsOf: query<{ id: string }, { sealed_secrets: string }>((p) => sql`SELECT sealed_secrets FROM webhook_subscriptions WHERE id = ${p.id} AND removed_at IS NULL`),
  setSecrets: query<{ id: string; sealedSecrets: string }>((p) => sql`UPDATE webhook_subscriptions SET sealed_secrets = ${p.sealedSecrets} WHERE id = ${p.id} AND removed_at IS NULL`),
});
