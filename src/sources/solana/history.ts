// One wallet's chain history → observations. Reads the wallet's Token-2022 accounts, their mints'
// Scaled UI Amount state, each account's signatures (incremental from a cursor) and transactions,
// and the history of each mint's multiplier authority, which holds every UpdateMultiplier.
//
// No silent cap: whatever cannot be fetched after the RPC's retries, or does not add up, becomes
// a named gap and the walk goes on. A walk with a gap keeps its previous cursor, so the next
// sync fetches that stretch again instead of stepping over it (downstream writes are idempotent).
// Every walk has a page budget and the whole sync a deadline (an abort signal): a provider that
// never stops answering costs a bounded amount of time and memory per sync.
import type { BalanceChangeObs, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../../domain/observations";
import { base64Bytes, decodeMintAccount, decodeMintBytes, decodeTokenAccountBytes, extractBalanceChanges, findMultiplierUpdates } from "./decode";
import type { Rpc } from "./rpc";
import { EMPTY_CURSOR, walkAddress, type WalkCursor, type WalkOptions } from "./signatures";
import { TOKEN_2022_PROGRAM_ID, type WireSignatureInfo, type WireTransaction } from "./wire";

/**
 * Walk cursors in, advanced cursors out. Token accounts are walked from the caller's cursors
 * (a tenant's own, see the sync job); authorities from cursors shared by every wallet, because an
 * authority's history is the same whoever asks.
 */
export interface SyncCursors {
  accounts: Record<string, WalkCursor>;
  authorities: Record<string, WalkCursor>;
}

export interface SyncGap {
  /** The token account, mint or authority whose history is incomplete. */
  address: string;
  reason: string;
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
  storedChanges?: (tokenAccount: string, signatures: string[]) => Map<string, BalanceChangeObs[]>;
  /** Aborted at the sync's deadline: what is not read by then becomes a named gap. */
  signal?: AbortSignal;
  /** Transactions fetched at once per walk (keeps one wallet from crowding the shared RPC queue). */
  parallel?: number;
}

export interface WalletChainSync {
  accounts: TokenAccountObs[];
  balanceChanges: BalanceChangeObs[];
  mints: MintStateObs[];
  /** Every UpdateMultiplier found in the authorities' new history, for every mint they control. */
  multiplierUpdates: MultiplierUpdateObs[];
  /** The input cursors with every walked address advanced as far as it was read. */
  cursors: SyncCursors;
  gaps: SyncGap[];
  /**
   * The wallet's own transactions this sync covered (listed on its token accounts, fetched or
   * already stored): what the wallet's sync status reports, whoever else follows the wallet.
   */
  walletTransactions: number;
  /** Transactions actually fetched from the node (wallet and authority histories). */
  transactionsFetched: number;
  /** HTTP attempts made through `rpc` during this sync (retries included). */
  rpcCalls: number;
}

/** What a walk cut short by the sync's deadline says (what it read before is kept). */
export const DEADLINE_GAP = "the sync's deadline passed before this history was read in full";

/** Decimals above this cannot describe a real token (u64 holds under 20 digits). */
export const MAX_DECIMALS = 18;

export async function syncWalletChain(rpc: Rpc, owner: string, given: Partial<SyncCursors> = {}, opts: SyncOptions = {}): Promise<WalletChainSync> {
  const cursors: SyncCursors = { accounts: given.accounts ?? {}, authorities: given.authorities ?? {} };
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const progress = opts.onProgress ?? (() => {});
  const callsAtStart = rpc.stats().requests;
  const gaps: SyncGap[] = [];
  const next: SyncCursors = { accounts: { ...cursors.accounts }, authorities: { ...cursors.authorities } };
  const counts = { fetched: 0, wallet: 0 };

  // A transaction is fetched once per sync even when several walks list it.
  const txCache = new Map<string, Promise<WireTransaction>>();
  const fetchTransaction = (signature: string): Promise<WireTransaction> => {
    let pending = txCache.get(signature);
    if (!pending) {
      pending = (async () => {
        const tx = await rpc.getTransaction(signature);
        if (!tx) throw new Error(`transaction ${signature} not available from the node`);
        counts.fetched++;
        if (tx.blockTime == null) tx.blockTime = await rpc.getBlockTime(tx.slot);
        return tx;
      })();
      txCache.set(signature, pending);
    }
    return pending;
  };

  const accounts = await listAccounts(rpc, owner, gaps, progress);
  const { mints, permanentDelegates } = await readMints(rpc, [...new Set(accounts.map((a) => a.mint))], now, gaps, progress);

  // Each token account's balance history.
  const accountHistory = createCounter("account_history", progress);
  const balanceChanges = (
    await Promise.all(
      accounts.map(async (account) => {
        const result = await walkAccount(account, cursors.accounts[account.tokenAccount]);
        if (result.cursorMoves) next.accounts[account.tokenAccount] = result.cursor;
        gaps.push(...result.gaps);
        return result.changes;
      }),
    )
  ).flat();

  async function walkAccount(account: TokenAccountObs, cursor: WalkCursor | undefined) {
    const address = account.tokenAccount;
    const walkGaps: SyncGap[] = [];
    const walk = await walkAddress(rpc, address, cursor, opts);
    if (walk.error && !opts.signal?.aborted) walkGaps.push({ address, reason: walk.error });
    const wanted = walk.signatures.filter((s) => s.err == null); // a failed transaction moved no tokens
    counts.wallet += wanted.length;
    accountHistory.add(wanted.length);
    const stored = opts.storedChanges?.(address, wanted.map((s) => s.signature)) ?? new Map<string, BalanceChangeObs[]>();
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
        accountHistory.done(1);
      }
    });
    walkGaps.push(...unreadGaps(address, unread));
    if (opts.signal?.aborted) walkGaps.push({ address, reason: DEADLINE_GAP });
    // Oldest first: the order in which the balances must chain.
    const changes = (perTx ?? []).reverse().flat();
    const complete = walkGaps.length === 0 && !walk.capped;
    if (complete) walkGaps.push(...checkBalanceChain(account, changes, (cursor ?? EMPTY_CURSOR).newest === null && !cursor?.resume));
    // A capped walk moves its cursor (the stretch it read is in hand); a failed one does not.
    return { changes, gaps: walkGaps, cursor: walk.cursor, cursorMoves: walkGaps.length === 0 || (walk.capped && walkGaps.length === 1) };
  }

  // Multiplier updates, from each authority's history: every update it signed, for every mint.
  const byAuthority = new Map<string, MintStateObs[]>();
  for (const state of mints) {
    if (state.multiplierAuthority == null) {
      if (state.multiplier !== 1 || state.newMultiplier !== 1) {
        gaps.push({ address: state.mint, reason: "multiplier authority removed: the updates that set the current multiplier cannot be walked" });
      }
      continue;
    }
    const group = byAuthority.get(state.multiplierAuthority) ?? [];
    group.push(state);
    byAuthority.set(state.multiplierAuthority, group);
  }
  const multiplierHistory = createCounter("multiplier_history", progress);
  const multiplierUpdates = (await Promise.all([...byAuthority].map(([authority, states]) => walkAuthority(authority, states)))).flat();

  async function walkAuthority(authority: string, states: MintStateObs[]): Promise<MultiplierUpdateObs[]> {
    const cursor = cursors.authorities[authority];
    const walk = await walkAuthorityHistory(rpc, authority, cursor, {
      ...opts,
      fetchTransaction,
      onListed: (n) => multiplierHistory.add(n),
      onRead: () => multiplierHistory.done(1),
    });
    const walkGaps = [...walk.gaps];
    if (walkGaps.length === 0 && walk.complete) {
      for (const state of states) {
        const mismatch = checkMintAgainstUpdates(state, walk.updates, cursor === undefined);
        if (mismatch) walkGaps.push({ address: state.mint, reason: mismatch });
      }
    }
    if (walk.cursorMoves && walkGaps.length === walk.gaps.length) next.authorities[authority] = walk.cursor;
    gaps.push(...walkGaps);
    return walk.updates;
  }

  return {
    accounts,
    balanceChanges: dedupeChanges(balanceChanges),
    mints,
    multiplierUpdates,
    cursors: next,
    gaps,
    walletTransactions: counts.wallet,
    transactionsFetched: counts.fetched,
    rpcCalls: rpc.stats().requests - callsAtStart,
  };
}

export interface AuthorityWalk {
  /** Every UpdateMultiplier in the new history, oldest first, for every mint the authority controls. */
  updates: MultiplierUpdateObs[];
  gaps: SyncGap[];
  cursor: WalkCursor;
  /** The walk read everything it listed (a capped walk did too: it resumes next time). */
  cursorMoves: boolean;
  /** Nothing left to resume. */
  complete: boolean;
}

/**
 * The new history of a multiplier authority: every UpdateMultiplier it signed since `cursor`.
 * Shared by wallet syncs and the mint poll (a newly scheduled multiplier is found here before it
 * takes force).
 */
export async function walkAuthorityHistory(
  rpc: Rpc,
  authority: string,
  cursor: WalkCursor | undefined,
  opts: SyncOptions & { fetchTransaction?: (signature: string) => Promise<WireTransaction>; onListed?: (n: number) => void; onRead?: () => void } = {},
): Promise<AuthorityWalk> {
  const gaps: SyncGap[] = [];
  const fetchTransaction = opts.fetchTransaction ?? (async (signature: string) => {
    const tx = await rpc.getTransaction(signature);
    if (!tx) throw new Error(`transaction ${signature} not available from the node`);
    if (tx.blockTime == null) tx.blockTime = await rpc.getBlockTime(tx.slot);
    return tx;
  });
  const walk = await walkAddress(rpc, authority, cursor, opts);
  if (walk.error && !opts.signal?.aborted) gaps.push({ address: authority, reason: walk.error });
  const wanted = walk.signatures.filter((s) => s.err == null);
  const unread: string[] = [];
  opts.onListed?.(wanted.length);
  const found = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (info: WireSignatureInfo) => {
    try {
      const tx = await fetchTransaction(info.signature);
      return findMultiplierUpdates(tx, { signature: info.signature }).filter((u) => {
        const problem = implausibleUpdate(u);
        if (problem) gaps.push({ address: authority, reason: `${problem} in ${u.signature}: update ignored` });
        return problem === null;
      });
    } catch (err) {
      if (!opts.signal?.aborted) unread.push(`transaction ${info.signature}: ${(err as Error).message}`);
      return [];
    } finally {
      opts.onRead?.();
    }
  });
  gaps.push(...unreadGaps(authority, unread));
  if (opts.signal?.aborted) gaps.push({ address: authority, reason: DEADLINE_GAP });
  const updates = (found ?? []).reverse().flat();
  const onlyCapped = walk.capped && gaps.length === 1;
  return { updates, gaps, cursor: walk.cursor, cursorMoves: gaps.length === 0 || onlyCapped, complete: !walk.capped };
}

/** The wallet's Token-2022 accounts. Without them there is nothing to sync: a failure is an error. */
async function listAccounts(rpc: Rpc, owner: string, gaps: SyncGap[], progress: (p: SyncProgress) => void): Promise<TokenAccountObs[]> {
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
  return accounts;
}

/** Mint states (decimals, multipliers, the authority whose history holds the updates). */
async function readMints(rpc: Rpc, mintAddresses: string[], now: () => number, gaps: SyncGap[], progress: (p: SyncProgress) => void) {
  const mints: MintStateObs[] = [];
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
          const delegate = account.owner === TOKEN_2022_PROGRAM_ID ? decodeMintBytes(base64Bytes(account.data)).permanentDelegate : null;
          if (delegate) permanentDelegates.set(mint, delegate);
        } catch (err) {
          gaps.push({ address: mint, reason: `mint account unreadable: ${(err as Error).message}` });
        }
      });
    } catch (err) {
      for (const mint of mintAddresses) gaps.push({ address: mint, reason: `mint state unavailable: ${(err as Error).message}` });
    }
  }
  progress({ phase: "mints", done: mintAddresses.length, total: mintAddresses.length });
  return { mints, permanentDelegates };
}

/**
 * Transactions of one address that could not be read: each named while there are few, counted
 * beyond that (a provider that lists thousands of signatures it cannot serve must not turn into
 * thousands of gap rows).
 */
function unreadGaps(address: string, unread: string[], named = 3): SyncGap[] {
  if (unread.length <= named) return unread.map((reason) => ({ address, reason }));
  return [{ address, reason: `${unread.length} transactions could not be read; the first: ${unread.slice(0, named).join("; ")}` }];
}

const plausibleMultiplier = (x: number): boolean => Number.isFinite(x) && x > 0;

/**
 * What no real Scaled UI Amount mint can hold (the program refuses such multipliers; a hostile or
 * broken provider can still send them): a reason, or null. Refused at the source so one bad value
 * cannot reach the books.
 */
export function implausibleMint(state: MintStateObs): string | null {
  if (!Number.isInteger(state.decimals) || state.decimals < 0 || state.decimals > MAX_DECIMALS) return `impossible decimals ${state.decimals}`;
  if (!plausibleMultiplier(state.multiplier) || !plausibleMultiplier(state.newMultiplier)) return `non-finite or non-positive multiplier (${state.multiplier}, ${state.newMultiplier})`;
  if (!Number.isSafeInteger(state.newMultiplierEffectiveTimestamp)) return `impossible effective timestamp ${state.newMultiplierEffectiveTimestamp}`;
  return null;
}

export function implausibleUpdate(u: MultiplierUpdateObs): string | null {
  if (!plausibleMultiplier(u.multiplier)) return `non-finite or non-positive multiplier ${u.multiplier}`;
  if (!Number.isSafeInteger(u.effectiveTimestamp)) return `impossible effective timestamp ${u.effectiveTimestamp}`;
  return null;
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

/**
 * The mint's stored state must be what its latest update wrote (UpdateMultiplier sets
 * new_multiplier and its timestamp). Checked only when this walk saw that update, or walked the
 * whole history; otherwise an earlier walk already did.
 */
export function checkMintAgainstUpdates(state: MintStateObs, updates: MultiplierUpdateObs[], fullHistory: boolean): string | null {
  const own = updates.filter((u) => u.mint === state.mint && u.slot <= state.slot);
  const latest = own[own.length - 1];
  if (!latest) {
    if (fullHistory && (state.multiplier !== 1 || state.newMultiplier !== 1)) {
      return `no UpdateMultiplier in the authority's history explains the current multiplier ${state.newMultiplier}`;
    }
    return null;
  }
  if (latest.multiplier !== state.newMultiplier || latest.effectiveTimestamp !== state.newMultiplierEffectiveTimestamp) {
    return `mint state (${state.newMultiplier} at ${state.newMultiplierEffectiveTimestamp}) differs from the latest update found (${latest.multiplier} at ${latest.effectiveTimestamp}): updates are missing`;
  }
  return null;
}

function dedupeChanges(changes: BalanceChangeObs[]): BalanceChangeObs[] {
  const seen = new Set<string>();
  return changes.filter((c) => {
    const key = `${c.signature}:${c.tokenAccount}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
