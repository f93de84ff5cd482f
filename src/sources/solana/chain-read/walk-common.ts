// What every history walk shares: named gaps, the deadline's gap, bounded fan-out, and one fetch
// per transaction per sync.
import type { Rpc } from "../rpc";
import type { WireTransaction } from "../wire";
import type { SyncGap, SyncTransactions } from "./types";

/** What a walk cut short by the sync's deadline says (what it read before is kept). */
export const DEADLINE_GAP = "the sync's deadline passed before this history was read in full";

/**
 * Whether a walk's cursor moves past what it listed: when it read all of it, or when its only gap
 * is its page budget's (what it listed is in hand; the next sync resumes below it). A walk the
 * deadline cut short too did not read what it listed, so it keeps its cursor.
 */
export function walkCursorMoves(walk: { capped: boolean; error: string | null }, gaps: SyncGap[]): boolean {
  return gaps.length === 0 || (walk.capped && gaps.length === 1 && gaps[0]!.reason === walk.error);
}

/**
 * Transactions of one address that could not be read: each named while there are few, counted
 * beyond that (a provider that lists thousands of signatures it cannot serve must not turn into
 * thousands of gap rows).
 */
export function unreadGaps(address: string, unread: string[], named = 3): SyncGap[] {
  if (unread.length <= named) return unread.map((reason) => ({ address, reason }));
  return [{ address, reason: `${unread.length} transactions could not be read; the first: ${unread.slice(0, named).join("; ")}` }];
}

/**
 * Maps with at most `limit` calls in flight, in order; null when `signal` aborts first. Each
 * walk feeds the shared RPC queue a few requests at a time, so one large wallet cannot make every
 * other job wait behind thousands of its requests.
 */
export async function mapBounded<T, R>(items: T[], limit: number, signal: AbortSignal | undefined, fn: (item: T) => Promise<R>): Promise<R[] | null> {
  const out: R[] = new Array(items.length);
  let nextIndex = 0;
  let aborted = false;
  const run = async () => {
    while (nextIndex < items.length) {
      if (signal?.aborted) {
        aborted = true;
        return;
      }
      const i = nextIndex++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, run));
  return aborted ? null : out;
}

/** The first of each key, in order. */
export function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Fetches a transaction, with its block time, or throws naming what the node did not have. */
export function transactionFetcher(rpc: Rpc): (signature: string) => Promise<WireTransaction> {
  return async (signature) => {
    const tx = await rpc.getTransaction(signature);
    if (!tx) throw new Error(`transaction ${signature} not available from the node`);
    if (tx.blockTime == null) tx.blockTime = await rpc.getBlockTime(tx.slot);
    return tx;
  };
}

/** Wraps `fetchOne` so a transaction is fetched once per sync even when several walks list it. */
export function syncTransactions(fetchOne: (signature: string) => Promise<WireTransaction>): SyncTransactions {
  const cache = new Map<string, Promise<WireTransaction>>();
  let fetched = 0;
  return {
    fetch(signature) {
      let pending = cache.get(signature);
      if (!pending) {
        pending = fetchOne(signature).then((tx) => {
          fetched++;
          return tx;
        });
        cache.set(signature, pending);
      }
      return pending;
    },
    requested: (signature) => cache.has(signature),
    fetched: () => fetched,
  };
}
