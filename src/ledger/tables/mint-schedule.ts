// Per mint, when its next scheduled multiplier takes force (as of its last booking).
import { query, sql, statements } from "../sql/statement.ts";

export const mintScheduleSql = statements("mint_schedule", {
  /** Mints whose next scheduled change has taken force by `now` (seconds). */
  due: query<{ now: number }, { mint: string }>((p) => sql`SELECT mint FROM mint_schedule WHERE next_activation_ts IS NOT NULL AND next_activation_ts <= ${p.now}`),
  upsert: query<{ mint: string; next: number | null; at: string }>(
    (p) =>
      sql`INSERT INTO mint_schedule (mint, next_activation_ts, updated_at) VALUES (${p.mint}, ${p.next}, ${p.at}) ON CONFLICT(mint) DO UPDATE SET next_activation_ts = excluded.next_activation_ts, updated_at = excluded.updated_at`,
  ),
  /** When each mint was last booked. */
  bookedAt: query<Record<never, never>, { mint: string; updated_at: string }>(() => sql`SELECT mint, updated_at FROM mint_schedule`),
});
