// Dashboard sessions. The browser's cookie holds a random session id; the database holds only its
// SHA-256, the id of the key the session acts for, the session's CSRF token and its clock. The key
// row is read on every request, so revoking the key ends its sessions at their next request.
import { randomBytes } from "node:crypto";
import type { Database } from "bun:sqlite";
import { sha256Hex } from "../../domain/evidence.ts";
import { keyById, type KeyPrincipal } from "../../ledger/keys.ts";
import { writeIfFree } from "../../ledger/db.ts";

/** A session ends after 30 minutes without a request, and 12 hours after sign-in in any case. */
export const sessionLimits = { idleSeconds: 30 * 60, absoluteSeconds: 12 * 60 * 60 };

/** last_seen_at is written at most once a minute, so browsing does not write on every request. */
const touchEveryMs = 60_000;

export const sessionIdPattern = /^[A-Za-z0-9_-]{43}$/;

export interface Session { principal: KeyPrincipal; csrfToken: string; createdAt: string; expiresAt: string }

interface SessionRow { key_id: string; csrf_token: string; created_at: string; last_seen_at: string; expires_at: string }

const randomToken = (): string => randomBytes(32).toString("base64url");

export function sessionStore(sqlite: Database, limits = sessionLimits) {
  const insert = sqlite.query("INSERT INTO dashboard_sessions (id_sha256, key_id, csrf_token, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)");
  const byHash = sqlite.query("SELECT key_id, csrf_token, created_at, last_seen_at, expires_at FROM dashboard_sessions WHERE id_sha256 = ?");
  const touch = sqlite.query("UPDATE dashboard_sessions SET last_seen_at = ? WHERE id_sha256 = ?");
  const remove = sqlite.query("DELETE FROM dashboard_sessions WHERE id_sha256 = ?");
  const removeForKey = sqlite.query("DELETE FROM dashboard_sessions WHERE key_id = ?");
  const sweep = sqlite.query("DELETE FROM dashboard_sessions WHERE expires_at <= ?1 OR last_seen_at <= ?2");
  const principalOf = keyById(sqlite);
  // A read must not fail, nor wait, because the worker holds the write lock: the bookkeeping is
  // skipped then, and done by a later request or the sweep.
  const quietly = (write: () => unknown) => void writeIfFree(sqlite, write);

  return {
    /** Opens a session for a key. The id goes into the cookie and is never stored. */
    open(principal: KeyPrincipal, now = new Date()): { id: string; session: Session } {
      const id = randomToken();
      const createdAt = now.toISOString();
      const expiresAt = new Date(now.getTime() + limits.absoluteSeconds * 1000).toISOString();
      const session: Session = { principal, csrfToken: randomToken(), createdAt, expiresAt };
      sqlite.transaction(() => {
        sweep.run(createdAt, new Date(now.getTime() - limits.idleSeconds * 1000).toISOString());
        insert.run(sha256Hex(id), principal.keyId, session.csrfToken, createdAt, createdAt, expiresAt);
      }).immediate();
      return { id, session };
    },

    /** The live session behind a cookie's id; null when unknown, idle too long, past its limit or its key revoked. */
    find(id: string, now = new Date()): Session | null {
      if (!sessionIdPattern.test(id)) return null;
      const hash = sha256Hex(id);
      const row = byHash.get(hash) as SessionRow | null;
      if (!row) return null;
      const t = now.getTime();
      const lastSeen = Date.parse(row.last_seen_at);
      if (Date.parse(row.expires_at) <= t || lastSeen + limits.idleSeconds * 1000 <= t) {
        quietly(() => remove.run(hash));
        return null;
      }
      const principal = principalOf(row.key_id);
      if (!principal) {
        quietly(() => removeForKey.run(row.key_id));
        return null;
      }
      if (t - lastSeen >= touchEveryMs) quietly(() => touch.run(now.toISOString(), hash));
      return { principal, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at };
    },

    close(id: string): void {
      if (sessionIdPattern.test(id)) remove.run(sha256Hex(id));
    },
  };
}

export type SessionStore = ReturnType<typeof sessionStore>;
