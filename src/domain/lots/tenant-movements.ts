// A tenant's movements from what the ledger stores (docs/lots.md#what-the-sync-stores): the
// balance changes of the followed mints (the same ones the booking engine reads, so the lots hold
// exactly the positions' units), and for each transaction the owners' stored parts, which add
// what else moved for them (stablecoins, SOL, other tokens) and who signed. A transaction stored
// before its parts were (an older ledger), or a part never stored, is read from its balance
// changes alone: its movements carry no price, and their reason says what the chain shows.
//
// Which wallets the tenant follows is known only here, at derivation time: a wallet followed
// later turns an earlier transfer into an own transfer.
import { balanceHistory } from "../balances";
import { groupBy } from "../group";
import { liftF64, type Rat } from "../numbers";
import type { BalanceChangeObs } from "../observations";
import { isSeizure } from "../rules/custody";
import { MOVEMENT_REASONS, movementsOf } from "./movements";
import { joinOwnerChanges, type OwnerTransactionChanges } from "./owner-changes";
import type { Movement } from "./types";

/** What the derivation knows of a followed mint. */
export interface FollowedMint {
  decimals: number;
  /** The multiplier in force at a unix second (the chain's f64; the booking engine's own reading). */
  multiplierAt: (unixSeconds: number) => number;
}

export interface TenantMovementsInput {
  /** The wallets the tenant follows (own transfers are recognised among them). */
  wallets: ReadonlySet<string>;
  /** The wallets' balance changes; changes of mints not in `mints` are left out. */
  balanceChanges: readonly BalanceChangeObs[];
  /** The stored parts of the wallets' transactions (any order; parts of other owners are ignored). */
  parts: readonly OwnerTransactionChanges[];
  mints: ReadonlyMap<string, FollowedMint>;
  stablecoins: ReadonlySet<string>;
}

/** Why a balance held before the recorded history is a lot of unknown basis (docs/lots.md#movements). */
export const OPENING_BALANCE = "opening_balance";

export function tenantMovements(input: TenantMovementsInput): Movement[] {
  const { wallets, mints } = input;
  const changes = input.balanceChanges.filter((c) => wallets.has(c.owner) && mints.has(c.mint));
  const bySignature = groupBy(changes, (c) => c.signature);
  const partsBySignature = groupBy(
    input.parts.filter((p) => wallets.has(p.owner)),
    (p) => p.signature,
  );
  const out: Movement[] = [];
  for (const [signature, rows] of bySignature) {
    const stored = new Map((partsBySignature.get(signature) ?? []).map((p) => [p.owner, p]));
    const parts = [...groupBy(rows, (c) => c.owner)].map(([owner, own]) => ownerPart(own, stored.get(owner) ?? null, mints));
    const blockTime = rows[0]!.blockTime;
    const multipliers = new Map<string, Rat>();
    for (const mint of new Set(rows.map((c) => c.mint))) multipliers.set(mint, liftF64(mints.get(mint)!.multiplierAt(blockTime)));
    const seized = new Set(rows.filter(isSeizure).map((c) => `${c.owner} ${c.mint}`));
    for (const m of movementsOf(joinOwnerChanges(parts), { wallets, multipliers, stablecoins: input.stablecoins })) {
      // The booking engine's seizure rule, on the stored change (docs/action-types.md#seizures): the mint's
      // permanent delegate moved the units without the owner's signature.
      out.push(m.rawDelta < 0n && m.counterpart === null && seized.has(`${m.owner} ${m.mint}`) ? { ...m, usd: null, reason: MOVEMENT_REASONS.seizure } : m);
    }
  }
  out.push(...openingBalances(changes, mints));
  return out;
}

/**
 * One owner's part of a transaction: the followed mints' changes as the balance changes give them
 * (what the positions count), everything else as the stored part gives it. Without a stored part,
 * only the balance changes: no SOL known, and the owner counted a signer when its change says so.
 */
function ownerPart(rows: BalanceChangeObs[], stored: OwnerTransactionChanges | null, mints: ReadonlyMap<string, FollowedMint>): OwnerTransactionChanges {
  const followed = rows.map((c) => ({ mint: c.mint, decimals: mints.get(c.mint)!.decimals, preRaw: c.preRaw, postRaw: c.postRaw }));
  const first = rows[0]!;
  if (stored) return { ...stored, tokens: [...followed, ...stored.tokens.filter((t) => !mints.has(t.mint))] };
  return {
    signature: first.signature,
    owner: first.owner,
    slot: first.slot,
    at: first.blockTime * 1000,
    signers: rows.some((c) => c.ownerSigned) ? [first.owner] : [],
    lamports: null,
    tokens: followed,
  };
}

/**
 * A balance held before a wallet's recorded history of a mint starts (an incomplete history) is
 * one acquisition of unknown cost, one millisecond before the first recorded change, at the
 * multiplier then in force.
 */
function openingBalances(changes: BalanceChangeObs[], mints: ReadonlyMap<string, FollowedMint>): Movement[] {
  const out: Movement[] = [];
  for (const [key, rows] of groupBy(changes, (c) => `${c.owner} ${c.mint}`)) {
    const [owner, mint] = key.split(" ") as [string, string];
    const history = balanceHistory(owner, mint, [], rows);
    if (history.opening === 0n) continue;
    const first = history.changes[0]!;
    const info = mints.get(mint)!;
    out.push({
      owner,
      mint,
      at: first.blockTime * 1000 - 1,
      signature: `opening:${owner}:${mint}`,
      rawDelta: history.opening,
      multiplier: liftF64(info.multiplierAt(first.blockTime - 1)),
      decimals: info.decimals,
      usd: null,
      reason: OPENING_BALANCE,
      counterpart: null,
    });
  }
  return out;
}
