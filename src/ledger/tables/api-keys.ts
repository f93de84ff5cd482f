// API keys (keys.ts): only a key's SHA-256 is stored; a key is found by its hash or its id, with its tenant.
import { query, sql, statements } from "../sql/statement.ts";

export interface ApiKeyRow {
  id: string;
  tenant_id: number;
  name: string;
  prefix: string;
  key_sha256: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key with its tenant's id and slug, as a request's principal is read. */
export type PrincipalRow = Pick<ApiKeyRow, "id" | "key_sha256" | "scopes" | "revoked_at" | "tenant_id"> & { slug: string };

const principal = sql`SELECT k.id, k.key_sha256, k.scopes, k.revoked_at, t.id AS tenant_id, t.slug FROM api_keys k JOIN tenants t ON t.id = k.tenant_id`;

export const apiKeySql = statements("api_keys", {
  insert: query<{ id: string; tenantId: number; name: string; prefix: string; keySha256: string; scopes: string; at: string }>(
    (p) => sql`INSERT INTO api_keys (id, tenant_id, name, prefix, key_sha256, scopes, created_at) VALUES (${p.id}, ${p.tenantId}, ${p.name}, ${p.prefix}, ${p.keySha256}, ${p.scopes}, ${p.at})`,
  ),
  /** Every key, or a tenant's (`tenant` null: every tenant's), oldest first. */
  list: query<{ tenant: string | null }, Omit<ApiKeyRow, "tenant_id" | "key_sha256"> & { tenant: string }>(
    (p) => sql`SELECT k.id, k.prefix, t.slug AS tenant, k.name, k.scopes, k.created_at, k.last_used_at, k.revoked_at
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     WHERE (CAST(${p.tenant} AS TEXT) IS NULL OR t.slug = ${p.tenant}) ORDER BY k.created_at, k.id`,
  ),
  revoke: query<{ id: string; at: string }>((p) => sql`UPDATE api_keys SET revoked_at = ${p.at} WHERE id = ${p.id} AND revoked_at IS NULL`),
  /** A tenant's active keys whose name starts with `prefix`. */
  revokeNamed: query<{ at: string; prefix: string; tenant: string }>(
    (p) => sql`UPDATE api_keys SET revoked_at = ${p.at} WHERE revoked_at IS NULL AND substr(name, 1, length(CAST(${p.prefix} AS TEXT))) = ${p.prefix}
     AND tenant_id = (SELECT id FROM tenants WHERE slug = ${p.tenant})`,
  ),
  principalById: query<{ id: string }, PrincipalRow>((p) => sql`${principal} WHERE k.id = ${p.id}`),
  principalByHash: query<{ keySha256: string }, PrincipalRow>((p) => sql`${principal} WHERE k.key_sha256 = ${p.keySha256}`),
  /** last_used_at moves to `minute`, never back. */
  touch: query<{ id: string; minute: string }>((p) => sql`UPDATE api_keys SET last_used_at = ${p.minute} WHERE id = ${p.id} AND (last_used_at IS NULL OR last_used_at < ${p.minute})`),
});
