// When a sync first saw each chain transition in force (one of an action's six timestamps).
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface TransitionSeenRow {
  key: string;
  first_observed_active_at: string;
}

export const transitionSeenSql = statements("transitions_seen", {
  /** Changes nothing when another process recorded the sighting first. */
  insert: query<{ key: string; at: string }>((p) => sql`INSERT INTO transitions_seen (key, first_observed_active_at) VALUES (${p.key}, ${p.at}) ON CONFLICT DO NOTHING`),
  all: query<Record<never, never>, TransitionSeenRow>(() => sql`SELECT key, first_observed_active_at FROM transitions_seen`),
  /** The sightings of these mints' transitions (a transition's key is mint:signature:instruction). */
  ofMints: query<{ mints: readonly string[] }, TransitionSeenRow>(
    (p) => sql`SELECT s.key, s.first_observed_active_at FROM multiplier_updates u JOIN transitions_seen s ON s.key = u.mint || ':' || u.signature || ':' || u.ix_index
         WHERE u.mint IN ${inList(p.mints)}`,
  ),
});
