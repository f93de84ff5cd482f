// Issuer revisions that changed no booking (docs/journal.md#revisions-that-change-no-figure).
import { query, sql, statements } from "../sql/statement.ts";

export const unbookedRevisionSql = statements("unbooked_revisions", {
  insert: query<{ eventId: string; sha256: string; at: string }>(
    (p) => sql`INSERT INTO unbooked_revisions (event_id, payload_sha256, noted_at) VALUES (${p.eventId}, ${p.sha256}, ${p.at}) ON CONFLICT DO NOTHING`,
  ),
  /** Records noted at least `revisions` times since `since`. */
  churning: query<{ since: string; revisions: number }, { n: number }>(
    (p) => sql`SELECT count(*) AS n FROM (SELECT event_id FROM unbooked_revisions WHERE noted_at >= ${p.since} GROUP BY event_id HAVING count(*) >= ${p.revisions}) AS churning`,
  ),
});
