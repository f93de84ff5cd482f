// The wallet's own history, beyond the token accounts it holds now. `getTokenAccountsByOwner`
// lists only open accounts; an account the wallet closed is found through the wallet's own
// history, since the owner signs the transfers out and the CloseAccount. Two ways to read it:
//
// - standard methods: the owner address's signatures (a cursor per tenant, like a token
//   account's) and each transaction, whose token balances and CloseAccount instructions name the
//   owner's Token-2022 accounts;
// - a provider's getTransactionsForAddress (docs/providers.md): one call returns up to 100 of the
//   wallet's transactions with their bodies, those of every token account it owns or owned
//   included, oldest first from a slot, so one walk replaces the owner's and every account's.
//
// Part of the list stage (list.ts): the accounts found this way are resolved there. A fast read's
// transactions go on to the decode stage (balance-changes.ts) as they are.
import { ownerTokenAccounts } from "../decode";
import { ADDRESS_TRANSACTIONS_PAGE, TOKEN_OWNER_METADATA_SLOT, type Rpc } from "../rpc";
import { DEFAULT_MAX_PAGES, SIGNATURE_PAGE_LIMIT, walkAddress, type WalkCursor, type WalkOptions } from "../signatures";
import type { WireTransaction } from "../wire";
import type { FastHistory, OwnerWalk, PhaseCounter, SeenAccount, SyncCursors, SyncGap, SyncOptions, SyncTransactions, WalletHistory } from "./types";
import { DEADLINE_GAP, mapBounded, unreadGaps, walkCursorMoves } from "./walk-common";

/**
 * One fast read where the provider offers getTransactionsForAddress, else the walk of the owner's
 * signatures; either is counted in `counter` (the account_history phase).
 */
export async function readWalletHistory(rpc: Rpc, owner: string, cursors: SyncCursors, transactions: SyncTransactions, counter: PhaseCounter, opts: SyncOptions): Promise<WalletHistory> {
  if (rpc.offersTransactionsForAddress()) {
    try {
      const read = await readWalletHistoryFast(rpc, owner, cursors.history, { ...opts, onPage: (n) => (counter.add(n), counter.done(n)) });
      return { method: "getTransactionsForAddress", read };
    } catch {
      // not offered here, or a page failed: the standard methods read it instead
    }
  }
  const walk = await walkOwnerHistory(rpc, owner, cursors.accounts[owner], transactions.fetch, {
    ...opts,
    onListed: (n) => counter.add(n),
    onRead: () => counter.done(1),
  });
  return { method: "standard", walk };
}

/** The token accounts the history read names as the wallet's. */
export const historyAccounts = (history: WalletHistory): SeenAccount[] => (history.method === "standard" ? history.walk : history.read).accounts;
export const historyGaps = (history: WalletHistory): SyncGap[] => (history.method === "standard" ? history.walk.gaps : []);
/** The wallet's transactions the history read listed. */
export const historyListed = (history: WalletHistory): string[] => (history.method === "standard" ? history.walk.listed : history.read.transactions.map((t) => t.signature));

/**
 * Standard methods: the owner address's new signatures and transactions, for the accounts they
 * name. Transactions an earlier sync already scanned (`alreadyScanned`: what they named is
 * stored) are not fetched again.
 */
export async function walkOwnerHistory(
  rpc: Rpc,
  owner: string,
  cursor: WalkCursor | undefined,
  fetchTransaction: (signature: string) => Promise<WireTransaction>,
  opts: WalkOptions & { signal?: AbortSignal; parallel?: number; onListed?: (n: number) => void; onRead?: () => void; alreadyScanned?: (signatures: string[]) => Promise<Set<string>> },
): Promise<OwnerWalk> {
  const gaps: SyncGap[] = [];
  const walk = await walkAddress(rpc, owner, cursor, opts);
  if (walk.error && !opts.signal?.aborted) gaps.push({ address: owner, reason: walk.error });
  const listed = walk.signatures.filter((s) => s.err == null).map((s) => s.signature);
  const before = (await opts.alreadyScanned?.(listed)) ?? new Set<string>();
  const wanted = listed.filter((s) => !before.has(s));
  opts.onListed?.(wanted.length);
  const unread: string[] = [];
  const scanned: string[] = [];
  const found = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (signature) => {
    try {
      const seen = ownerTokenAccounts(await fetchTransaction(signature), owner);
      scanned.push(signature);
      return seen;
    } catch (err) {
      if (!opts.signal?.aborted) unread.push(`transaction ${signature}: ${(err as Error).message}`);
      return [];
    } finally {
      opts.onRead?.();
    }
  });
  gaps.push(...unreadGaps(owner, unread));
  if (opts.signal?.aborted) gaps.push({ address: owner, reason: DEADLINE_GAP });
  return { accounts: mergeSeen((found ?? []).flat()), gaps, cursor: walk.cursor, cursorMoves: walkCursorMoves(walk, gaps), listed, scanned };
}

/**
 * getTransactionsForAddress from `cursor` (or from the first slot the provider can filter token
 * accounts in), oldest first, within the same budget of transactions as a standard walk.
 * Throws when the provider does not offer it or a page fails: the caller reads the standard way.
 */
export async function readWalletHistoryFast(rpc: Rpc, owner: string, cursor: WalkCursor | undefined, opts: WalkOptions & { signal?: AbortSignal; onPage?: (n: number) => void }): Promise<FastHistory> {
  const maxPages = (opts.maxPages ?? DEFAULT_MAX_PAGES) * Math.ceil(SIGNATURE_PAGE_LIMIT / ADDRESS_TRANSACTIONS_PAGE);
  const fromSlot = cursor?.newest && cursor.newestSlot != null ? cursor.newestSlot : TOKEN_OWNER_METADATA_SLOT;
  const out: FastHistory["transactions"] = [];
  // Transactions of the cursor's own slot up to the cursor were read before: held back until the
  // cursor is met (then dropped) or the slot is passed without it (then kept: reading twice is harmless).
  let held: FastHistory["transactions"] | null = cursor?.newest && cursor.newestSlot != null ? [] : null;
  let token: string | undefined;
  let pages = 0;
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
    const page = await rpc.getTransactionsForAddress(owner, { paginationToken: token, slotGte: fromSlot });
    pages++;
    for (const tx of page.data) {
      const signature = tx.transaction.signatures[0]!;
      if (tx.blockTime == null) tx.blockTime = await rpc.getBlockTime(tx.slot);
      if (held !== null) {
        if (signature === cursor!.newest) {
          held = null;
          continue;
        }
        if (tx.slot === fromSlot) {
          held.push({ signature, tx });
          continue;
        }
        out.push(...held);
        held = null;
      }
      out.push({ signature, tx });
    }
    opts.onPage?.(page.data.length);
    token = page.paginationToken ?? undefined;
    if (!token) break;
    if (pages >= maxPages) {
      if (held) out.push(...held);
      return { transactions: out, accounts: seenIn(out, owner), cursor: cursorAt(out, cursor), capped: true, pages };
    }
  }
  if (held) out.push(...held);
  return { transactions: out, accounts: seenIn(out, owner), cursor: cursorAt(out, cursor), capped: false, pages };
}

const cursorAt = (read: FastHistory["transactions"], previous: WalkCursor | undefined): WalkCursor => {
  const last = read.at(-1);
  return last ? { newest: last.signature, newestSlot: last.tx.slot, resume: null } : (previous ?? { newest: null, newestSlot: null, resume: null });
};

const seenIn = (read: FastHistory["transactions"], owner: string): SeenAccount[] => mergeSeen(read.flatMap((r) => ownerTokenAccounts(r.tx, owner)));

function mergeSeen(seen: SeenAccount[]): SeenAccount[] {
  const byAccount = new Map<string, string | null>();
  for (const s of seen) byAccount.set(s.tokenAccount, byAccount.get(s.tokenAccount) ?? s.mint);
  return [...byAccount].map(([tokenAccount, mint]) => ({ tokenAccount, mint }));
}
