// Stage 2 of a wallet's chain read, read: one token account's new transactions, its signatures
// walked from the tenant's cursor and each successful transaction fetched (once per sync,
// however many walks list it), or its balance changes reused when an earlier sync stored them.
// Nothing is decoded here: what each transaction says is the next stage's (balance-changes.ts).
import type { BalanceChangeObs, TokenAccountObs } from "../../../domain/observations";
import type { Rpc } from "../rpc";
import { walkAddress, type WalkCursor } from "../signatures";
import type { AccountRead, SyncOptions, SyncTransactions } from "./types";
import { mapBounded } from "./walk-common";

/** What every account read of one sync shares. */
export interface AccountReadContext {
  rpc: Rpc;
  /** The tenant's cursors per token account (as given to the sync). */
  cursors: Record<string, WalkCursor>;
  transactions: SyncTransactions;
  opts: Pick<SyncOptions, "pageLimit" | "maxPages" | "signal" | "parallel" | "storedChanges">;
  /** Progress: transactions still to read, then each one read. */
  onListed: (n: number) => void;
  onRead: () => void;
}

/** One token account's history from its cursor: the signatures listed, each transaction read, stored, or why not. */
export async function readAccountTransactions(ctx: AccountReadContext, account: TokenAccountObs): Promise<AccountRead> {
  const { opts } = ctx;
  const address = account.tokenAccount;
  const from = ctx.cursors[address];
  const walk = await walkAddress(ctx.rpc, address, from, opts);
  const walkError = walk.error && !opts.signal?.aborted ? walk.error : null;
  const wanted = walk.signatures.filter((s) => s.err == null).map((s) => s.signature); // a failed transaction moved no tokens
  // Progress counts the transactions still to read (the wallet's own walk read most already).
  const counted = new Set(wanted.filter((signature) => !ctx.transactions.requested(signature)));
  ctx.onListed(counted.size);
  const stored = (await opts.storedChanges?.(address, wanted)) ?? new Map<string, BalanceChangeObs[]>();
  const transactions = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (signature) => {
    try {
      const known = stored.get(signature);
      if (known) return { signature, stored: known };
      return { signature, tx: await ctx.transactions.fetch(signature) };
    } catch (err) {
      return { signature, unread: opts.signal?.aborted ? null : (err as Error).message };
    } finally {
      if (counted.has(signature)) ctx.onRead();
    }
  });
  return { account, from, walk, walkError, listed: wanted, transactions, deadlinePassed: !!opts.signal?.aborted };
}
