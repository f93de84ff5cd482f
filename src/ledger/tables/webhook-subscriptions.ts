// A tenant's webhook subscriptions (docs/events.md): where its events are sent, which types
// (`events`, comma-separated; null for all), and the sealed signing secrets.
import { query, sql, statements } from "../sql/statement.ts";

export const webhookSubscriptionSql = statements("webhook_subscriptions", {
  /** The tenant's live subscriptions, or only `only` when given. */
  live: query<{ tenantId: number; only: string | null }, { id: string; events: string | null }>((p) =>
    sql`SELECT id, events FROM webhook_subscriptions WHERE tenant_id = ${p.tenantId} AND removed_at IS NULL AND (CAST(${p.only} AS TEXT) IS NULL OR id = ${p.only}) ORDER BY id`),
});
