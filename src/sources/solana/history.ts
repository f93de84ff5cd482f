// One wallet's chain history → observations. Reads the wallet's Token-2022 accounts, their mints'
// Scaled UI Amount state, each account's signatures (incremental from a cursor) and transactions,
// and each mint's multiplier-authority signatures for UpdateMultiplier instructions.
//
// No silent cap: whatever cannot be fetched after the RPC's retries, or does not add up, becomes
// a named gap and the walk goes on. A walk with a gap keeps its previous cursor, so the next
// sync fetches that stretch again instead of stepping over it (downstream writes are idempotent).
import type { BalanceChangeObs, MintStateObs, MultiplierUpdateObs, TokenAccountObs } from "../../domain/observations";
import { base64Bytes, decodeMintAccount, decodeMintBytes, decodeTokenAccountBytes, extractBalanceChanges, findMultiplierUpdates } from "./decode";
import type { Rpc } from "./rpc";
import { walkSignatures } from "./signatures";
import { TOKEN_2022_PROGRAM_ID, type WireSignatureInfo, type WireTransaction } from "./wire";

/** Cursor keys: a token account's address, or `authorityCursorKey(authority, mint)`. Values: newest signature seen. */
export type ChainCursors = Record<string, string>;

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

export interface SyncOptions {
  /** Our clock, unix seconds (MintStateObs.observedAt). */
  now?: () => number;
  onProgress?: (progress: SyncProgress) => void;
  /** getSignaturesForAddress page size (1000 is the RPC maximum). */
  pageLimit?: number;
}

export interface WalletChainSync {
  accounts: TokenAccountObs[];
  balanceChanges: BalanceChangeObs[];
  mints: MintStateObs[];
  multiplierUpdates: MultiplierUpdateObs[];
  /** The input cursors with every fully walked address advanced to its newest signature. */
  cursors: ChainCursors;
  gaps: SyncGap[];
  transactionsFetched: number;
  /** HTTP attempts made through `rpc` during this sync (retries included). */
  rpcCalls: number;
}

/**
 * Authority walks are keyed per (authority, mint): one authority (xStocks uses one for all its
 * mints) is walked for different mint sets by different wallets, and a cursor is only true for
 * the mints whose updates were kept.
 */
export function authorityCursorKey(authority: string, mint: string): string {
  return `${authority}:${mint}`;
}

export async function syncWalletChain(rpc: Rpc, owner: string, cursors: ChainCursors = {}, opts: SyncOptions = {}): Promise<WalletChainSync> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const progress = opts.onProgress ?? (() => {});
  const callsAtStart = rpc.stats().requests;
  const gaps: SyncGap[] = [];
  const nextCursors: ChainCursors = { ...cursors };
  let transactionsFetched = 0;

  // A transaction is fetched once per sync even when several walks list it.
  const txCache = new Map<string, Promise<WireTransaction>>();
  const fetchTransaction = (signature: string): Promise<WireTransaction> => {
    let pending = txCache.get(signature);
    if (!pending) {
      pending = (async () => {
        const tx = await rpc.getTransaction(signature);
        if (!tx) throw new Error(`transaction ${signature} not available from the node`);
        transactionsFetched++;
        if (tx.blockTime == null) tx.blockTime = await rpc.getBlockTime(tx.slot);
        return tx;
      })();
      txCache.set(signature, pending);
    }
    return pending;
  };

  // 1. The wallet's accounts. Without them there is nothing to sync: a failure here is an error.
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

  // 2. Mint states (decimals, multipliers, the authority whose history holds the updates).
  const mintAddresses = [...new Set(accounts.map((a) => a.mint))];
  const mints: MintStateObs[] = [];
  const permanentDelegates = new Map<string, string>();
  progress({ phase: "mints", done: 0, total: mintAddresses.length });
  if (mintAddresses.length > 0) {
    try {
      const read = await rpc.getMultipleAccounts(mintAddresses);
      read.accounts.forEach((account, i) => {
        const mint = mintAddresses[i];
        if (!account) {
          gaps.push({ address: mint, reason: "mint account not found" });
          return;
        }
        try {
          const state = decodeMintAccount(mint, account, { slot: read.slot, observedAt: now() });
          if (state) mints.push(state);
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

  // 3. Each token account's balance history.
  const accountHistory = createCounter("account_history", progress);
  const balanceChanges = (
    await Promise.all(
      accounts.map(async (account) => {
        const result = await walkAccount(account, cursors[account.tokenAccount]);
        if (result.gaps.length === 0) {
          if (result.newest) nextCursors[account.tokenAccount] = result.newest;
        }
        gaps.push(...result.gaps);
        return result.changes;
      }),
    )
  ).flat();

  async function walkAccount(account: TokenAccountObs, cursor: string | undefined) {
    const address = account.tokenAccount;
    const walkGaps: SyncGap[] = [];
    const walk = await walkSignatures(rpc, address, { until: cursor, pageLimit: opts.pageLimit });
    if (walk.error) walkGaps.push({ address, reason: walk.error });
    const wanted = walk.signatures.filter((s) => s.err == null); // a failed transaction moved no tokens
    accountHistory.add(wanted.length);
    const perTx = await Promise.all(
      wanted.map(async (s) => {
        try {
          const tx = await fetchTransaction(s.signature);
          return extractBalanceChanges(tx, owner, { signature: s.signature, tokenAccount: address, permanentDelegates });
        } catch (err) {
          walkGaps.push({ address, reason: `transaction ${s.signature}: ${(err as Error).message}` });
          return [];
        } finally {
          accountHistory.done(1);
        }
      }),
    );
    // Oldest first: the order in which the balances must chain.
    const changes = perTx.reverse().flat();
    if (walkGaps.length === 0) walkGaps.push(...checkBalanceChain(account, changes, cursor === undefined));
    return { changes, gaps: walkGaps, newest: walk.signatures[0]?.signature ?? null };
  }

  // 4. Multiplier updates, from each authority's history, for this wallet's mints.
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
  const multiplierUpdates = (
    await Promise.all([...byAuthority].map(([authority, states]) => walkAuthority(authority, states)))
  ).flat();

  async function walkAuthority(authority: string, states: MintStateObs[]): Promise<MultiplierUpdateObs[]> {
    const walkGaps: SyncGap[] = [];
    const mintCursors = new Map<string, string | undefined>(states.map((s) => [s.mint, cursors[authorityCursorKey(authority, s.mint)]]));
    const distinct = new Set(mintCursors.values());
    // The common case (same authority, always synced together) can let the node stop at the cursor.
    const sharedUntil = distinct.size === 1 ? [...distinct][0] : undefined;
    const cursorSignatures = new Set([...distinct].filter((c): c is string => c !== undefined));
    const seenCursors = new Set<string>();
    const walk = await walkSignatures(rpc, authority, {
      until: sharedUntil,
      pageLimit: opts.pageLimit,
      stopAfter: (page) => {
        if (sharedUntil !== undefined || distinct.has(undefined)) return false;
        for (const s of page) if (cursorSignatures.has(s.signature)) seenCursors.add(s.signature);
        return seenCursors.size === cursorSignatures.size;
      },
    });
    if (walk.error) walkGaps.push({ address: authority, reason: walk.error });

    // Which mints still need updates at each position: a mint stops needing them below its cursor.
    const plan: { info: WireSignatureInfo; mints: Set<string> }[] = [];
    const active = new Set(states.map((s) => s.mint));
    for (const info of walk.signatures) {
      for (const [mint, cursor] of mintCursors) if (cursor === info.signature) active.delete(mint);
      if (active.size === 0) break;
      if (info.err == null) plan.push({ info, mints: new Set(active) });
    }
    multiplierHistory.add(plan.length);
    const found = await Promise.all(
      plan.map(async ({ info, mints: wantedMints }) => {
        try {
          const tx = await fetchTransaction(info.signature);
          return findMultiplierUpdates(tx, { signature: info.signature }).filter((u) => wantedMints.has(u.mint));
        } catch (err) {
          walkGaps.push({ address: authority, reason: `transaction ${info.signature}: ${(err as Error).message}` });
          return [];
        } finally {
          multiplierHistory.done(1);
        }
      }),
    );
    const updates = found.reverse().flat(); // oldest first
    if (walkGaps.length === 0) {
      for (const state of states) {
        const mismatch = checkMintAgainstUpdates(state, updates, mintCursors.get(state.mint) === undefined);
        if (mismatch) walkGaps.push({ address: state.mint, reason: mismatch });
      }
    }
    if (walkGaps.length === 0 && walk.signatures.length > 0) {
      for (const state of states) nextCursors[authorityCursorKey(authority, state.mint)] = walk.signatures[0].signature;
    }
    gaps.push(...walkGaps);
    return updates;
  }

  return {
    accounts,
    balanceChanges: dedupeChanges(balanceChanges),
    mints,
    multiplierUpdates,
    cursors: nextCursors,
    gaps,
    transactionsFetched,
    rpcCalls: rpc.stats().requests - callsAtStart,
  };
}

/**
 * Raw balances must chain: each change starts where the previous one ended, and the balance the
 * chain reports now is where the history ends (at the accounts' snapshot slot). A full walk must
 * also start from zero. Anything else means a missing or misreported transaction or balance.
 */
export function checkBalanceChain(account: TokenAccountObs, changes: BalanceChangeObs[], fullHistory: boolean): SyncGap[] {
  const address = account.tokenAccount;
  const gaps: SyncGap[] = [];
  if (fullHistory && changes.length > 0 && changes[0].preRaw !== 0n) {
    gaps.push({ address, reason: `history starts at raw balance ${changes[0].preRaw}, not 0 (older transactions missing)` });
  }
  for (let i = 1; i < changes.length; i++) {
    if (changes[i].preRaw !== changes[i - 1].postRaw) {
      gaps.push({
        address,
        reason: `balance history does not chain at ${changes[i].signature}: previous post ${changes[i - 1].postRaw}, this pre ${changes[i].preRaw}`,
      });
    }
  }
  // The balance at the snapshot slot: the post of the last change at or before it, else the pre of the first change after it.
  const before = changes.filter((c) => c.slot <= account.slot);
  const after = changes.filter((c) => c.slot > account.slot);
  const expected = before.length > 0 ? before[before.length - 1].postRaw : after.length > 0 ? after[0].preRaw : fullHistory ? 0n : null;
  if (expected !== null && expected !== account.rawBalance) {
    gaps.push({ address, reason: `balance mismatch: the chain reports raw ${account.rawBalance}, the transaction history gives ${expected}` });
  }
  return gaps;
}

/**
 * The mint's stored state must be what its latest update wrote (UpdateMultiplier sets
 * new_multiplier and its timestamp). Checked only when this walk saw that update, or walked the
 * whole history; otherwise the previous sync already did.
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
