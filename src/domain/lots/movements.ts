// Movements and their prices from one transaction (docs/lots.md#movements-and-prices): every
// change of a followed mint's raw balance in a followed wallet is an acquisition or a disposal;
// the owner's USD stablecoin change in the same transaction, the other way, is its cost or its
// proceeds, valued 1:1, whatever route the swap took. Otherwise the USD is null with a reason,
// never 0. A transfer between two wallets the tenant follows is an own transfer (a `counterpart`):
// the lot engine moves the lots with their dates and basis.
//
// Pure: the caller reads the transaction (no extra RPC call: the sync already holds it) and says
// which wallets and mints the tenant follows and the multipliers in force at its block time.
import { add, pow10, type Rat, rat, ratAbs, sign, ZERO } from "../numbers";
import { WRAPPED_SOL_MINT } from "./stablecoins";
import type { Movement } from "./types";

/**
 * One token account of a transaction, its `meta.preTokenBalances` and `postTokenBalances` rows
 * joined by account index (either token program).
 */
export interface TokenBalanceChange {
  owner: string;
  mint: string;
  /** Raw amounts (`uiTokenAmount.amount`); 0 where the account did not exist before, or after. */
  preRaw: bigint;
  postRaw: bigint;
  decimals: number;
}

/** What one transaction changed, for every owner it touched. */
export interface TransactionChanges {
  signature: string;
  /** Block time, unix ms. */
  at: number;
  /** The accounts that signed it (the first `numRequiredSignatures` account keys). */
  signers: readonly string[];
  /** Every token account the transaction lists, of every owner. */
  tokens: readonly TokenBalanceChange[];
  /**
   * Per owner, the SOL it gave or got in lamports: its own account and its token accounts' lamports
   * (so rent into an account it opens nets out, and wrapped SOL counts), the fee it paid added
   * back. An owner not listed: unknown (its wrapped SOL balance is read instead).
   */
  lamports: ReadonlyMap<string, bigint>;
}

export interface MovementContext {
  /** The tenant's followed wallets. */
  wallets: ReadonlySet<string>;
  /** Each followed mint's multiplier in force at the transaction's block time (the chain's f64 lifted exactly). */
  multipliers: ReadonlyMap<string, Rat>;
  /** The USD stablecoin mints (`STABLECOINS`; default src/domain/lots/stablecoins.ts). */
  stablecoins: ReadonlySet<string>;
  /** A followed mint's permanent delegate, where known: a disposal it signed and the owner did not is a seizure. */
  permanentDelegates?: ReadonlyMap<string, string>;
  /** Wallets known to be an exchange's: units arriving from one are a `cex_withdrawal`. */
  exchanges?: ReadonlySet<string>;
}

/** Why a movement's USD is null (docs/lots.md#movement-reasons). */
export const MOVEMENT_REASONS = {
  /** Nothing the ledger can price moved the other way: units sent away, or received from someone else. */
  transfer: "transfer",
  /** Received from a wallet listed as an exchange's. */
  cexWithdrawal: "cex_withdrawal",
  /** An acquisition paid in SOL (or wrapped SOL). */
  solPaid: "sol_paid",
  /** A disposal paid for in SOL. */
  solReceived: "sol_received",
  /** Another token moved the other way, or followed mints moved both ways with one stablecoin leg. */
  swap: "swap",
  /** One stablecoin leg for several followed mints moving the same way: not split. */
  sharedStablecoinLeg: "shared_stablecoin_leg",
  /** The owner signed an acquisition and nothing the ledger can price left it (a claim, a withdrawal from a program). */
  noStablecoinLeg: "no_stablecoin_leg",
  /** Taken by the mint's permanent delegate without the owner's signature. */
  seizure: "seizure",
  /** Between two wallets the tenant follows: no price, the lots move. */
  ownTransfer: "own_transfer",
} as const;

/** Reasons that name a trade whose price the chain does not show in stablecoins (the lot's source is `purchase`). */
export const TRADE_REASONS: ReadonlySet<string> = new Set([MOVEMENT_REASONS.solPaid, MOVEMENT_REASONS.swap, MOVEMENT_REASONS.sharedStablecoinLeg]);

interface Leg {
  owner: string;
  mint: string;
  raw: bigint;
}

/**
 * The movements of every followed wallet in one transaction, sorted by owner and mint. A caller
 * that reads the transaction for one wallet keeps that wallet's (another wallet's sync yields its own).
 */
export function movementsOf(tx: TransactionChanges, ctx: MovementContext): Movement[] {
  const { deltas, decimals } = netDeltas(tx.tokens);
  const out: Movement[] = [];
  const external = new Map<string, Leg[]>();
  for (const [mint, multiplier] of ctx.multipliers) {
    const legs = [...(deltas.get(mint) ?? [])].filter(([owner, raw]) => raw !== 0n && ctx.wallets.has(owner)).map(([owner, raw]) => ({ owner, mint, raw }));
    const own = ownTransfers(legs);
    for (const leg of legs) {
      const mine = own.get(leg.owner);
      const base = { owner: leg.owner, mint, at: tx.at, signature: tx.signature, multiplier, decimals: decimals.get(mint)! };
      if (mine) out.push({ ...base, rawDelta: mine.raw, usd: null, reason: MOVEMENT_REASONS.ownTransfer, counterpart: mine.counterpart });
      const rest = leg.raw - (mine?.raw ?? 0n);
      if (rest !== 0n) external.set(leg.owner, [...(external.get(leg.owner) ?? []), { owner: leg.owner, mint, raw: rest }]);
    }
  }
  for (const [owner, legs] of external) {
    const others = ownerLegs(tx, ctx, deltas, decimals, owner);
    for (const leg of legs) {
      const { usd, reason } = priceOf(leg, legs, others, tx, ctx, deltas);
      out.push({
        owner,
        mint: leg.mint,
        at: tx.at,
        signature: tx.signature,
        rawDelta: leg.raw,
        multiplier: ctx.multipliers.get(leg.mint)!,
        decimals: decimals.get(leg.mint)!,
        usd,
        reason,
        counterpart: null,
      });
    }
  }
  return out.sort((a, b) => cmpText(a.owner, b.owner) || cmpText(a.mint, b.mint) || Number(a.counterpart === null) - Number(b.counterpart === null));
}

const cmpText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Net raw change per mint × owner (an owner may hold several accounts of one mint), and each mint's decimals. */
function netDeltas(tokens: readonly TokenBalanceChange[]) {
  const deltas = new Map<string, Map<string, bigint>>();
  const decimals = new Map<string, number>();
  for (const t of tokens) {
    const perOwner = deltas.get(t.mint) ?? new Map<string, bigint>();
    perOwner.set(t.owner, (perOwner.get(t.owner) ?? 0n) + t.postRaw - t.preRaw);
    deltas.set(t.mint, perOwner);
    if (!decimals.has(t.mint)) decimals.set(t.mint, t.decimals);
  }
  return { deltas, decimals };
}

/**
 * The own-transfer part of each followed wallet's change of one mint: what left followed wallets
 * and arrived in followed wallets, min(Σ out, Σ in), matched in owner order. Each part names the
 * first wallet on the other side; the rest of a wallet's change is an ordinary movement (units
 * sent to, or received from, someone else in the same transaction).
 */
function ownTransfers(legs: Leg[]): Map<string, { raw: bigint; counterpart: string }> {
  const byOwner = (a: Leg, b: Leg) => cmpText(a.owner, b.owner);
  const outs = legs.filter((l) => l.raw < 0n).sort(byOwner);
  const ins = legs.filter((l) => l.raw > 0n).sort(byOwner);
  const own = new Map<string, { raw: bigint; counterpart: string }>();
  const credit = (owner: string, raw: bigint, counterpart: string) => {
    const seen = own.get(owner);
    own.set(owner, { raw: (seen?.raw ?? 0n) + raw, counterpart: seen?.counterpart ?? counterpart });
  };
  let i = 0;
  let j = 0;
  let leftOut = outs[0] ? -outs[0].raw : 0n;
  let leftIn = ins[0]?.raw ?? 0n;
  while (i < outs.length && j < ins.length) {
    const moved = leftOut < leftIn ? leftOut : leftIn;
    credit(outs[i]!.owner, -moved, ins[j]!.owner);
    credit(ins[j]!.owner, moved, outs[i]!.owner);
    leftOut -= moved;
    leftIn -= moved;
    if (leftOut === 0n && ++i < outs.length) leftOut = -outs[i]!.raw;
    if (leftIn === 0n && ++j < ins.length) leftIn = ins[j]!.raw;
  }
  return own;
}

/** What else moved for one owner in the transaction: its stablecoins in USD, other tokens' directions, SOL. */
interface OwnerLegs {
  stableUsd: Rat;
  /** Signs (+1 in, −1 out) of the owner's other tokens: neither followed, stablecoin nor wrapped SOL. */
  otherTokens: Set<number>;
  /** Lamports given (−) or got (+), fee added back; null when unknown. */
  sol: bigint | null;
  signed: boolean;
}

function ownerLegs(tx: TransactionChanges, ctx: MovementContext, deltas: Map<string, Map<string, bigint>>, decimals: Map<string, number>, owner: string): OwnerLegs {
  let stableUsd = ZERO;
  const otherTokens = new Set<number>();
  let wrappedSol: bigint | null = null;
  for (const [mint, perOwner] of deltas) {
    const raw = perOwner.get(owner) ?? 0n;
    if (raw === 0n || ctx.multipliers.has(mint)) continue;
    if (ctx.stablecoins.has(mint)) stableUsd = add(stableUsd, rat(raw, pow10(decimals.get(mint)!)));
    else if (mint === WRAPPED_SOL_MINT) wrappedSol = raw;
    else otherTokens.add(raw > 0n ? 1 : -1);
  }
  return { stableUsd, otherTokens, sol: tx.lamports.get(owner) ?? wrappedSol, signed: tx.signers.includes(owner) };
}

const bySign = (raw: bigint): number => (raw > 0n ? 1 : -1);

/**
 * The price of one of an owner's movements (docs/lots.md#movements-and-prices). The owner's
 * stablecoin change prices its movement only when it went the other way and exactly one followed
 * mint moved (besides own transfers): one leg is never split between mints, nor counted twice.
 */
function priceOf(leg: Leg, legs: Leg[], others: OwnerLegs, tx: TransactionChanges, ctx: MovementContext, deltas: Map<string, Map<string, bigint>>): { usd: Rat | null; reason: string | null } {
  const dir = bySign(leg.raw);
  const fail = (reason: string) => ({ usd: null, reason });
  if (dir < 0 && !others.signed) {
    const delegate = ctx.permanentDelegates?.get(leg.mint);
    if (delegate !== undefined && tx.signers.includes(delegate)) return fail(MOVEMENT_REASONS.seizure);
  }
  const bothWays = legs.some((l) => bySign(l.raw) !== dir);
  if (sign(others.stableUsd) === -dir) {
    if (bothWays) return fail(MOVEMENT_REASONS.swap);
    if (legs.length > 1) return fail(MOVEMENT_REASONS.sharedStablecoinLeg);
    return { usd: ratAbs(others.stableUsd), reason: null };
  }
  if (bothWays || others.otherTokens.has(-dir)) return fail(MOVEMENT_REASONS.swap);
  if (others.sol !== null && others.sol !== 0n && bySign(others.sol) === -dir) return fail(dir > 0 ? MOVEMENT_REASONS.solPaid : MOVEMENT_REASONS.solReceived);
  if (dir < 0) return fail(MOVEMENT_REASONS.transfer);
  const senders = [...(deltas.get(leg.mint) ?? [])].filter(([owner, raw]) => owner !== leg.owner && raw < 0n).map(([owner]) => owner);
  if (senders.some((s) => ctx.exchanges?.has(s))) return fail(MOVEMENT_REASONS.cexWithdrawal);
  return fail(others.signed ? MOVEMENT_REASONS.noStablecoinLeg : MOVEMENT_REASONS.transfer);
}
