// Stage 3 of a wallet's chain read, decode: the transactions read → the owner's raw token balance
// changes (decode.ts reads the bytes). Per token account as its walk read them, or split per
// account out of the wallet-wide read (getTransactionsForAddress). A transaction that cannot be
// decoded is named, never guessed.
//
// Every transaction of the sync passes here, so here is where more can be read from the same
// transactions: `extractBalanceChanges` with `programIds: TOKEN_PROGRAMS` (and `mints`) gives
// every token balance change of the owner in a transaction, SPL Token and Token-2022 alike.
import { movesAny, ownerChangesOf, type OwnerTransactionChanges } from "../../../domain/lots/owner-changes";
import { transactionChangesOf } from "../../../domain/lots/transaction-changes";
import type { BalanceChangeObs } from "../../../domain/observations";
import { extractBalanceChanges } from "../decode";
import type { WireTransaction } from "../wire";
import type { AccountChanges, AccountRead, DecodeContext, FastHistory } from "./types";

/** One account's balance changes, oldest first, from what its walk read; null when the sync's deadline cut the read short. */
export function accountChanges(read: AccountRead, ctx: DecodeContext): AccountChanges | null {
  if (read.transactions === null) return null;
  const unread: string[] = [];
  const parts: OwnerTransactionChanges[] = [];
  const perTransaction = read.transactions.map((t): BalanceChangeObs[] => {
    if ("stored" in t) return t.stored;
    if ("unread" in t) {
      if (t.unread !== null) unread.push(`transaction ${t.signature}: ${t.unread}`);
      return [];
    }
    try {
      const changes = extractBalanceChanges(t.tx, ctx.owner, { signature: t.signature, tokenAccount: read.account.tokenAccount, permanentDelegates: ctx.permanentDelegates });
      const part = ownerPartOf(t.tx, ctx);
      if (part) parts.push(part);
      return changes;
    } catch (err) {
      unread.push(`transaction ${t.signature}: ${(err as Error).message}`);
      return [];
    }
  });
  // Oldest first: the order in which the balances must chain.
  return { changes: perTransaction.reverse().flat(), unread, parts: parts.reverse() };
}

/** The balance changes of each token account in the wallet-wide read, the owner's parts of its transactions, and the transactions that could not be decoded. */
export function walletReadChanges(read: FastHistory, ctx: DecodeContext): { byAccount: Map<string, BalanceChangeObs[]>; parts: OwnerTransactionChanges[]; unread: string[] } {
  const unread: string[] = [];
  const parts: OwnerTransactionChanges[] = [];
  const byAccount = new Map<string, BalanceChangeObs[]>();
  for (const { signature, tx } of read.transactions) {
    try {
      for (const c of extractBalanceChanges(tx, ctx.owner, { signature, permanentDelegates: ctx.permanentDelegates })) {
        const list = byAccount.get(c.tokenAccount);
        if (list) list.push(c);
        else byAccount.set(c.tokenAccount, [c]);
      }
      const part = ownerPartOf(tx, ctx);
      if (part) parts.push(part);
    } catch (err) {
      unread.push(`transaction ${signature}: ${(err as Error).message}`);
    }
  }
  return { byAccount, parts, unread };
}

/**
 * The owner's part of a transaction in which its balance of a Scaled UI mint changed: every token
 * account of the owner (both programs), its SOL and the signers, from the transaction in hand (no
 * call of its own), stored so that a later sync reusing the stored balance changes still has it
 * (docs/lots.md#what-the-sync-stores). Null for any other transaction. Throws, as decoding does,
 * on a transaction whose balances cannot be read.
 */
export function ownerPartOf(tx: WireTransaction, ctx: DecodeContext): OwnerTransactionChanges | null {
  const changes = transactionChangesOf(tx);
  if (!changes) return null;
  const part = ownerChangesOf(changes, ctx.owner, tx.slot);
  return movesAny(part, ctx.scaledMints) ? part : null;
}
