// One wallet's chain history → observations. Reads the wallet's Token-2022 accounts (open ones
// from the listing, closed ones from the wallet's own history: wallet-history.ts), their mints'
// Scaled UI Amount state and metadata (mint-states.ts), each account's signatures (incremental
// from a cursor) and transactions (balance-history.ts), and the history of each mint's multiplier
// authority, earlier authorities included (authorities.ts), which holds every UpdateMultiplier.
// Where the provider offers getTransactionsForAddress, one walk of the wallet replaces the
// owner's and every account's.
//
// No silent cap: whatever cannot be fetched after the RPC's retries, or does not add up, becomes
// a named gap and the walk goes on. A walk with a gap keeps its previous cursor, so the next
// sync fetches that stretch again instead of stepping over it (downstream writes are idempotent).
// Every walk has a page budget and the whole sync a deadline (an abort signal): a provider that
// never stops answering costs a bounded amount of time and memory per sync.
import type { BalanceChangeObs, InstrumentObs, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../../domain/observations";
import { readMultiplierHistory, transactionFetcher, type MultiplierHistory } from "./authorities";
import { changesFromFastHistory, walkAccounts, type AccountWalkContext, type BalanceHistory } from "./balance-history";
import { base64Bytes, decodeTokenAccountBytes } from "./decode";
import { readMints } from "./mint-states";
import type { Rpc } from "./rpc";
import type { WalkCursor, WalkOptions } from "./signatures";
import { syncTransactions, uniqueBy, type SyncGap, type SyncTransactions } from "./walk-common";
import { readWalletHistoryFast, resolveUnlisted, walkOwnerHistory, type FastHistory, type OwnerWalk, type SeenAccount } from "./wallet-history";

export type { SyncGap } from "./walk-common";
export { DEADLINE_GAP } from "./walk-common";

/**
 * Walk cursors in, advanced cursors out. Token accounts and the wallet's own address are walked
 * from the caller's cursors (a tenant's own, see the sync job); authorities from cursors shared by
 * every wallet, because an authority's history is the same whoever asks.
 */
export interface SyncCursors {
  /** Per token account, and under the wallet's address its own history (where closed accounts are found). */
  accounts: Record<string, WalkCursor>;
  authorities: Record<string, WalkCursor>;
  /** The wallet's whole history through getTransactionsForAddress (the newest transaction read and its slot). */
  history?: WalkCursor;
}

export type SyncPhase = "accounts" | "mints" | "account_history" | "multiplier_history";

export interface SyncProgress {
  phase: SyncPhase;
  done: number;
  total: number;
}

export interface SyncOptions extends WalkOptions {
  /** Our clock, unix seconds (MintStateObs.observedAt). */
  now?: () => number;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Balance changes already stored for these signatures of a token account: reused instead of
   * fetching the transaction again (another tenant's sync, or an earlier one, stored them).
   */
  storedChanges?: (tokenAccount: string, signatures: string[]) => Promise<Map<string, BalanceChangeObs[]>>;
  /** The wallet's token accounts stored by earlier syncs (the listing no longer returns closed ones). */
  knownAccounts?: { tokenAccount: string; mint: string }[];
  /** Which of these wallet transactions an earlier sync scanned for token accounts (what they named is known). */
  alreadyScanned?: (signatures: string[]) => Promise<Set<string>>;
  /**
   * Multiplier updates already stored for these mints. With them every sync checks each mint
   * against its whole known history; without, only what this walk read.
   */
  storedUpdates?: (mints: string[]) => Promise<MultiplierUpdateObs[]>;
  /** Aborted at the sync's deadline: what is not read by then becomes a named gap. */
  signal?: AbortSignal;
  /** Transactions fetched at once per walk (keeps one wallet from crowding the shared RPC queue). */
  parallel?: number;
}

export interface WalletChainSync {
  /** Open accounts and closed ones (balance 0). */
  accounts: TokenAccountObs[];
  balanceChanges: BalanceChangeObs[];
  mints: MintStateObs[];
  /** Names from the Token-2022 metadata of the mints read (source `token-metadata`). */
  instruments: InstrumentObs[];
  /** Every UpdateMultiplier found in the authorities' new history, for every mint they control. */
  multiplierUpdates: MultiplierUpdateObs[];
  /** Wallet transactions scanned for the wallet's token accounts, all of them resolved (stored with them). */
  ownerScans: string[];
  /** The input cursors with every walked address advanced as far as it was read. */
  cursors: SyncCursors;
  gaps: SyncGap[];
  /** How the wallet's history was read. */
  historyMethod: "getTransactionsForAddress" | "standard";
  /**
   * The wallet's own transactions this sync covered (listed on its accounts or its address,
   * fetched or already stored): what the wallet's sync status reports, whoever else follows it.
   */
  walletTransactions: number;
  /** Transactions actually fetched from the node (wallet and authority histories). */
  transactionsFetched: number;
  /** HTTP attempts made through `rpc` during this sync (retries included). */
  rpcCalls: number;
}

/**
 * One sync of the wallet, step by step: list its open accounts; read its history (fast, or the
 * owner's walk) for the accounts it no longer lists; read their mints; read each account's
 * balances; walk the mints' multiplier authorities. Every step's gaps are kept, in that order.
 */
export async function syncWalletChain(rpc: Rpc, owner: string, given: Partial<SyncCursors> = {}, opts: SyncOptions = {}): Promise<WalletChainSync> {
  const cursors: SyncCursors = { accounts: given.accounts ?? {}, authorities: given.authorities ?? {}, ...(given.history ? { history: given.history } : {}) };
  const progress = opts.onProgress ?? (() => {});
  const callsAtStart = rpc.stats().requests;
  const transactions = syncTransactions(transactionFetcher(rpc));

  const listed = await listAccounts(rpc, owner, progress);
  const accountHistory = createCounter("account_history", progress);
  const history = await readWalletHistory(rpc, owner, cursors, transactions, accountHistory, opts);
  const resolved = await resolveUnlisted(rpc, owner, unlistedAccounts(listed.accounts, history, opts.knownAccounts ?? []));
  const accounts: TokenAccountObs[] = [...listed.accounts, ...resolved.accounts];
  const mints = await readMints(rpc, [...new Set(accounts.map((a) => a.mint))], opts.now ?? unixNow, progress);
  const walks: AccountWalkContext = {
    rpc, owner, cursors: cursors.accounts, transactions, permanentDelegates: mints.permanentDelegates, opts,
    onListed: (n) => accountHistory.add(n), onRead: () => accountHistory.done(1),
  };
  const balances = await readBalances(walks, history, accounts, !cursors.history?.newest);
  // What the wallet's history read found is stored only when every account it named was resolved.
  const wallet = walletAdvance(owner, history, balances.readInFull && resolved.gaps.length === 0);
  const authorities = await readAuthorities(rpc, mints.mints, cursors.authorities, transactions, progress, opts);

  return {
    accounts,
    balanceChanges: dedupeChanges(balances.changes),
    mints: mints.mints,
    instruments: mints.instruments,
    multiplierUpdates: authorities.updates,
    ownerScans: wallet.ownerScans,
    cursors: {
      ...cursors,
      accounts: { ...cursors.accounts, ...wallet.accounts, ...balances.cursors },
      authorities: { ...cursors.authorities, ...authorities.cursors },
      ...(wallet.history ? { history: wallet.history } : {}),
    },
    gaps: [...listed.gaps, ...resolved.gaps, ...historyGaps(history), ...mints.gaps, ...balances.gaps, ...authorities.gaps],
    historyMethod: history.method,
    walletTransactions: new Set([...historyListed(history), ...balances.listed]).size,
    transactionsFetched: transactions.fetched() + (history.method === "getTransactionsForAddress" ? history.read.transactions.length : 0),
    rpcCalls: rpc.stats().requests - callsAtStart,
  };
}

const unixNow = (): number => Math.floor(Date.now() / 1000);
const dedupeChanges = (changes: BalanceChangeObs[]): BalanceChangeObs[] => uniqueBy(changes, (c) => `${c.signature}:${c.tokenAccount}`);

/** The wallet's open Token-2022 accounts. Without them there is nothing to sync: a failure is an error. */
async function listAccounts(rpc: Rpc, owner: string, progress: (p: SyncProgress) => void): Promise<{ slot: number; accounts: TokenAccountObs[]; gaps: SyncGap[] }> {
  progress({ phase: "accounts", done: 0, total: 1 });
  const listed = await rpc.getTokenAccountsByOwner(owner);
  const accounts: TokenAccountObs[] = [];
  const gaps: SyncGap[] = [];
  for (const { pubkey, account } of listed.accounts) {
    try {
      const decoded = decodeTokenAccountBytes(base64Bytes(account.data));
      if (decoded.owner !== owner) {
        gaps.push({ address: pubkey, reason: `token account is owned by ${decoded.owner}, not the wallet` });
        continue;
      }
      accounts.push({ owner, tokenAccount: pubkey, mint: decoded.mint, rawBalance: decoded.amount, slot: listed.slot });
    } catch (err) {
      gaps.push({ address: pubkey, reason: `token account unreadable: ${(err as Error).message}` });
    }
  }
  progress({ phase: "accounts", done: 1, total: 1 });
  return { slot: listed.slot, accounts, gaps };
}

/** The wallet's history beyond its open accounts, as it was read. */
type WalletHistory = { method: "getTransactionsForAddress"; read: FastHistory } | { method: "standard"; walk: OwnerWalk };

/** One fast read where the provider offers getTransactionsForAddress, else the walk of the owner's signatures. */
async function readWalletHistory(rpc: Rpc, owner: string, cursors: SyncCursors, transactions: SyncTransactions, counter: Counter, opts: SyncOptions): Promise<WalletHistory> {
  if (rpc.offersTransactionsForAddress()) {
    try {
      const read = await readWalletHistoryFast(rpc, owner, cursors.history, { ...opts, onPage: (n) => (counter.add(n), counter.done(n)) });
      return { method: "getTransactionsForAddress", read };
    } catch {
      // not offered here, or a page failed: the standard methods read it instead
    }
  }
  const walk = await walkOwnerHistory(rpc, owner, cursors.accounts[owner], transactions.fetch, {
    ...opts, onListed: (n) => counter.add(n), onRead: () => counter.done(1),
  });
  return { method: "standard", walk };
}

const historyGaps = (history: WalletHistory): SyncGap[] => (history.method === "standard" ? history.walk.gaps : []);
/** The wallet's transactions the history read listed. */
const historyListed = (history: WalletHistory): string[] =>
  history.method === "standard" ? history.walk.listed : history.read.transactions.map((t) => t.signature);

/** Accounts the wallet's history (or an earlier sync) names that the listing did not return; the first mint named is kept. */
function unlistedAccounts(listed: TokenAccountObs[], history: WalletHistory, known: SeenAccount[]): SeenAccount[] {
  const listedSet = new Set(listed.map((a) => a.tokenAccount));
  const unlisted = new Map<string, string | null>();
  for (const a of [...(history.method === "standard" ? history.walk : history.read).accounts, ...known]) {
    if (!listedSet.has(a.tokenAccount)) unlisted.set(a.tokenAccount, unlisted.get(a.tokenAccount) ?? a.mint);
  }
  return [...unlisted].map(([tokenAccount, mint]) => ({ tokenAccount, mint }));
}

/**
 * Each account's balance history: each account walked on its own after the owner's walk, or split
 * out of the fast read. `readInFull` says whether the wallet's history read (the owner's walk, or the fast
 * read) added up, so that its cursor may move.
 */
async function readBalances(walks: AccountWalkContext, history: WalletHistory, accounts: TokenAccountObs[], fullFastRead: boolean): Promise<BalanceHistory & { readInFull: boolean }> {
  if (history.method === "getTransactionsForAddress") return changesFromFastHistory(walks, history.read, accounts, fullFastRead);
  return { ...(await walkAccounts(walks, accounts)), readInFull: history.walk.cursorMoves };
}

/** Where the wallet's history read moves its cursor (the owner address's, or the fast read's), and what it scanned. */
function walletAdvance(owner: string, history: WalletHistory, moves: boolean): { accounts: Record<string, WalkCursor>; history?: WalkCursor; ownerScans: string[] } {
  if (!moves) return { accounts: {}, ownerScans: [] };
  if (history.method === "standard") return { accounts: { [owner]: history.walk.cursor }, ownerScans: history.walk.scanned };
  return { accounts: {}, history: history.read.cursor, ownerScans: historyListed(history) };
}

/** Multiplier updates, from each mint authority's history (earlier authorities included), from the cursors every wallet shares. */
async function readAuthorities(rpc: Rpc, mints: MintStateObs[], cursors: Record<string, WalkCursor>, transactions: SyncTransactions, progress: (p: SyncProgress) => void, opts: SyncOptions): Promise<MultiplierHistory> {
  const counter = createCounter("multiplier_history", progress);
  const known = (await opts.storedUpdates?.(mints.map((m) => m.mint))) ?? null;
  return readMultiplierHistory(rpc, mints, cursors, known, {
    ...opts, fetchTransaction: transactions.fetch, onListed: (n) => counter.add(n), onRead: () => counter.done(1),
  });
}

type Counter = ReturnType<typeof createCounter>;

/** One phase's progress: `add` what is newly listed, `done` what is read. */
function createCounter(phase: SyncPhase, report: (p: SyncProgress) => void) {
  let done = 0;
  let total = 0;
  report({ phase, done, total });
  return {
    add(n: number) {
      total += n;
      report({ phase, done, total });
    },
    done(n: number) {
      done += n;
      report({ phase, done, total });
    },
  };
}
