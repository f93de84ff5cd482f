// Stage 4 of a wallet's chain read, balances: whether each account's balance changes add up.
// Raw balances must chain (checkBalanceChain) and end where the chain says the account stands;
// what does not is a named gap, and a walk with a gap keeps its cursor. After a wallet-wide read
// (getTransactionsForAddress), an account whose changes do not start from zero is handed back to
// be walked on its own.
import type { BalanceChangeObs, TokenAccountObs } from "../../../domain/observations";
import { EMPTY_CURSOR } from "../signatures";
import type { AccountBalances, AccountChanges, AccountRead, BalanceHistory, FastHistory, SyncGap } from "./types";
import { DEADLINE_GAP, unreadGaps, walkCursorMoves } from "./walk-common";

/** What one account's walk adds up to: its gaps in order (the walk's, the unread, the deadline's, the chain's) and whether its cursor moves. */
export function accountBalances(read: AccountRead, decoded: AccountChanges | null): AccountBalances {
  const address = read.account.tokenAccount;
  const gaps: SyncGap[] = [];
  if (read.walkError) gaps.push({ address, reason: read.walkError });
  gaps.push(...unreadGaps(address, decoded?.unread ?? []));
  if (read.deadlinePassed) gaps.push({ address, reason: DEADLINE_GAP });
  const changes = decoded?.changes ?? [];
  if (gaps.length === 0 && !read.walk.capped) {
    gaps.push(...checkBalanceChain(read.account, changes, (read.from ?? EMPTY_CURSOR).newest === null && !read.from?.resume));
  }
  return { changes, parts: decoded?.parts ?? [], gaps, cursor: walkCursorMoves(read.walk, gaps) ? read.walk.cursor : null, listed: read.listed };
}

type Gathered = Omit<BalanceHistory, "readInFull">;

/** Every account walked on its own, at once: gaps, cursors and listings gathered as each walk ends; changes in the accounts' order. */
export async function balancesOfWalks(accounts: TokenAccountObs[], walk: (account: TokenAccountObs) => Promise<AccountBalances>): Promise<Gathered> {
  const out: Gathered = { changes: [], parts: [], gaps: [], cursors: {}, listed: [] };
  const perAccount = await Promise.all(accounts.map(async (account) => gather(out, account, await walk(account))));
  out.changes = perAccount.flat();
  return out;
}

/** Adds a finished walk's parts, gaps, cursor and listing to `out`; returns its changes. */
function gather(out: Gathered, account: TokenAccountObs, walked: AccountBalances): BalanceChangeObs[] {
  out.parts.push(...walked.parts);
  out.gaps.push(...walked.gaps);
  if (walked.cursor) out.cursors[account.tokenAccount] = walked.cursor;
  out.listed.push(...walked.listed);
  return walked.changes;
}

/**
 * The wallet-wide read's changes, per account. A full read whose balances of an account do not
 * start at 0 reaches back before what the provider can filter (or the provider missed some):
 * that account is walked the standard way instead (`walk`). A capped read is not checked: the
 * next sync reads on.
 */
export async function balancesOfWalletRead(
  owner: string,
  read: FastHistory,
  decoded: { byAccount: Map<string, BalanceChangeObs[]>; parts: AccountBalances["parts"]; unread: string[] },
  accounts: TokenAccountObs[],
  full: boolean,
  walk: (account: TokenAccountObs) => Promise<AccountBalances>,
): Promise<BalanceHistory> {
  const walked: Gathered = { changes: [], parts: [], gaps: [], cursors: {}, listed: [] };
  const readGaps = unreadGaps(owner, decoded.unread);
  const perAccount = await Promise.all(
    accounts.map(async (account) => {
      const changes = decoded.byAccount.get(account.tokenAccount) ?? [];
      if (read.capped) return changes;
      const problems = checkBalanceChain(account, changes, full);
      if (problems.length && full) return gather(walked, account, await walk(account));
      readGaps.push(...problems);
      return changes;
    }),
  );
  if (read.capped) readGaps.push({ address: owner, reason: `wallet history walk stopped after ${read.pages} pages (the per-sync budget); the next sync resumes it` });
  // An account walked the standard way with a gap holds the read's cursor too: only a read from
  // scratch walks an account the standard way, so moving the cursor would leave that gap unread.
  const readInFull = walked.gaps.length === 0 && (readGaps.length === 0 || (read.capped && readGaps.length === 1));
  return { changes: perAccount.flat(), parts: [...decoded.parts, ...walked.parts], gaps: [...walked.gaps, ...readGaps], cursors: walked.cursors, listed: walked.listed, readInFull };
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
