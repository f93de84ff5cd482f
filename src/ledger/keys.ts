// API keys and tenants. A key is shown once at creation; only its SHA-256 is stored. Lookups
// go by the hash (an index) and then compare digests in constant time.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../domain/evidence.ts";
import type { Db, Sql } from "./sql/port.ts";
import { apiKeySql, type PrincipalRow } from "./tables/api-keys.ts";
import { tenantSql } from "./tables/tenants.ts";

import { allScopes, defaultScopes, type Scope } from "../domain/scopes.ts";

export { allScopes, defaultScopes, type Scope };

export const keyPattern = /^cal_[A-Za-z0-9_-]{43}$/;
export const tenantSlugPattern = /^[a-z0-9][a-z0-9-]{1,39}$/;

export class KeyError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export function parseScopes(list: string | undefined): Scope[] {
  if (list === undefined || list.trim() === "") return [...defaultScopes];
  const scopes = [
    ...new Set(
      list
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  for (const s of scopes) {
    if (!(allScopes as readonly string[]).includes(s)) throw new KeyError(`unknown scope ${JSON.stringify(s)}; scopes are ${allScopes.join(", ")}`, true);
  }
  if (scopes.length === 0) throw new KeyError("at least one scope is needed", true);
  return scopes as Scope[];
}

export function hashKey(key: string): string {
  return sha256Hex(key);
}

const base32 = "abcdefghijklmnopqrstuvwxyz234567";
function newKeyId(): string {
  const bytes = randomBytes(12);
  let id = "key_";
  for (const b of bytes) id += base32[b & 31];
  return id;
}

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  tenant: string;
  scopes: Scope[];
  createdAt: string;
}

export async function ensureTenant(db: Sql, slug: string, maxWallets = 100, now = new Date()): Promise<number> {
  if (!tenantSlugPattern.test(slug)) throw new KeyError(`tenant slug ${JSON.stringify(slug)} must match ${tenantSlugPattern.source}`, true);
  await db.run(tenantSql.ensure, { slug, maxWallets, at: now.toISOString() });
  return (await db.get(tenantSql.idOf, { slug }))!.id;
}

/** The id of the tenant with this slug, or null when there is none (nothing is created). */
export async function findTenant(db: Sql, slug: string): Promise<number | null> {
  return (await db.get(tenantSql.idOf, { slug }))?.id ?? null;
}

export async function createKey(db: Sql, input: { name: string; tenant: string; scopes?: Scope[] }, now = new Date()): Promise<CreatedKey> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw new KeyError("key name must be 1 to 100 characters", true);
  const scopes = input.scopes ?? [...defaultScopes];
  const key = "cal_" + randomBytes(32).toString("base64url");
  const id = newKeyId();
  const createdAt = now.toISOString();
  await db.write(async (tx) => {
    const tenantId = await ensureTenant(tx, input.tenant, undefined, now);
    await tx.run(apiKeySql.insert, { id, tenantId, name, prefix: key.slice(0, 12), keySha256: hashKey(key), scopes: scopes.join(","), at: createdAt });
  });
  return { id, key, name, tenant: input.tenant, scopes, createdAt };
}

export interface KeyListing {
  id: string;
  prefix: string;
  tenant: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revoked: boolean;
}

export async function listKeys(db: Sql, tenant?: string): Promise<KeyListing[]> {
  const rows = await db.all(apiKeySql.list, { tenant: tenant ?? null });
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    tenant: r.tenant,
    name: r.name,
    scopes: r.scopes.split(",") as Scope[],
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
    revoked: r.revoked_at !== null,
  }));
}

/** Revokes a key; false when the id is unknown or already revoked. */
export async function revokeKey(db: Sql, id: string, now = new Date()): Promise<boolean> {
  const res = await db.run(apiKeySql.revoke, { id, at: now.toISOString() });
  return res.changes === 1;
}

/** Revokes a tenant's active keys whose name starts with `namePrefix`; returns how many. */
export async function revokeKeysNamed(db: Sql, tenant: string, namePrefix: string, now = new Date()): Promise<number> {
  const res = await db.run(apiKeySql.revokeNamed, { at: now.toISOString(), prefix: namePrefix, tenant });
  return res.changes;
}

export interface KeyPrincipal {
  keyId: string;
  tenantId: number;
  tenant: string;
  scopes: Scope[];
}

function toPrincipal(row: PrincipalRow): KeyPrincipal {
  return { keyId: row.id, tenantId: row.tenant_id, tenant: row.slug, scopes: row.scopes.split(",") as Scope[] };
}

/**
 * The principal of a key by its id, or null once the key is revoked (or gone). A dashboard
 * session holds only the key's id and reads the row on every request, so a revocation made by
 * the CLI in another process ends the session at its next request.
 */
export function keyById(db: Sql) {
  return async (keyId: string): Promise<KeyPrincipal | null> => {
    const row = await db.get(apiKeySql.principalById, { id: keyId });
    return row && row.revoked_at === null ? toPrincipal(row) : null;
  };
}

/**
 * Prepares the lookup used on every request. It reads the database each time, so a revocation
 * made by the CLI in another process takes effect on the next request.
 */
export function keyLookup(db: Db) {
  const touched = new Map<string, number>(); // key id -> minute (since the epoch) last written by this process
  return async (key: string, now = Date.now()): Promise<KeyPrincipal | null> => {
    if (!keyPattern.test(key)) return null;
    const digest = hashKey(key);
    const row = await db.get(apiKeySql.principalByHash, { keySha256: digest });
    // The index finds the row; the digest comparison is still constant-time so timing says nothing.
    const ok = sameDigest(digest, row?.key_sha256 ?? "0".repeat(64)) && row !== null && row.revoked_at === null;
    if (!ok || !row) return null;
    // last_used_at is kept at minute precision so a busy key does not write on every request.
    const minute = Math.floor(now / 60000);
    if (touched.get(row.id) !== minute) {
      if (await db.writeIfFree((tx) => tx.run(apiKeySql.touch, { id: row.id, minute: new Date(minute * 60000).toISOString() }))) touched.set(row.id, minute); // busy: a later request writes it
    }
    return toPrincipal(row);
  };
}

/**
 * Two hex digests compared in time that depends on their length only (what timingSafeEqual does
 * for two buffers, without decoding both into buffers on every request).
 */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
