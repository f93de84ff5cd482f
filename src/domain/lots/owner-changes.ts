// One owner's part of a transaction's changes: what the sync stores (docs/lots.md#what-the-sync-stores).
// A wallet's sync sees the whole transaction but keeps only its owner's part: the owner's token
// accounts of either program and its SOL. A transaction between two wallets the tenant follows is
// read by both wallets' syncs, so its two parts are both stored, and joining the parts of one
// signature gives back what movementsOf needs for every wallet the tenant follows (a pool's or a
// router's accounts are never needed: only the owner's own accounts price its movements).
import type { TokenBalanceChange, TransactionChanges } from "./movements";

export interface OwnerTokenChange {
  mint: string;
  decimals: number;
  preRaw: bigint;
  postRaw: bigint;
}

export interface OwnerTransactionChanges {
  signature: string;
  owner: string;
  slot: number;
  /** Block time, unix ms. */
  at: number;
  /** Every signer of the transaction (the first `numRequiredSignatures` account keys). */
  signers: readonly string[];
  /** The owner's SOL given (−) or got (+) in lamports, its fee added back when it paid it; null when unknown. */
  lamports: bigint | null;
  /** Every token account of the owner the transaction lists, in account order (one per account: an owner may hold several of a mint). */
  tokens: readonly OwnerTokenChange[];
}

/** The owner's part of a transaction's changes. */
export function ownerChangesOf(changes: TransactionChanges, owner: string, slot: number): OwnerTransactionChanges {
  return {
    signature: changes.signature,
    owner,
    slot,
    at: changes.at,
    signers: [...changes.signers],
    lamports: changes.lamports.get(owner) ?? null,
    tokens: changes.tokens.filter((t) => t.owner === owner).map(({ mint, decimals, preRaw, postRaw }) => ({ mint, decimals, preRaw, postRaw })),
  };
}

/** Whether any of the owner's balances of these mints changed in the transaction. */
export const movesAny = (part: OwnerTransactionChanges, mints: ReadonlySet<string>): boolean => part.tokens.some((t) => t.preRaw !== t.postRaw && mints.has(t.mint));

/** The parts of one transaction (one signature, several owners) joined back into its changes. */
export function joinOwnerChanges(parts: readonly OwnerTransactionChanges[]): TransactionChanges {
  const first = parts[0];
  if (!first) throw new Error("joinOwnerChanges: no part");
  const tokens: TokenBalanceChange[] = [];
  const lamports = new Map<string, bigint>();
  const signers = new Set<string>();
  for (const p of parts) {
    if (p.signature !== first.signature) throw new Error(`joinOwnerChanges: ${p.signature} is not ${first.signature}`);
    for (const s of p.signers) signers.add(s);
    for (const t of p.tokens) tokens.push({ owner: p.owner, ...t });
    if (p.lamports !== null) lamports.set(p.owner, p.lamports);
  }
  return { signature: first.signature, at: first.at, signers: [...signers], tokens, lamports };
}
