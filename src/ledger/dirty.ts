// Dirty sets: which wallets and mints wait to be booked. The store marks them in the same
// transaction as the observations that touch them; booking clears a mark in the transaction that
// books it, and only when the mark's `seq` is still the one booking read: a mark bumped by newer
// observations in between stays, so that change is booked by the next round. A crash at any point
// therefore leaves every unbooked observation marked, and nothing is booked twice (the journal
// diff runs inside the booking transaction).
import type { Db, Sql } from "./sql/port.ts";
import { dirtySql, type DirtyKind, type DirtyMark } from "./tables/dirty-marks.ts";
import { ownerSql } from "./tables/owners.ts";
import { yieldSql } from "./tables/yields.ts";

export type { DirtyKind, DirtyMark };

/** Marks keys dirty (inside the caller's transaction); returns how many were given. */
export async function markDirty(tx: Sql, kind: DirtyKind, keys: Iterable<string>, at: string): Promise<number> {
  let n = 0;
  for (const key of keys) {
    await tx.run(dirtySql[kind].mark, { key, at });
    n++;
  }
  return n;
}

/** The oldest marks first, at most `limit`; a mark held back after a failure waits for its time. */
export function readDirty(db: Sql, kind: DirtyKind, limit: number, now: Date): Promise<DirtyMark[]> {
  return db.all(dirtySql[kind].due, { now: now.toISOString(), limit });
}

/**
 * Puts a mark that cannot be booked (the engine failed on it) back until `until`: it stays
 * marked, is retried then, and meanwhile never holds up the other wallets and mints.
 */
export async function deferDirty(db: Sql, kind: DirtyKind, key: string, until: Date): Promise<void> {
  await db.run(dirtySql[kind].defer, { key, until: until.toISOString() });
}

/** Clears the marks that were not bumped since they were read (inside the booking transaction). */
export async function clearDirty(tx: Sql, kind: DirtyKind, marks: DirtyMark[]): Promise<void> {
  for (const m of marks) await tx.run(dirtySql[kind].clear, { key: m.key, seq: m.seq });
}

/** The marks as they are now, keeping only those whose seq is still the one read. */
export async function stillMarked(tx: Sql, kind: DirtyKind, marks: DirtyMark[]): Promise<DirtyMark[]> {
  const now = new Map((await tx.all(dirtySql[kind].of, { keys: marks.map((m) => m.key) })).map((m) => [m.key, m.seq]));
  return marks.filter((m) => now.get(m.key) === m.seq);
}

/** Every key marked now, of one kind. */
export async function markedKeys(db: Sql, kind: DirtyKind): Promise<Set<string>> {
  return new Set((await db.all(dirtySql[kind].all)).map((r) => r.key));
}

export interface DirtyBacklog {
  wallets: number;
  mints: number;
  oldestMarkedAt: string | null;
  deferred: number;
}

/** What waits to be booked, for the ops status: marks due now, and marks deferred after a failure. */
export async function dirtyBacklog(db: Sql, now: Date): Promise<DirtyBacklog> {
  const at = now.toISOString();
  const w = (await db.get(dirtySql.wallet.backlog, { now: at }))!;
  const m = (await db.get(dirtySql.mint.backlog, { now: at }))!;
  const oldest = [w.oldest, m.oldest].filter((x): x is string => x !== null).sort()[0] ?? null;
  return { wallets: w.due, mints: m.due, oldestMarkedAt: oldest, deferred: w.deferred + m.deferred };
}

/**
 * Marks the wallets last booked before `before` (a few hundred at a time, oldest first): yield
 * windows and announced events move with the clock, not only with observations. Returns how many.
 */
export async function markStaleWallets(db: Db, before: Date, now: Date): Promise<number> {
  const stale = await db.all(yieldSql.stale, { before: before.toISOString() });
  if (!stale.length) return 0;
  await db.write((tx) =>
    markDirty(
      tx,
      "wallet",
      stale.map((r) => r.owner),
      now.toISOString(),
    ),
  );
  return stale.length;
}

/** Every wallet of the ledger and every mint: a full re-booking (upgrades, tests). */
export async function markEverythingDirty(tx: Sql, at: string): Promise<void> {
  await markDirty(
    tx,
    "wallet",
    (await tx.all(ownerSql.all)).map((r) => r.owner),
    at,
  );
  await markDirty(
    tx,
    "mint",
    (await tx.all(ownerSql.allMints)).map((r) => r.mint),
    at,
  );
}
