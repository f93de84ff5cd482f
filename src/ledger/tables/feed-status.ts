// The feeds' health (issuer, mint poll): last success, last error, a degraded note.
import { query, sql, statements } from "../sql/statement.ts";

export interface FeedStatusRow {
  name: string;
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
  degraded: string | null;
  updated_at: string;
}

export const feedStatusSql = statements("feed_status", {
  succeeded: query<{ name: string; at: string; degraded: string | null }>(
    (p) => sql`INSERT INTO feed_status (name, last_success_at, degraded, updated_at) VALUES (${p.name}, ${p.at}, ${p.degraded}, ${p.at})
       ON CONFLICT(name) DO UPDATE SET last_success_at = excluded.last_success_at, degraded = excluded.degraded, updated_at = excluded.updated_at`,
  ),
  failed: query<{ name: string; at: string; error: string }>(
    (p) => sql`INSERT INTO feed_status (name, last_error_at, last_error, updated_at) VALUES (${p.name}, ${p.at}, ${p.error}, ${p.at})
       ON CONFLICT(name) DO UPDATE SET last_error_at = excluded.last_error_at, last_error = excluded.last_error, updated_at = excluded.updated_at`,
  ),
  read: query<{ name: string }, Pick<FeedStatusRow, "last_success_at" | "last_error" | "degraded">>((p) => sql`SELECT last_success_at, last_error, degraded FROM feed_status WHERE name = ${p.name}`),
});
