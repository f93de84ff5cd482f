// The outbox tables as docs/events.md#the-outbox-the-worker-needs proposes them, for both engines,
// made by the tests until the ledger's migrations create them; and a subscription row.
import type { Sql } from "../../src/ledger/sql/port.ts";
import { q } from "./sql.ts";

export function outboxDdl(dialect: "sqlite" | "postgres"): string {
  const serial = dialect === "sqlite" ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
  const ref = dialect === "sqlite" ? "INTEGER" : "BIGINT";
  return `
    CREATE TABLE events (seq ${serial}, tenant_id INTEGER NOT NULL, type TEXT NOT NULL, owner TEXT, body TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE INDEX events_tenant_seq ON events (tenant_id, seq);
    CREATE TABLE webhook_subscriptions (id TEXT PRIMARY KEY, tenant_id INTEGER NOT NULL, url TEXT NOT NULL, events TEXT, sealed_secrets TEXT NOT NULL, created_at TEXT NOT NULL, removed_at TEXT);
    CREATE TABLE webhook_deliveries (id ${serial}, subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id), event_seq ${ref} NOT NULL REFERENCES events (seq),
      status TEXT NOT NULL, attempts INTEGER NOT NULL, due_since TEXT NOT NULL, next_attempt_at TEXT, lease_until TEXT, last_attempt_at TEXT, last_status INTEGER, last_answer TEXT);
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (subscription_id, id) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  `;
}

export async function addSubscription(db: Sql, s: { id: string; url: string; sealedSecrets: string[]; events: string[] | null }, tenantId = 1): Promise<void> {
  await db.write((tx) => tx.run(...q`INSERT INTO webhook_subscriptions (id, tenant_id, url, events, sealed_secrets, created_at)
    VALUES (${s.id}, ${tenantId}, ${s.url}, ${s.events?.join(",") ?? null}, ${JSON.stringify(s.sealedSecrets)}, ${new Date().toISOString()})`));
}
