// Stage 3 of a wallet's chain read, decode: the transactions read → the owner's raw token balance
// changes (decode.ts reads the bytes). Per token account as its walk read them, or split per
// account out of the wallet-wide read (getTransactionsForAddress). A transaction that cannot be
// decoded is named, never guessed.
//
// Every transaction of the sync passes here, so here is where more can be read from the same
// transactions: `extractBalanceChanges` with `programIds: TOKEN_PROGRAMS` (and `mints`) gives
// every token balance change of the owner in a transaction, SPL Token and Token-2022 alike.
import type { BalanceChangeObs } from "../../../domain/observations";
import { extractBalanceChanges } from "../decode";
import type { AccountChanges, AccountRead, FastHistory } from "./types";

/** One account's balance changes, oldest first, from what its walk read; null when the sync's deadline cut the read short. */
export function accountChanges(read: AccountRead, owner: string, permanentDelegates: ReadonlyMap<string, string>): AccountChanges | null {
  if (read.transactions === null) return null;
  const unread: string[] = [];
  const perTransaction = read.transactions.map((t): BalanceChangeObs[] => {
    if ("stored" in t) return t.stored;
    if ("unread" in t) {
      if (t.unread !== null) unread.push(`transaction ${t.signature}: ${t.unread}`);
      return [];
    }
    try {
      return extractBalanceChanges(t.tx, owner, { signature: t.signature, tokenAccount: read.account.tokenAccount, permanentDelegates });
    } catch (err) {
      unread.push(`transaction ${t.signature}: ${(err as Error).message}`);
      return [];
    }
  });
  // Oldest first: the order in which the balances must chain.
  return { changes: perTransaction.reverse().flat(), unread };
}

/** The balance changes of each token account in the wallet-wide read, and the transactions that could not be decoded. */
export function walletReadChanges(read: FastHistory, owner: string, permanentDelegates: ReadonlyMap<string, string>): { byAccount: Map<string, BalanceChangeObs[]>; unread: string[] } {
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
  return { byAccount, unread };
}
