// Each token account's balance history: its signatures walked from the tenant's cursor and each
// transaction read (or reused when stored), or, after a getTransactionsForAddress read of the
// wallet, that read split per account. Raw balances must chain (checkBalanceChain); what does not
// is a named gap, and a walk with a gap keeps its cursor.
import type { BalanceChangeObs, TokenAccountObs } from "../../domain/observations";
import { extractBalanceChanges } from "./decode";
import type { SyncOptions } from "./history";
import type { Rpc } from "./rpc";
import { EMPTY_CURSOR, walkAddress, type WalkCursor } from "./signatures";
import { DEADLINE_GAP, mapBounded, unreadGaps, walkCursorMoves, type SyncGap, type SyncTransactions } from "./walk-common";
import type { FastHistory } from "./wallet-history";

/** What every account walk of one sync shares. */
export interface AccountWalkContext {
  rpc: Rpc;
  owner: string;
  /** The tenant's cursors per token account (as given to the sync). */
  cursors: Record<string, WalkCursor>;
  transactions: SyncTransactions;
  /** Per mint, its permanent delegate (its moves of the wallet's tokens are not the wallet's). */
  permanentDelegates: Map<string, string>;
  opts: Pick<SyncOptions, "pageLimit" | "maxPages" | "signal" | "parallel" | "storedChanges">;
  /** Progress: transactions still to read, then each one read. */
  onListed: (n: number) => void;
  onRead: () => void;
}

export interface BalanceHistory {
  /** Per account, oldest first; accounts in the order given. */
  changes: BalanceChangeObs[];
  gaps: SyncGap[];
  /** The cursors of the accounts walked that move. */
  cursors: Record<string, WalkCursor>;
  /** The wallet's successful transactions the account walks listed. */
  listed: string[];
}

interface AccountWalk {
  changes: BalanceChangeObs[];
  gaps: SyncGap[];
  /** Where the account's cursor moves; null: it stays. */
  cursor: WalkCursor | null;
  listed: string[];
}

/** Every account's history walked the standard way, at once. */
export async function walkAccounts(ctx: AccountWalkContext, accounts: TokenAccountObs[]): Promise<BalanceHistory> {
  const out: BalanceHistory = { changes: [], gaps: [], cursors: {}, listed: [] };
  const walks = await Promise.all(accounts.map(async (account) => collect(out, account, await walkAccount(ctx, account))));
  out.changes = walks.flat();
  return out;
}

/** Adds a finished walk's gaps, cursor and listing to `out` (as it finishes); returns its changes. */
function collect(out: BalanceHistory, account: TokenAccountObs, walk: AccountWalk): BalanceChangeObs[] {
  out.gaps.push(...walk.gaps);
  if (walk.cursor) out.cursors[account.tokenAccount] = walk.cursor;
  out.listed.push(...walk.listed);
  return walk.changes;
}

/** One token account's balance history, from its cursor. */
async function walkAccount(ctx: AccountWalkContext, account: TokenAccountObs): Promise<AccountWalk> {
  const { opts } = ctx;
  const address = account.tokenAccount;
  const cursor = ctx.cursors[address];
  const gaps: SyncGap[] = [];
  const walk = await walkAddress(ctx.rpc, address, cursor, opts);
  if (walk.error && !opts.signal?.aborted) gaps.push({ address, reason: walk.error });
  const wanted = walk.signatures.filter((s) => s.err == null); // a failed transaction moved no tokens
  // Progress counts the transactions still to read (the wallet's own walk read most already).
  const counted = new Set(wanted.filter((s) => !ctx.transactions.requested(s.signature)).map((s) => s.signature));
  ctx.onListed(counted.size);
  const stored = (await opts.storedChanges?.(address, wanted.map((s) => s.signature))) ?? new Map<string, BalanceChangeObs[]>();
  const unread: string[] = [];
  const perTx = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (s) => {
    try {
      const known = stored.get(s.signature);
      if (known) return known;
      const tx = await ctx.transactions.fetch(s.signature);
      return extractBalanceChanges(tx, ctx.owner, { signature: s.signature, tokenAccount: address, permanentDelegates: ctx.permanentDelegates });
    } catch (err) {
      if (!opts.signal?.aborted) unread.push(`transaction ${s.signature}: ${(err as Error).message}`);
      return [];
    } finally {
      if (counted.has(s.signature)) ctx.onRead();
    }
  });
  gaps.push(...unreadGaps(address, unread));
  if (opts.signal?.aborted) gaps.push({ address, reason: DEADLINE_GAP });
  // Oldest first: the order in which the balances must chain.
  const changes = (perTx ?? []).reverse().flat();
  const complete = gaps.length === 0 && !walk.capped;
  if (complete) gaps.push(...checkBalanceChain(account, changes, (cursor ?? EMPTY_CURSOR).newest === null && !cursor?.resume));
  return { changes, gaps, cursor: walkCursorMoves(walk, gaps) ? walk.cursor : null, listed: wanted.map((s) => s.signature) };
}

export interface FastBalanceHistory extends BalanceHistory {
  /**
   * The read added up (or only its page budget stopped it) and every account walked instead was
   * read in full: the wallet's history cursor may move.
   */
  readInFull: boolean;
}

/**
 * The fast read's transactions, split per account. A full read whose balances of an account do
 * not start at 0 reaches back before what the provider can filter (or the provider missed
 * some): that account is walked the standard way instead.
 */
export async function changesFromFastHistory(ctx: AccountWalkContext, read: FastHistory, accounts: TokenAccountObs[], full: boolean): Promise<FastBalanceHistory> {
  const out: BalanceHistory = { changes: [], gaps: [], cursors: {}, listed: [] };
  const { byAccount, unread } = splitPerAccount(read, ctx.owner, ctx.permanentDelegates);
  const fastGaps = unreadGaps(ctx.owner, unread);
  const perAccount = await Promise.all(accounts.map(async (account) => {
    const changes = byAccount.get(account.tokenAccount) ?? [];
    if (read.capped) return changes;
    const problems = checkBalanceChain(account, changes, full);
    if (problems.length && full) return collect(out, account, await walkAccount(ctx, account));
    fastGaps.push(...problems);
    return changes;
  }));
  if (read.capped) fastGaps.push({ address: ctx.owner, reason: `wallet history walk stopped after ${read.pages} pages (the per-sync budget); the next sync resumes it` });
  // An account walked the standard way with a gap holds the read's cursor too: only a read from
  // scratch walks an account the standard way, so moving the cursor would leave that gap unread.
  const readInFull = out.gaps.length === 0 && (fastGaps.length === 0 || (read.capped && fastGaps.length === 1));
  return { changes: perAccount.flat(), gaps: [...out.gaps, ...fastGaps], cursors: out.cursors, listed: out.listed, readInFull };
}

/** The balance changes of each token account in the read, and the transactions that could not be read. */
function splitPerAccount(read: FastHistory, owner: string, permanentDelegates: Map<string, string>) {
  const unread: string[] = [];
  const byAccount = new Map<string, BalanceChangeObs[]>();
  for (const { signature, tx } of read.transactions) {
    try {
      for (const c of extractBalanceChanges(tx, owner, { signature, permanentDelegates })) {
        const list = byAccount.get(c.tokenAccount);
        if (list) list.push(c);
        else byAccount.set(c.tokenAccount, [c]);
      }
    } catch (err) {
      unread.push(`transaction ${signature}: ${(err as Error).message}`);
    }
  }
  return { byAccount, unread };
}

/**
 * Raw balances must chain: each change starts where the previous one ended, and the balance the
 * chain reports now is where the history ends (at the accounts' snapshot slot). A full walk must
 * also start from zero. Anything else means a missing or misreported transaction or balance.
 */
export function checkBalanceChain(account: TokenAccountObs, changes: BalanceChangeObs[], fullHistory: boolean): SyncGap[] {
  const address = account.tokenAccount;
  const gaps: SyncGap[] = [];
  if (fullHistory && changes.length > 0 && changes[0]!.preRaw !== 0n) {
    gaps.push({ address, reason: `history starts at raw balance ${changes[0]!.preRaw}, not 0 (older transactions missing)` });
  }
  for (let i = 1; i < changes.length; i++) {
    if (changes[i]!.preRaw !== changes[i - 1]!.postRaw) {
      gaps.push({
        address,
        reason: `balance history does not chain at ${changes[i]!.signature}: previous post ${changes[i - 1]!.postRaw}, this pre ${changes[i]!.preRaw}`,
      });
    }
  }
  // The balance at the snapshot slot: the post of the last change at or before it, else the pre of the first change after it.
  const before = changes.filter((c) => c.slot <= account.slot);
  const after = changes.filter((c) => c.slot > account.slot);
  const expected = before.length > 0 ? before[before.length - 1]!.postRaw : after.length > 0 ? after[0]!.preRaw : fullHistory ? 0n : null;
  if (expected !== null && expected !== account.rawBalance) {
    gaps.push({ address, reason: `balance mismatch: the chain reports raw ${account.rawBalance}, the transaction history gives ${expected}` });
  }
  return gaps;
}
