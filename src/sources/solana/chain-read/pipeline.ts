// One wallet's chain read → observations, as one pipeline; each stage is a module with one job,
// and this module is the only one that knows their order:
//
//   list         list.ts, wallet-history.ts  the wallet's Token-2022 accounts, open and closed
//   mint states  mint-states.ts              their mints' state, permanent delegate and names
//   read         read.ts                     each account's new transactions (or, after a
//                                            getTransactionsForAddress read, that read itself)
//   decode       balance-changes.ts          transactions → the owner's balance changes
//   balances     balances.ts                 whether each account's changes add up; its cursor
//   multipliers  authorities.ts              the mints' multiplier history, from their authorities
//
// The mints are read before the transactions because decoding a change needs its mint's
// permanent delegate (a seizure is not the wallet's own move).
//
// No silent cap: whatever cannot be fetched after the RPC's retries, or does not add up, becomes
// a named gap and the read goes on. A walk with a gap keeps its previous cursor, so the next
// sync fetches that stretch again instead of stepping over it (downstream writes are idempotent).
// Every walk has a page budget and the whole sync a deadline (an abort signal): a provider that
// never stops answering costs a bounded amount of time and memory per sync.
import type { BalanceChangeObs, MintStateObs, TokenAccountObs } from "../../../domain/observations";
import type { Rpc } from "../rpc";
import type { WalkCursor } from "../signatures";
import { readMultiplierHistory, type MultiplierHistory } from "./authorities";
import { accountChanges, walletReadChanges } from "./balance-changes";
import { accountBalances, balancesOfWalks, balancesOfWalletRead } from "./balances";
import { listWalletAccounts } from "./list";
import { readMints } from "./mint-states";
import { createProgress, type Progress } from "./progress";
import { readAccountTransactions, type AccountReadContext } from "./read";
import type { AccountBalances, BalanceHistory, DecodeContext, SyncCursors, SyncOptions, SyncTransactions, WalletChainSync, WalletHistory } from "./types";
import { syncTransactions, transactionFetcher, uniqueBy } from "./walk-common";
import { historyListed } from "./wallet-history";

/** The wallet's chain history since the cursors given, every stage's gaps kept in that order. */
export async function syncWalletChain(rpc: Rpc, owner: string, given: Partial<SyncCursors> = {}, opts: SyncOptions = {}): Promise<WalletChainSync> {
  const cursors: SyncCursors = { accounts: given.accounts ?? {}, authorities: given.authorities ?? {}, ...(given.history ? { history: given.history } : {}) };
  const progress = createProgress(opts.onProgress);
  const callsAtStart = rpc.stats().requests;
  const transactions = syncTransactions(transactionFetcher(rpc));

  const listed = await listWalletAccounts(rpc, owner, cursors, transactions, progress, opts);
  const mints = await readMints(rpc, [...new Set(listed.accounts.map((a) => a.mint))], opts.now ?? unixNow, progress.report);
  const decode: DecodeContext = { owner, permanentDelegates: mints.permanentDelegates, scaledMints: new Set(mints.mints.map((m) => m.mint)) };
  const walkAccount = accountWalker(rpc, cursors, transactions, decode, progress, opts);
  const balances = await readBalances(decode, listed.history, listed.accounts, !cursors.history?.newest, walkAccount);
  // What the wallet's history read found is stored only when every account it named was resolved.
  const wallet = walletAdvance(owner, listed.history, balances.readInFull && listed.allResolved);
  const authorities = await readAuthorities(rpc, mints.mints, cursors.authorities, transactions, progress, opts);

  return {
    accounts: listed.accounts,
    balanceChanges: dedupeChanges(balances.changes),
    transactionChanges: uniqueBy(balances.parts, (p) => p.signature),
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
    gaps: [...listed.gaps, ...mints.gaps, ...balances.gaps, ...authorities.gaps],
    historyMethod: listed.history.method,
    walletTransactions: new Set([...historyListed(listed.history), ...balances.listed]).size,
    transactionsFetched: transactions.fetched() + (listed.history.method === "getTransactionsForAddress" ? listed.history.read.transactions.length : 0),
    rpcCalls: rpc.stats().requests - callsAtStart,
  };
}

const unixNow = (): number => Math.floor(Date.now() / 1000);
const dedupeChanges = (changes: BalanceChangeObs[]): BalanceChangeObs[] => uniqueBy(changes, (c) => `${c.signature}:${c.tokenAccount}`);

/** One token account through read → decode → balances (its progress counted in account_history). */
function accountWalker(
  rpc: Rpc,
  cursors: SyncCursors,
  transactions: SyncTransactions,
  decode: DecodeContext,
  progress: Progress,
  opts: SyncOptions,
): (account: TokenAccountObs) => Promise<AccountBalances> {
  const counter = progress.phase("account_history");
  const ctx: AccountReadContext = { rpc, cursors: cursors.accounts, transactions, opts, onListed: (n) => counter.add(n), onRead: () => counter.done(1) };
  return async (account) => {
    const read = await readAccountTransactions(ctx, account);
    return accountBalances(read, accountChanges(read, decode));
  };
}

/**
 * Each account's balance history: after the owner's walk, each account walked on its own; after a
 * getTransactionsForAddress read, that read decoded and split per account (`fullRead`: it started
 * from the beginning, so each account's changes must start from zero).
 */
async function readBalances(
  decode: DecodeContext,
  history: WalletHistory,
  accounts: TokenAccountObs[],
  fullRead: boolean,
  walk: (account: TokenAccountObs) => Promise<AccountBalances>,
): Promise<BalanceHistory> {
  if (history.method === "standard") return { ...(await balancesOfWalks(accounts, walk)), readInFull: history.walk.cursorMoves };
  const decoded = walletReadChanges(history.read, decode);
  return balancesOfWalletRead(decode.owner, history.read, decoded, accounts, fullRead, walk);
}

/** Where the wallet's history read moves its cursor (the owner address's, or the fast read's), and what it scanned. */
function walletAdvance(owner: string, history: WalletHistory, moves: boolean): { accounts: Record<string, WalkCursor>; history?: WalkCursor; ownerScans: string[] } {
  if (!moves) return { accounts: {}, ownerScans: [] };
  if (history.method === "standard") return { accounts: { [owner]: history.walk.cursor }, ownerScans: history.walk.scanned };
  return { accounts: {}, history: history.read.cursor, ownerScans: historyListed(history) };
}

/** Multiplier updates, from each mint authority's history (earlier authorities included), from the cursors every wallet shares. */
async function readAuthorities(
  rpc: Rpc,
  mints: MintStateObs[],
  cursors: Record<string, WalkCursor>,
  transactions: SyncTransactions,
  progress: Progress,
  opts: SyncOptions,
): Promise<MultiplierHistory> {
  const counter = progress.phase("multiplier_history");
  const known = (await opts.storedUpdates?.(mints.map((m) => m.mint))) ?? null;
  return readMultiplierHistory(rpc, mints, cursors, known, {
    ...opts,
    fetchTransaction: transactions.fetch,
    onListed: (n) => counter.add(n),
    onRead: () => counter.done(1),
  });
}
