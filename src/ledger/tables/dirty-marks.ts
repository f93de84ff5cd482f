// The dirty sets (dirty.ts): wallets and mints waiting to be booked, one table each of the same shape.
import { ident, inList, query, sql, statements } from "../sql/statement.ts";

export type DirtyKind = "wallet" | "mint";

/** A mark as booking reads it: the wallet or mint, and the seq it had then. */
export interface DirtyMark {
  key: string;
  seq: number;
}

const tables: Record<DirtyKind, { table: string; column: string }> = {
  wallet: { table: "dirty_wallets", column: "owner" },
  mint: { table: "dirty_mints", column: "mint" },
};

function marks(kind: DirtyKind) {
  const table = ident(tables[kind].table);
  const key = ident(tables[kind].column);
  return {
    /** Marked, or bumped (a newer seq) when marked already; a mark held back is due again. */
    mark: query<{ key: string; at: string }>(
      (p) => sql`INSERT INTO ${table} (${key}, seq, marked_at) VALUES (${p.key}, 1, ${p.at})
     ON CONFLICT(${key}) DO UPDATE SET seq = ${table}.seq + 1, marked_at = excluded.marked_at, not_before = NULL`,
    ),
    /** The oldest due marks first. */
    due: query<{ now: string; limit: number }, DirtyMark>(
      (p) => sql`SELECT ${key} AS key, seq FROM ${table} WHERE not_before IS NULL OR not_before <= ${p.now} ORDER BY marked_at, ${key} LIMIT ${p.limit}`,
    ),
    defer: query<{ key: string; until: string }>((p) => sql`UPDATE ${table} SET not_before = ${p.until} WHERE ${key} = ${p.key}`),
    /** Cleared only when not bumped since it was read. */
    clear: query<{ key: string; seq: number }>((p) => sql`DELETE FROM ${table} WHERE ${key} = ${p.key} AND seq = ${p.seq}`),
    /** The marks as they are now, of these keys. */
    of: query<{ keys: readonly string[] }, DirtyMark>((p) => sql`SELECT ${key} AS key, seq FROM ${table} WHERE ${key} IN ${inList(p.keys)}`),
    all: query<Record<never, never>, { key: string }>(() => sql`SELECT ${key} AS key FROM ${table}`),
    /** Marks due at `now`, marks held back, and when the oldest due one was marked. */
    backlog: query<{ now: string }, { due: number; deferred: number; oldest: string | null }>(
      (p) => sql`SELECT count(*) FILTER (WHERE not_before IS NULL OR not_before <= ${p.now}) AS due, count(*) FILTER (WHERE not_before > ${p.now}) AS deferred,
     min(marked_at) FILTER (WHERE not_before IS NULL OR not_before <= ${p.now}) AS oldest FROM ${table}`,
    ),
  };
}

export const dirtySql = statements("dirty", { wallet: marks("wallet"), mint: marks("mint") });
