// A transaction as the JSON-RPC getTransaction returns it (`encoding: "json"`), read into the
// changes movementsOf prices (docs/lots.md#movements-and-prices): every token account's raw
// balance before and after (both token programs), and each owner's SOL. Pure: the shape is typed
// structurally here, so the sync passes what it already fetched and no other call is made.

import type { TokenBalanceChange, TransactionChanges } from "./movements";

export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  /** Absent on old nodes: such a row cannot be given to an owner and is left out. */
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

export interface RpcTransaction {
  blockTime: number | null;
  meta: {
    err: unknown;
    fee?: number;
    /** Lamports of every account key, in key order (unknown when absent). */
    preBalances?: unknown;
    postBalances?: unknown;
    preTokenBalances?: RpcTokenBalance[] | null;
    postTokenBalances?: RpcTokenBalance[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: { signatures: string[]; message: { accountKeys: string[]; header?: { numRequiredSignatures: number } } };
}

export class TransactionChangesError extends Error {}

/**
 * The changes of a successful transaction, or null for a failed one (it moved no tokens). Block
 * time in unix seconds as the RPC gives it; `blockTime` stands in when the transaction has none.
 */
export function transactionChangesOf(tx: RpcTransaction, blockTime: number | null = null): TransactionChanges | null {
  if (!tx.meta || tx.meta.err != null) return null;
  const signature = tx.transaction.signatures[0]!;
  const seconds = tx.blockTime ?? blockTime;
  if (seconds === null) throw new TransactionChangesError(`transaction ${signature} has no block time`);
  const { message } = tx.transaction;
  const loaded = tx.meta.loadedAddresses;
  const keys = [...message.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
  const pre = new Map((tx.meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const post = new Map((tx.meta.postTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const tokens: (TokenBalanceChange & { accountIndex: number })[] = [];
  for (const accountIndex of [...new Set([...pre.keys(), ...post.keys()])].sort((a, b) => a - b)) {
    const before = pre.get(accountIndex);
    const after = post.get(accountIndex);
    const row = (after ?? before)!;
    const owner = after?.owner ?? before?.owner;
    if (owner === undefined) continue;
    if (before && after && before.mint !== after.mint) throw new TransactionChangesError(`token account ${keys[accountIndex]} changes mint in ${signature}`);
    tokens.push({ accountIndex, owner, mint: row.mint, preRaw: raw(before, signature), postRaw: raw(after, signature), decimals: row.uiTokenAmount.decimals });
  }
  return {
    signature,
    at: seconds * 1000,
    signers: keys.slice(0, message.header?.numRequiredSignatures ?? 1),
    tokens: tokens.map(({ accountIndex: _, ...t }) => t),
    lamports: lamportsByOwner(tx, keys, tokens),
  };
}

function raw(row: RpcTokenBalance | undefined, signature: string): bigint {
  if (!row) return 0n;
  const amount = row.uiTokenAmount?.amount;
  if (typeof amount !== "string" || !/^\d{1,20}$/.test(amount)) throw new TransactionChangesError(`unreadable raw amount for account index ${row.accountIndex} in ${signature}`);
  return BigInt(amount);
}

const lamportList = (v: unknown, n: number): bigint[] | null => (Array.isArray(v) && v.length === n && v.every((x) => Number.isSafeInteger(x) && x >= 0) ? v.map((x: number) => BigInt(x)) : null);

/**
 * Each token owner's SOL given (−) or got (+): its own account's lamports, plus its token
 * accounts' (rent into an account it opens nets out; wrapped SOL is SOL), with the fee added back
 * when it paid it (the first key pays). Empty when the transaction lists no balances.
 */
function lamportsByOwner(tx: RpcTransaction, keys: string[], tokens: { accountIndex: number; owner: string }[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const pre = lamportList(tx.meta!.preBalances, keys.length);
  const post = lamportList(tx.meta!.postBalances, keys.length);
  if (!pre || !post) return out;
  const change = (i: number) => post[i]! - pre[i]!;
  for (const owner of new Set(tokens.map((t) => t.owner))) {
    const own = keys.indexOf(owner);
    let lamports = own < 0 ? 0n : change(own);
    for (const t of tokens) if (t.owner === owner) lamports += change(t.accountIndex);
    if (keys[0] === owner) lamports += BigInt(tx.meta!.fee ?? 0);
    out.set(owner, lamports);
  }
  return out;
}
