// A wallet's raw balance of one mint over time, rebuilt from balance changes (raw amounts from
// transaction metadata), and whether that history reconciles with the balance the chain reports.
import type { BalanceChangeObs, TokenAccountObs } from "./observations";

export interface BalanceHistory {
  owner: string;
  mint: string;
  /** Changes in chain order. */
  changes: BalanceChangeObs[];
  /** Raw balance held before the first recorded change (0 when history starts at account open). */
  opening: bigint;
  /** Raw balance now, as the chain reports it (sum over the wallet's token accounts of the mint). */
  reported: bigint;
  /** Null when the replay reconciles exactly; otherwise why not. */
  problem: string | null;
}

const byChainOrder = (a: BalanceChangeObs, b: BalanceChangeObs): number =>
  a.slot - b.slot || a.blockTime - b.blockTime || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0) || (a.tokenAccount < b.tokenAccount ? -1 : 1);

export function balanceHistory(owner: string, mint: string, accounts: TokenAccountObs[], changes: BalanceChangeObs[]): BalanceHistory {
  const mine = changes.filter((c) => c.mint === mint).sort(byChainOrder);
  const reported = accounts.filter((a) => a.mint === mint).reduce((s, a) => s + a.rawBalance, 0n);
  const problems: string[] = [];
  // Per token account, each change must start where the previous one ended.
  const last = new Map<string, bigint>();
  let opening = 0n;
  for (const c of mine) {
    const prev = last.get(c.tokenAccount);
    if (prev === undefined) opening += c.preRaw;
    else if (prev !== c.preRaw) problems.push(`balance history of ${c.tokenAccount} is not contiguous at ${c.signature} (expected pre ${prev}, got ${c.preRaw})`);
    last.set(c.tokenAccount, c.postRaw);
  }
  for (const a of accounts.filter((x) => x.mint === mint)) {
    const end = last.get(a.tokenAccount);
    if (end === undefined && a.rawBalance !== 0n) problems.push(`no balance history for token account ${a.tokenAccount} holding ${a.rawBalance}`);
    else if (end !== undefined && end !== a.rawBalance) problems.push(`replayed balance ${end} of ${a.tokenAccount} differs from the chain's ${a.rawBalance}`);
  }
  if (opening !== 0n) problems.push(`history starts mid-way: ${opening} raw held before the first recorded change`);
  return { owner, mint, changes: mine, opening, reported, problem: problems.length ? problems.join("; ") : null };
}

/** Raw balance held when a change activating at `t` takes force (changes in the same second come after). */
export function rawAt(h: BalanceHistory, t: number): bigint {
  // Without any recorded change the reported balance is the best evidence of what was held.
  if (h.changes.length === 0) return h.reported;
  let raw = h.opening;
  for (const c of h.changes) {
    if (c.blockTime >= t) break;
    raw += c.postRaw - c.preRaw;
  }
  return raw;
}

/** Raw balance held just after `t`: every change up to and including `t` applied (the yield's time-weighted quantity). */
export function rawAfter(h: BalanceHistory, t: number): bigint {
  if (h.changes.length === 0) return h.reported;
  let raw = h.opening;
  for (const c of h.changes) {
    if (c.blockTime > t) break;
    raw += c.postRaw - c.preRaw;
  }
  return raw;
}
