// What the stages of a wallet's chain read share (pipeline.ts runs them): the gaps they name, the
// cursors they move, the progress they report, what each stage hands the next, a sync's options
// and its result. Types only, at the bottom: every stage imports this module, it imports none.
import type { OwnerTransactionChanges } from "../../../domain/lots/owner-changes";
import type { BalanceChangeObs, InstrumentObs, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../../../domain/observations";
import type { SignatureWalk, WalkCursor, WalkOptions } from "../signatures";
import type { WireTransaction } from "../wire";

export interface SyncGap {
  /** The token account, mint, wallet or authority whose history is incomplete. */
  address: string;
  reason: string;
}

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
  /** The owner's part of each transaction read in which its balance of a Scaled UI mint changed (docs/lots.md#what-the-sync-stores). */
  transactionChanges: OwnerTransactionChanges[];
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

/** One sync's transaction reads, shared by all its walks. */
export interface SyncTransactions {
  /** The transaction, fetched once per sync however many walks list it. */
  fetch: (signature: string) => Promise<WireTransaction>;
  /** Whether a walk of this sync already asked for it (read, or being read). */
  requested: (signature: string) => boolean;
  /** How many were fetched from the node (failed reads not counted). */
  fetched: () => number;
}

/** One phase's progress: `add` what is newly listed, `done` what is read. */
export interface PhaseCounter {
  add(n: number): void;
  done(n: number): void;
}

/** A token account of the owner seen in its history; the mint is null when no balance named it. */
export interface SeenAccount {
  tokenAccount: string;
  mint: string | null;
}

/** The standard read of the wallet's own history: its address's new signatures and transactions. */
export interface OwnerWalk {
  accounts: SeenAccount[];
  gaps: SyncGap[];
  cursor: WalkCursor;
  cursorMoves: boolean;
  /** Successful transactions listed, scanned now or before. */
  listed: string[];
  /** Transactions scanned now (what they named is in `accounts`). */
  scanned: string[];
}

/** The wallet's history read at once with getTransactionsForAddress: its accounts' transactions too. */
export interface FastHistory {
  /** The wallet's transactions read, oldest first. */
  transactions: { signature: string; tx: WireTransaction }[];
  accounts: SeenAccount[];
  /** The newest transaction read and its slot (the next walk starts there). */
  cursor: WalkCursor;
  /** The page budget ran out: the rest is read by the next sync. */
  capped: boolean;
  pages: number;
}

/** The wallet's history beyond its open accounts, as it was read. */
export type WalletHistory = { method: "getTransactionsForAddress"; read: FastHistory } | { method: "standard"; walk: OwnerWalk };

/** Stage 1, list: the wallet's token accounts, open and those its history names, and how that history was read. */
export interface WalletAccounts {
  accounts: TokenAccountObs[];
  history: WalletHistory;
  /** In the order they are reported: the listing's, the accounts resolved, the history read. */
  gaps: SyncGap[];
  /** Every account the history named was resolved (the history's cursor may move). */
  allResolved: boolean;
}

/** One listed transaction of an account, as the read stage left it. */
export type ReadTransaction =
  | { signature: string; tx: WireTransaction }
  /** Its balance changes were stored by an earlier sync: not fetched again. */
  | { signature: string; stored: BalanceChangeObs[] }
  /** Not read: why, or null when it failed after the sync's deadline (the deadline's gap says it). */
  | { signature: string; unread: string | null };

/** Stage 2, read: one token account's new transactions from its cursor. */
export interface AccountRead {
  account: TokenAccountObs;
  /** The cursor the walk started from (none: from the newest, the whole history). */
  from: WalkCursor | undefined;
  walk: SignatureWalk;
  /** The walk's own failure (a page unavailable, paging that repeats), unless the deadline caused it. */
  walkError: string | null;
  /** The successful transactions listed, newest first. */
  listed: string[];
  /** Per listed transaction, in the same order; null when the sync's deadline cut the read short. */
  transactions: ReadTransaction[] | null;
  /** The sync's deadline passed during the read. */
  deadlinePassed: boolean;
}

/** What decoding a wallet's transactions needs to know. */
export interface DecodeContext {
  owner: string;
  /** Per mint, its permanent delegate (a seizure is its move, not the wallet's). */
  permanentDelegates: ReadonlyMap<string, string>;
  /** The mints with a Scaled UI Amount state: a transaction moving one keeps the owner's part. */
  scaledMints: ReadonlySet<string>;
}

/** Stage 3, decode: an account's balance changes, oldest first, the owner's parts of the transactions fetched, and the transactions that could not be read or decoded. */
export interface AccountChanges {
  changes: BalanceChangeObs[];
  unread: string[];
  /** Only of transactions fetched now: a transaction reused from storage had its part stored with it. */
  parts: OwnerTransactionChanges[];
}

/** Stage 4, balances: what one account's read adds up to. */
export interface AccountBalances {
  changes: BalanceChangeObs[];
  parts: OwnerTransactionChanges[];
  gaps: SyncGap[];
  /** Where the account's cursor moves; null: it stays. */
  cursor: WalkCursor | null;
  listed: string[];
}

/** Stage 4 for every account. */
export interface BalanceHistory {
  /** Per account, oldest first; accounts in the order given. */
  changes: BalanceChangeObs[];
  parts: OwnerTransactionChanges[];
  gaps: SyncGap[];
  /** The cursors of the accounts walked that move. */
  cursors: Record<string, WalkCursor>;
  /** The wallet's successful transactions the account walks listed. */
  listed: string[];
  /**
   * The wallet's history read (the owner's walk, or the fast read) added up, so that its cursor
   * may move: for a fast read, only its page budget stopped it, and every account walked instead
   * was read in full.
   */
  readInFull: boolean;
}
