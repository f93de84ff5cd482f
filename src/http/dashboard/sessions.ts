// Dashboard sessions. The browser's cookie holds a random session id; the database holds only its
// SHA-256, the id of the key the session acts for, the session's CSRF token and its clock. The key
// row is read on every request, so revoking the key ends its sessions at their next request.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../domain/evidence.ts";
import { keyById, type KeyPrincipal } from "../../ledger/keys.ts";
import type { Db, Sql } from "../../ledger/sql/port.ts";
import { deleteSession, deleteSessionsOfKey, findSession, storeSession, touchSession } from "../../ledger/dashboard-sessions.ts";

/**
 * A session ends after 30 minutes without a request, and 12 hours after sign-in in any case. A key
 * has at most 20 live sessions: signing in a 21st time ends its oldest.
 */
export const sessionLimits = { idleSeconds: 30 * 60, absoluteSeconds: 12 * 60 * 60, perKey: 20 };

/** last_seen_at is written at most once a minute, so browsing does not write on every request. */
const touchEveryMs = 60_000;

export const sessionIdPattern = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  principal: KeyPrincipal;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

const randomToken = (): string => randomBytes(32).toString("base64url");

export function sessionStore(db: Db, limits = sessionLimits) {
  const principalOf = keyById(db);
  // A read must not fail, nor wait, because the worker holds the write lock: the bookkeeping is
  // skipped then, and done by a later request or the sweep.
  const quietly = async (write: (tx: Sql) => Promise<void>) => void (await db.writeIfFree(write));

  return {
    /** Opens a session for a key. The id goes into the cookie and is never stored. */
    async open(principal: KeyPrincipal, now = new Date()): Promise<{ id: string; session: Session }> {
      const id = randomToken();
      const createdAt = now.toISOString();
      const expiresAt = new Date(now.getTime() + limits.absoluteSeconds * 1000).toISOString();
      const session: Session = { principal, csrfToken: randomToken(), createdAt, expiresAt };
      // Ended sessions go, and the key's others beyond its newest perKey end here, oldest first.
      await storeSession(
        db,
        { idSha256: sha256Hex(id), keyId: principal.keyId, csrfToken: session.csrfToken, at: createdAt, expiresAt },
        {
          idleBefore: new Date(now.getTime() - limits.idleSeconds * 1000).toISOString(),
          perKey: limits.perKey,
        },
      );
      return { id, session };
    },

    /** The live session behind a cookie's id; null when unknown, idle too long, past its limit or its key revoked. */
    async find(id: string, now = new Date()): Promise<Session | null> {
      if (!sessionIdPattern.test(id)) return null;
      const hash = sha256Hex(id);
      const row = await findSession(db, hash);
      if (!row) return null;
      const t = now.getTime();
      const lastSeen = Date.parse(row.last_seen_at);
      if (Date.parse(row.expires_at) <= t || lastSeen + limits.idleSeconds * 1000 <= t) {
        await quietly((tx) => deleteSession(tx, hash));
        return null;
      }
      const principal = await principalOf(row.key_id);
      if (!principal) {
        await quietly((tx) => deleteSessionsOfKey(tx, row.key_id));
        return null;
      }
      if (t - lastSeen >= touchEveryMs) await quietly((tx) => touchSession(tx, hash, now.toISOString()));
      return { principal, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at };
    },

    async close(id: string): Promise<void> {
      if (sessionIdPattern.test(id)) await deleteSession(db, sha256Hex(id));
    },
  };
}

export type SessionStore = ReturnType<typeof sessionStore>;
