// Dirty sets: which wallets and mints wait to be booked. The store marks them in the same
// transaction as the observations that touch them; booking clears a mark in the transaction that
// books it, and only when the mark's `seq` is still the one booking read: a mark bumped by newer
// observations in between stays, so that change is booked by the next round. A crash at any point
// therefore leaves every unbooked observation marked, and nothing is booked twice (the journal
// diff runs inside the booking transaction).
import { LEDGER_OWNERS } from "./engine-input.ts";
import type { Sql } from "./sql/port.ts";

export type DirtyKind = "wallet" | "mint";

export interface DirtyMark { key: string; seq: number }

const TABLES: Record<DirtyKind, { table: string; column: string }> = {
  wallet: { table: "dirty_wallets", column: "owner" },
  mint: { table: "dirty_mints", column: "mint" },
};

/** Marks keys dirty (inside the caller's transaction); returns how many were given. */
export async function markDirty(tx: Sql, kind: DirtyKind, keys: Iterable<string>, at: string): Promise<number> {
  const { table, column } = TABLES[kind];
  const mark = `INSERT INTO ${table} (${column}, seq, marked_at) VALUES (?, 1, ?)
     ON CONFLICT(${column}) DO UPDATE SET seq = ${table}.seq + 1, marked_at = excluded.marked_at, not_before = NULL`;
  let n = 0;
  for (const key of keys) {
    await tx.run(mark, key, at);
    n++;
  }
  return n;
}

/** The oldest marks first, at most `limit`; a mark held back after a failure waits for its time. */
export function readDirty(db: Sql, kind: DirtyKind, limit: number, now: Date): Promise<DirtyMark[]> {
  const { table, column } = TABLES[kind];
  return db.all<DirtyMark>(`SELECT ${column} AS key, seq FROM ${table} WHERE not_before IS NULL OR not_before <= ? ORDER BY marked_at, ${column} LIMIT ?`, now.toISOString(), limit);
}

/**
 * Puts a mark that cannot be booked (the engine failed on it) back until `until`: it stays
 * marked, is retried then, and meanwhile never holds up the other wallets and mints.
 */
export async function deferDirty(db: Sql, kind: DirtyKind, key: string, until: Date): Promise<void> {
  const { table, column } = TABLES[kind];
  await db.run(`UPDATE ${table} SET not_before = ? WHERE ${column} = ?`, until.toISOString(), key);
}

/** Clears the marks that were not bumped since they were read (inside the booking transaction). */
export async function clearDirty(tx: Sql, kind: DirtyKind, marks: DirtyMark[]): Promise<void> {
  const { table, column } = TABLES[kind];
  const clear = `DELETE FROM ${table} WHERE ${column} = ? AND seq = ?`;
  for (const m of marks) await tx.run(clear, m.key, m.seq);
}

export interface DirtyBacklog { wallets: number; mints: number; oldestMarkedAt: string | null; deferred: number }

/** What waits to be booked, for the ops status: marks due now, and marks deferred after a failure. */
export async function dirtyBacklog(db: Sql, now: Date): Promise<DirtyBacklog> {
  const at = now.toISOString();
  const count = async (table: string) => (await db.get<{ due: number; deferred: number; oldest: string | null }>(
    `SELECT count(*) FILTER (WHERE not_before IS NULL OR not_before <= ?1) AS due, count(*) FILTER (WHERE not_before > ?1) AS deferred,
     min(marked_at) FILTER (WHERE not_before IS NULL OR not_before <= ?1) AS oldest FROM ${table}`,
    at,
  ))!;
  const w = await count("dirty_wallets");
  const m = await count("dirty_mints");
  const oldest = [w.oldest, m.oldest].filter((x): x is string => x !== null).sort()[0] ?? null;
  return { wallets: w.due, mints: m.due, oldestMarkedAt: oldest, deferred: w.deferred + m.deferred };
}

/** Every wallet of the ledger and every mint: a full re-booking (upgrades, tests). */
export async function markEverythingDirty(tx: Sql, at: string): Promise<void> {
  await markDirty(tx, "wallet", (await tx.all<{ owner: string }>(LEDGER_OWNERS)).map((r) => r.owner), at);
  const mints = await tx.all<{ mint: string }>("SELECT mint FROM token_accounts UNION SELECT mint FROM balance_changes UNION SELECT mint FROM multiplier_updates UNION SELECT mint FROM instruments");
  await markDirty(tx, "mint", mints.map((r) => r.mint), at);
}
