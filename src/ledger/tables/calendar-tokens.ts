// The read-only iCalendar URLs' tokens (docs/events.md#the-calendar): only each token's SHA-256,
// its tenant, and when it was made and revoked.
import { query, sql, statements } from "../sql/statement.ts";

export const calendarTokenSql = statements("calendar_tokens", {
  insert: query<{ sha256: string; tenantId: number; at: string }>((p) => sql`INSERT INTO calendar_tokens (token_sha256, tenant_id, created_at) VALUES (${p.sha256}, ${p.tenantId}, ${p.at})`),
  revokeOfTenant: query<{ tenantId: number; at: string }>((p) => sql`UPDATE calendar_tokens SET revoked_at = ${p.at} WHERE tenant_id = ${p.tenantId} AND revoked_at IS NULL`),
  tenantOf: query<{ sha256: string }, { tenant_id: number | string }>((p) => sql`SELECT tenant_id FROM calendar_tokens WHERE token_sha256 = ${p.sha256} AND revoked_at IS NULL`),
});
