// Where each signature walk stands, per scope: a tenant's own, or "*" for authorities.
import type { WalkCursor } from "../../sources/solana/signatures.ts";
import { query, sql, statements } from "../sql/statement.ts";

export interface WalkCursorRow {
  scope: string;
  address: string;
  newest_signature: string | null;
  newest_slot: number | null;
  resume_before: string | null;
  resume_until: string | null;
  resume_newest: string | null;
  updated_at: string;
}

export const cursorFromRow = (r: Omit<WalkCursorRow, "scope" | "address" | "updated_at">): WalkCursor => ({
  newest: r.newest_signature,
  ...(r.newest_slot === null ? {} : { newestSlot: r.newest_slot }),
  resume: r.resume_before && r.resume_newest ? { before: r.resume_before, until: r.resume_until, newest: r.resume_newest } : null,
});

export const walkCursorSql = statements("walk_cursors", {
  upsert: query<{ scope: string; address: string; newest: string | null; newestSlot: number | null; before: string | null; until: string | null; resumeNewest: string | null; at: string }>(
    (p) =>
      sql`INSERT INTO walk_cursors (scope, address, newest_signature, newest_slot, resume_before, resume_until, resume_newest, updated_at)
     VALUES (${p.scope}, ${p.address}, ${p.newest}, ${p.newestSlot}, ${p.before}, ${p.until}, ${p.resumeNewest}, ${p.at})
     ON CONFLICT(scope, address) DO UPDATE SET newest_signature = excluded.newest_signature, newest_slot = excluded.newest_slot, resume_before = excluded.resume_before,
       resume_until = excluded.resume_until, resume_newest = excluded.resume_newest, updated_at = excluded.updated_at`,
  ),
  read: query<{ scope: string; address: string }, Omit<WalkCursorRow, "scope" | "address" | "updated_at">>(
    (p) => sql`SELECT newest_signature, newest_slot, resume_before, resume_until, resume_newest FROM walk_cursors WHERE scope = ${p.scope} AND address = ${p.address}`,
  ),
  addressesOf: query<{ scope: string }, { address: string }>((p) => sql`SELECT address FROM walk_cursors WHERE scope = ${p.scope}`),
});
