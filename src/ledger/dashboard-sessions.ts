// Dashboard sessions (src/http/dashboard/sessions.ts keeps the rules: limits, tokens, when to
// write): only the SHA-256 of a session's id is stored, with its key, CSRF token and clock.
import type { Sql } from "./sql/port.ts";
import { query, sql, statements } from "./sql/statement.ts";

export interface SessionRow {
  id_sha256: string;
  key_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

const sessionSql = statements("dashboard_sessions", {
  /** Sessions past their absolute limit or idle since `idleBefore`. */
  deleteEnded: query<{ now: string; idleBefore: string }>((p) => sql`DELETE FROM dashboard_sessions WHERE expires_at <= ${p.now} OR last_seen_at <= ${p.idleBefore}`),
  insert: query<{ idSha256: string; keyId: string; csrfToken: string; at: string; expiresAt: string }>(
    (p) =>
      sql`INSERT INTO dashboard_sessions (id_sha256, key_id, csrf_token, created_at, last_seen_at, expires_at) VALUES (${p.idSha256}, ${p.keyId}, ${p.csrfToken}, ${p.at}, ${p.at}, ${p.expiresAt})`,
  ),
  /** The key's other sessions beyond its newest `keep`, oldest first. */
  trimKey: query<{ keyId: string; idSha256: string; keep: number }>(
    (p) => sql`DELETE FROM dashboard_sessions WHERE key_id = ${p.keyId} AND id_sha256 <> ${p.idSha256} AND id_sha256 NOT IN
     (SELECT id_sha256 FROM dashboard_sessions WHERE key_id = ${p.keyId} AND id_sha256 <> ${p.idSha256} ORDER BY created_at DESC, id_sha256 LIMIT ${p.keep})`,
  ),
  byHash: query<{ idSha256: string }, Omit<SessionRow, "id_sha256">>(
    (p) => sql`SELECT key_id, csrf_token, created_at, last_seen_at, expires_at FROM dashboard_sessions WHERE id_sha256 = ${p.idSha256}`,
  ),
  delete: query<{ idSha256: string }>((p) => sql`DELETE FROM dashboard_sessions WHERE id_sha256 = ${p.idSha256}`),
  deleteOfKey: query<{ keyId: string }>((p) => sql`DELETE FROM dashboard_sessions WHERE key_id = ${p.keyId}`),
  touch: query<{ idSha256: string; at: string }>((p) => sql`UPDATE dashboard_sessions SET last_seen_at = ${p.at} WHERE id_sha256 = ${p.idSha256}`),
});

/**
 * Stores a new session in one write transaction: ended sessions go first, and the key keeps its
 * newest `perKey` sessions (this one among them).
 */
export function storeSession(db: Sql, s: { idSha256: string; keyId: string; csrfToken: string; at: string; expiresAt: string }, rules: { idleBefore: string; perKey: number }): Promise<void> {
  return db.write(async (tx) => {
    await tx.run(sessionSql.deleteEnded, { now: s.at, idleBefore: rules.idleBefore });
    await tx.run(sessionSql.insert, s);
    await tx.run(sessionSql.trimKey, { keyId: s.keyId, idSha256: s.idSha256, keep: rules.perKey - 1 });
  });
}

export const findSession = (db: Sql, idSha256: string) => db.get(sessionSql.byHash, { idSha256 });
export const deleteSession = async (db: Sql, idSha256: string): Promise<void> => void (await db.run(sessionSql.delete, { idSha256 }));
export const deleteSessionsOfKey = async (db: Sql, keyId: string): Promise<void> => void (await db.run(sessionSql.deleteOfKey, { keyId }));
export const touchSession = async (db: Sql, idSha256: string, at: string): Promise<void> => void (await db.run(sessionSql.touch, { idSha256, at }));
