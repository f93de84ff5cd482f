// Stage 1 of a wallet's chain read, list: the wallet's Token-2022 accounts. The open ones from
// the chain's listing; the ones it closed (or the listing missed) from its own history
// (wallet-history.ts) and from earlier syncs, each read once more to learn what became of it.
import type { TokenAccountObs } from "../../../domain/observations";
import { base64Bytes, decodeTokenAccountBytes } from "../decode";
import type { Rpc } from "../rpc";
import type { Progress } from "./progress";
import type { SeenAccount, SyncCursors, SyncGap, SyncOptions, SyncTransactions, WalletAccounts } from "./types";
import { historyAccounts, historyGaps, readWalletHistory } from "./wallet-history";

/** Open accounts, then the wallet's history (counted in the account_history phase), then what it named that the listing did not. */
export async function listWalletAccounts(rpc: Rpc, owner: string, cursors: SyncCursors, transactions: SyncTransactions, progress: Progress, opts: SyncOptions): Promise<WalletAccounts> {
  const open = await listOpenAccounts(rpc, owner, progress);
  const history = await readWalletHistory(rpc, owner, cursors, transactions, progress.phase("account_history"), opts);
  const resolved = await resolveUnlisted(rpc, owner, unlistedAccounts(open.accounts, [...historyAccounts(history), ...(opts.knownAccounts ?? [])]));
  return {
    accounts: [...open.accounts, ...resolved.accounts],
    history,
    gaps: [...open.gaps, ...resolved.gaps, ...historyGaps(history)],
    allResolved: resolved.gaps.length === 0,
  };
}

/** The wallet's open Token-2022 accounts. Without them there is nothing to sync: a failure is an error. */
async function listOpenAccounts(rpc: Rpc, owner: string, progress: Progress): Promise<{ accounts: TokenAccountObs[]; gaps: SyncGap[] }> {
  progress.report({ phase: "accounts", done: 0, total: 1 });
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
  progress.report({ phase: "accounts", done: 1, total: 1 });
  return { accounts, gaps };
}

/** Accounts seen (in the wallet's history, or by an earlier sync) that the listing did not return; the first mint named is kept. */
function unlistedAccounts(listed: TokenAccountObs[], seen: SeenAccount[]): SeenAccount[] {
  const listedSet = new Set(listed.map((a) => a.tokenAccount));
  const unlisted = new Map<string, string | null>();
  for (const a of seen) {
    if (!listedSet.has(a.tokenAccount)) unlisted.set(a.tokenAccount, unlisted.get(a.tokenAccount) ?? a.mint);
  }
  return [...unlisted].map(([tokenAccount, mint]) => ({ tokenAccount, mint }));
}

/**
 * Accounts the listing of open accounts did not return, read once more in one call: gone means
 * closed (its history ends at 0; its mint from what named it, or, when nothing did, left to its
 * own history); still there and the wallet's means the listing missed it; someone else's is a
 * named gap. Until every one is resolved, the walk that found them keeps its cursor (so they are
 * found again).
 */
async function resolveUnlisted(rpc: Rpc, owner: string, unlisted: SeenAccount[]): Promise<{ accounts: TokenAccountObs[]; gaps: SyncGap[] }> {
  const gaps: SyncGap[] = [];
  const out: TokenAccountObs[] = [];
  if (!unlisted.length) return { accounts: out, gaps };
  let read;
  try {
    read = await rpc.getMultipleAccounts(unlisted.map((a) => a.tokenAccount));
  } catch (err) {
    for (const a of unlisted) gaps.push({ address: a.tokenAccount, reason: `token account not listed and unreadable: ${(err as Error).message}` });
    return { accounts: out, gaps };
  }
  read.accounts.forEach((account, i) => {
    const seen = unlisted[i]!;
    if (!account) {
      if (seen.mint === null) gaps.push({ address: seen.tokenAccount, reason: "closed token account: no token balance in the transactions read names its mint" });
      else out.push({ owner, tokenAccount: seen.tokenAccount, mint: seen.mint, rawBalance: 0n, slot: read.slot });
      return;
    }
    try {
      const decoded = decodeTokenAccountBytes(base64Bytes(account.data));
      if (decoded.owner !== owner) {
        gaps.push({ address: seen.tokenAccount, reason: `token account the wallet held is now owned by ${decoded.owner}: its history with the wallet is not booked` });
        return;
      }
      out.push({ owner, tokenAccount: seen.tokenAccount, mint: decoded.mint, rawBalance: decoded.amount, slot: read.slot });
    } catch (err) {
      gaps.push({ address: seen.tokenAccount, reason: `token account unreadable: ${(err as Error).message}` });
    }
  });
  return { accounts: out, gaps };
}
