// One wallet's chain history → observations. Reads the wallet's Token-2022 accounts (open ones
// from the listing, closed ones from the wallet's own history: wallet-history.ts), their mints'
// Scaled UI Amount state and metadata, each account's signatures (incremental from a cursor) and
// transactions, and the history of each mint's multiplier authority, earlier authorities included
// (authorities.ts), which holds every UpdateMultiplier. Where the provider offers
// getTransactionsForAddress, one walk of the wallet replaces the owner's and every account's.
//
// No silent cap: whatever cannot be fetched after the RPC's retries, or does not add up, becomes
// a named gap and the walk goes on. A walk with a gap keeps its previous cursor, so the next
// sync fetches that stretch again instead of stepping over it (downstream writes are idempotent).
// Every walk has a page budget and the whole sync a deadline (an abort signal): a provider that
// never stops answering costs a bounded amount of time and memory per sync.
import type { BalanceChangeObs, InstrumentObs, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../../domain/observations";
import { implausibleMint, readMultiplierHistory, transactionFetcher } from "./authorities";
import { base64Bytes, decodeMintAccount, decodeMintBytes, decodeTokenAccountBytes, extractBalanceChanges, type TokenMetadata } from "./decode";
import type { Rpc } from "./rpc";
import { EMPTY_CURSOR, walkAddress, type WalkCursor, type WalkOptions } from "./signatures";
import { DEADLINE_GAP, mapBounded, syncTransactions, uniqueBy, unreadGaps, type SyncGap } from "./walk-common";
import { readWalletHistoryFast, resolveUnlisted, walkOwnerHistory, type FastHistory } from "./wallet-history";
import { TOKEN_2022_PROGRAM_ID } from "./wire";

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

export async function syncWalletChain(rpc: Rpc, owner: string, given: Partial<SyncCursors> = {}, opts: SyncOptions = {}): Promise<WalletChainSync> {
  const cursors: SyncCursors = { accounts: given.accounts ?? {}, authorities: given.authorities ?? {}, ...(given.history ? { history: given.history } : {}) };
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const progress = opts.onProgress ?? (() => {});
  const callsAtStart = rpc.stats().requests;
  const gaps: SyncGap[] = [];
  const next: SyncCursors = { ...cursors, accounts: { ...cursors.accounts }, authorities: { ...cursors.authorities } };
  const covered = new Set<string>();
  const transactions = syncTransactions(transactionFetcher(rpc));
  const fetchTransaction = transactions.fetch;

  const listed = await listAccounts(rpc, owner, gaps, progress);
  const accountHistory = createCounter("account_history", progress);

  // The wallet's history beyond its open accounts: one fast walk, or the owner's signatures.
  let fast: FastHistory | null = null;
  if (rpc.offersTransactionsForAddress()) {
    try {
      fast = await readWalletHistoryFast(rpc, owner, cursors.history, { ...opts, onPage: (n) => (accountHistory.add(n), accountHistory.done(n)) });
    } catch {
      fast = null; // not offered here, or a page failed: the standard methods read it instead
    }
  }
  const ownerWalk = fast ? null : await walkOwnerHistory(rpc, owner, cursors.accounts[owner], fetchTransaction, {
    ...opts, onListed: (n) => accountHistory.add(n), onRead: () => accountHistory.done(1), alreadyScanned: opts.alreadyScanned,
  });
  for (const signature of fast ? fast.transactions.map((t) => t.signature) : ownerWalk!.listed) covered.add(signature);
  const listedSet = new Set(listed.accounts.map((a) => a.tokenAccount));
  const unlisted = new Map<string, string | null>();
  for (const a of [...(fast ?? ownerWalk!).accounts, ...(opts.knownAccounts ?? [])]) {
    if (!listedSet.has(a.tokenAccount)) unlisted.set(a.tokenAccount, unlisted.get(a.tokenAccount) ?? a.mint);
  }
  const resolved = await resolveUnlisted(rpc, owner, [...unlisted].map(([tokenAccount, mint]) => ({ tokenAccount, mint })));
  gaps.push(...resolved.gaps);
  const accounts: TokenAccountObs[] = [...listed.accounts, ...resolved.accounts];
  // What the wallet's walk found is stored only when every account it named was resolved.
  let ownerScans: string[] = [];
  if (ownerWalk) {
    gaps.push(...ownerWalk.gaps);
    if (ownerWalk.cursorMoves && resolved.gaps.length === 0) {
      next.accounts[owner] = ownerWalk.cursor;
      ownerScans = ownerWalk.scanned;
    }
  }

  const { mints, permanentDelegates, instruments } = await readMints(rpc, [...new Set(accounts.map((a) => a.mint))], now, gaps, progress);

  // Each token account's balance history.
  async function walkAccount(account: TokenAccountObs, cursor: WalkCursor | undefined) {
    const address = account.tokenAccount;
    const walkGaps: SyncGap[] = [];
    const walk = await walkAddress(rpc, address, cursor, opts);
    if (walk.error && !opts.signal?.aborted) walkGaps.push({ address, reason: walk.error });
    const wanted = walk.signatures.filter((s) => s.err == null); // a failed transaction moved no tokens
    for (const s of wanted) covered.add(s.signature);
    // Progress counts the transactions still to read (the wallet's own walk read most already).
    const counted = new Set(wanted.filter((s) => !transactions.requested(s.signature)).map((s) => s.signature));
    accountHistory.add(counted.size);
    const stored = (await opts.storedChanges?.(address, wanted.map((s) => s.signature))) ?? new Map<string, BalanceChangeObs[]>();
    const unread: string[] = [];
    const perTx = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (s) => {
      try {
        const known = stored.get(s.signature);
        if (known) return known;
        const tx = await fetchTransaction(s.signature);
        return extractBalanceChanges(tx, owner, { signature: s.signature, tokenAccount: address, permanentDelegates });
      } catch (err) {
        if (!opts.signal?.aborted) unread.push(`transaction ${s.signature}: ${(err as Error).message}`);
        return [];
      } finally {
        if (counted.has(s.signature)) accountHistory.done(1);
      }
    });
    walkGaps.push(...unreadGaps(address, unread));
    if (opts.signal?.aborted) walkGaps.push({ address, reason: DEADLINE_GAP });
    // Oldest first: the order in which the balances must chain.
    const changes = (perTx ?? []).reverse().flat();
    const complete = walkGaps.length === 0 && !walk.capped;
    if (complete) walkGaps.push(...checkBalanceChain(account, changes, (cursor ?? EMPTY_CURSOR).newest === null && !cursor?.resume));
    // A capped walk moves its cursor (the stretch it read is in hand); a failed one does not.
    if (walkGaps.length === 0 || (walk.capped && walkGaps.length === 1)) next.accounts[address] = walk.cursor;
    gaps.push(...walkGaps);
    return changes;
  }

  const balanceChanges = fast
    ? await changesFromFastHistory(fast)
    : (await Promise.all(accounts.map((account) => walkAccount(account, cursors.accounts[account.tokenAccount])))).flat();

  /**
   * The fast walk's transactions, split per account. A full walk whose balances of an account do
   * not start at 0 reaches back before what the provider can filter (or the provider missed
   * some): that account is walked the standard way instead.
   */
  async function changesFromFastHistory(read: FastHistory): Promise<BalanceChangeObs[]> {
    const fastGaps: SyncGap[] = [];
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
    fastGaps.push(...unreadGaps(owner, unread));
    const full = !cursors.history?.newest;
    const out: BalanceChangeObs[][] = await Promise.all(accounts.map(async (account) => {
      const changes = byAccount.get(account.tokenAccount) ?? [];
      if (read.capped) return changes;
      const problems = checkBalanceChain(account, changes, full);
      if (problems.length && full) return walkAccount(account, cursors.accounts[account.tokenAccount]);
      fastGaps.push(...problems);
      return changes;
    }));
    if (read.capped) fastGaps.push({ address: owner, reason: `wallet history walk stopped after ${read.pages} pages (the per-sync budget); the next sync resumes it` });
    if (resolved.gaps.length === 0 && (fastGaps.length === 0 || (read.capped && fastGaps.length === 1))) {
      next.history = read.cursor;
      ownerScans = read.transactions.map((t) => t.signature);
    }
    gaps.push(...fastGaps);
    return out.flat();
  }

  // Multiplier updates, from each authority's history (earlier authorities included).
  const multiplierHistory = createCounter("multiplier_history", progress);
  const authorities = await readMultiplierHistory(rpc, mints, cursors.authorities, (await opts.storedUpdates?.(mints.map((m) => m.mint))) ?? null, {
    ...opts, fetchTransaction, onListed: (n) => multiplierHistory.add(n), onRead: () => multiplierHistory.done(1),
  });
  gaps.push(...authorities.gaps);
  Object.assign(next.authorities, authorities.cursors);

  return {
    accounts,
    balanceChanges: dedupeChanges(balanceChanges),
    mints,
    instruments,
    multiplierUpdates: authorities.updates,
    ownerScans,
    cursors: next,
    gaps,
    historyMethod: fast ? "getTransactionsForAddress" : "standard",
    walletTransactions: covered.size,
    transactionsFetched: transactions.fetched() + (fast?.transactions.length ?? 0),
    rpcCalls: rpc.stats().requests - callsAtStart,
  };
}

const dedupeChanges = (changes: BalanceChangeObs[]): BalanceChangeObs[] => uniqueBy(changes, (c) => `${c.signature}:${c.tokenAccount}`);

/** The wallet's open Token-2022 accounts. Without them there is nothing to sync: a failure is an error. */
async function listAccounts(rpc: Rpc, owner: string, gaps: SyncGap[], progress: (p: SyncProgress) => void): Promise<{ slot: number; accounts: TokenAccountObs[] }> {
  progress({ phase: "accounts", done: 0, total: 1 });
  const listed = await rpc.getTokenAccountsByOwner(owner);
  const accounts: TokenAccountObs[] = [];
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
  return { slot: listed.slot, accounts };
}

/** Mint states (decimals, multipliers, the authority whose history holds the updates) and metadata names. */
async function readMints(rpc: Rpc, mintAddresses: string[], now: () => number, gaps: SyncGap[], progress: (p: SyncProgress) => void) {
  const mints: MintStateObs[] = [];
  const instruments: InstrumentObs[] = [];
  const permanentDelegates = new Map<string, string>();
  progress({ phase: "mints", done: 0, total: mintAddresses.length });
  if (mintAddresses.length > 0) {
    try {
      const read = await rpc.getMultipleAccounts(mintAddresses);
      read.accounts.forEach((account, i) => {
        const mint = mintAddresses[i]!;
        if (!account) {
          gaps.push({ address: mint, reason: "mint account not found" });
          return;
        }
        try {
          const state = decodeMintAccount(mint, account, { slot: read.slot, observedAt: now() });
          const problem = state ? implausibleMint(state) : null;
          if (problem) gaps.push({ address: mint, reason: `${problem}: mint state ignored` });
          else if (state) mints.push(state);
          const decoded = account.owner === TOKEN_2022_PROGRAM_ID ? decodeMintBytes(base64Bytes(account.data)) : null;
          if (decoded?.permanentDelegate) permanentDelegates.set(mint, decoded.permanentDelegate);
          const named = state && !problem && decoded?.metadata ? metadataInstrument(mint, decoded.metadata, decoded.decimals) : null;
          if (named) instruments.push(named);
        } catch (err) {
          gaps.push({ address: mint, reason: `mint account unreadable: ${(err as Error).message}` });
        }
      });
    } catch (err) {
      for (const mint of mintAddresses) gaps.push({ address: mint, reason: `mint state unavailable: ${(err as Error).message}` });
    }
  }
  progress({ phase: "mints", done: mintAddresses.length, total: mintAddresses.length });
  return { mints, permanentDelegates, instruments };
}

/** Longest metadata text kept (a mint's metadata is anyone's to write: bounded, control characters dropped). */
const METADATA_LIMITS = { name: 200, symbol: 32, uri: 500 } as const;
const clean = (s: string, max: number): string => s.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, max);

/** The instrument a mint's own metadata names (for mints no issuer feed lists), or null when it names none. */
export function metadataInstrument(mint: string, metadata: TokenMetadata, decimals: number): InstrumentObs | null {
  const symbol = clean(metadata.symbol, METADATA_LIMITS.symbol);
  const name = clean(metadata.name, METADATA_LIMITS.name);
  if (!symbol && !name) return null;
  const uri = clean(metadata.uri, METADATA_LIMITS.uri);
  return { mint, symbol: symbol || name.slice(0, METADATA_LIMITS.symbol), name: name || null, underlying: null, isin: null, decimals, source: "token-metadata", uri: uri || null };
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

