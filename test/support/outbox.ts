// A webhook subscription row written straight into the ledger's outbox tables (migration
// 0016_events_outbox; PostgreSQL 0007), for tests of the store and the worker; its tenant is made
// first when it does not exist yet.
import type { Sql } from "../../src/ledger/sql/port.ts";
import { q } from "./sql.ts";

export async function ensureTenant(db: Sql, tenantId: number): Promise<void> {
  await db.write((tx) => tx.run(...q`INSERT INTO tenants (id, slug, created_at) VALUES (${tenantId}, ${`tenant-${tenantId}`}, ${new Date().toISOString()}) ON CONFLICT (id) DO NOTHING`));
}

export async function addSubscription(db: Sql, s: { id: string; url: string; sealedSecrets: string[]; events: string[] | null }, tenantId = 1): Promise<void> {
  await ensureTenant(db, tenantId);
  await db.write((tx) =>
    tx.run(
      ...q`INSERT INTO webhook_subscriptions (id, tenant_id, url, events, sealed_secrets, created_at)
    VALUES (${s.id}, ${tenantId}, ${s.url}, ${s.events?.join(",") ?? null}, ${JSON.stringify(s.sealedSecrets)}, ${new Date().toISOString()})`,
    ),
  );
}
