// Builders for the lot engine's tests, and a generator of random tenant histories with an
// independent reference: the chain's own state (raw balance per wallet × mint, the multiplier in
// force per mint) replayed in the documented order, so a test can ask what Σ raw × M / 10^d was at
// every instant without asking the lot engine.
import fc from "fast-check";
import { units as unitsAt } from "../../src/domain/book";
import type { ActionEvent, LotInput, Movement } from "../../src/domain/lots";
import { add, liftF64, mul, parseDecimal, type Rat, rat, sub, ZERO } from "../../src/domain/numbers";
import { ACTION_TYPES as TAXONOMY_TYPES, typeInfo } from "../../src/domain/taxonomy";
import type { ActionType } from "../../src/domain/types";

export const DAY = 86_400_000;
export const ms = (iso: string): number => Date.parse(iso);
export const usd = (s: string): Rat => parseDecimal(s);

export interface MovementSpec {
  owner: string;
  mint: string;
  at: number;
  signature: string;
  rawDelta: bigint;
  multiplier: number;
  decimals?: number;
  usd?: Rat | null;
  reason?: string | null;
  counterpart?: string | null;
}

export function movement(s: MovementSpec): Movement {
  return {
    owner: s.owner,
    mint: s.mint,
    at: s.at,
    signature: s.signature,
    rawDelta: s.rawDelta,
    multiplier: liftF64(s.multiplier),
    decimals: s.decimals ?? 8,
    usd: s.usd ?? null,
    reason: s.usd === undefined || s.usd === null ? (s.reason ?? "transfer") : (s.reason ?? null),
    counterpart: s.counterpart ?? null,
  };
}

export interface ActionSpec {
  owner: string;
  mint: string;
  actionId: string;
  at: number;
  type: ActionType;
  /** Raw balance at the activation. */
  raw: bigint;
  mOld: number;
  mNew: number;
  decimals?: number;
  /** Net cash a share (income types): usd = U0 × this. */
  cashPerShare?: Rat | null;
  /** The stock part of a cash-and-stock dividend (issuer ratio). */
  stockFactor?: Rat;
  /** Proceeds a share (spin-off information, termination cash-out): proceeds = U0 × this. */
  proceedsPerShare?: Rat | null;
}

/** An action as the booking engine books it for one wallet (docs/action-types.md#booking). */
export function action(s: ActionSpec): ActionEvent {
  const d = s.decimals ?? 8;
  const mOld = liftF64(s.mOld);
  const mNew = liftF64(s.mNew);
  const u0 = unitsAt(s.raw, mOld, d);
  const u1 = unitsAt(s.raw, mNew, d);
  const info = typeInfo(s.type);
  const income = info.treatment === "income";
  const incomeUnits = !income ? ZERO : s.stockFactor ? sub(u1, mul(u0, s.stockFactor)) : sub(u1, u0);
  return {
    owner: s.owner,
    mint: s.mint,
    actionId: s.actionId,
    at: s.at,
    type: s.type,
    treatment: info.treatment,
    category: info.category,
    multiplierOld: mOld,
    multiplierNew: mNew,
    unitsBefore: u0,
    unitsAfter: u1,
    incomeUnits,
    usd: income && s.cashPerShare ? mul(u0, s.cashPerShare) : null,
    proceedsUsd: s.proceedsPerShare ? mul(u0, s.proceedsPerShare) : null,
  };
}

// ---- Random tenant histories ---------------------------------------------------------------

export const WALLETS = ["WalletA", "WalletB", "WalletC"] as const;
export const MINTS = [
  { mint: "MintX", decimals: 8 },
  { mint: "MintY", decimals: 6 },
] as const;

type W = (typeof WALLETS)[number];
type M = 0 | 1;

export type Op =
  | { k: "buy"; w: W; m: M; raw: bigint; cents: number | null }
  | { k: "sell"; w: W; m: M; percent: number; cents: number | null }
  | { k: "transfer_in"; w: W; m: M; raw: bigint }
  | { k: "transfer_out"; w: W; m: M; percent: number }
  | { k: "seize"; w: W; m: M; percent: number }
  | { k: "own"; w: W; to: W; m: M; percent: number }
  | { k: "action"; m: M; type: ActionType; bump: number; cash: number | null; ratio: number; proceeds: number | null; end: 0 | 1 | 2 };

/** Types that change the multiplier: every type but a seizure (its units leave by a balance change). */
const ACTION_TYPES: readonly ActionType[] = TAXONOMY_TYPES.filter((t) => t !== "seizure");

const wallet = fc.constantFrom<W>(...WALLETS);
const mint = fc.constantFrom<M>(0, 1);
const percent = fc.constantFrom(1, 10, 33, 50, 99, 100);
const raw = fc.bigInt({ min: 1n, max: 10n ** 12n });

/** `known`: every cost and proceeds known, nothing arrives from outside without a price. */
export function opArb(known: boolean): fc.Arbitrary<Op> {
  const cents = known ? fc.integer({ min: 0, max: 10_000_000 }) : fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null });
  const action = fc.record({
    k: fc.constant("action" as const),
    m: mint,
    type: fc.constantFrom(...ACTION_TYPES.filter((t) => !known || typeInfo(t).category !== "termination")),
    bump: fc.integer({ min: 1, max: 300 }).map((x) => x / 10_000),
    cash: known ? fc.integer({ min: 1, max: 50_000 }) : fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: null }),
    ratio: fc.constantFrom(2, 3, 10),
    proceeds: fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: null }),
    end: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
  });
  const ops: fc.WeightedArbitrary<Op>[] = [
    { arbitrary: fc.record({ k: fc.constant("buy" as const), w: wallet, m: mint, raw, cents }), weight: 4 },
    { arbitrary: fc.record({ k: fc.constant("sell" as const), w: wallet, m: mint, percent, cents }), weight: 2 },
    { arbitrary: fc.record({ k: fc.constant("own" as const), w: wallet, to: wallet, m: mint, percent }), weight: 3 },
    { arbitrary: action, weight: 3 },
  ];
  if (!known) {
    ops.push(
      { arbitrary: fc.record({ k: fc.constant("transfer_in" as const), w: wallet, m: mint, raw }), weight: 1 },
      { arbitrary: fc.record({ k: fc.constant("transfer_out" as const), w: wallet, m: mint, percent }), weight: 1 },
      { arbitrary: fc.record({ k: fc.constant("seize" as const), w: wallet, m: mint, percent }), weight: 1 },
    );
  }
  return fc.oneof(...ops);
}

/** Gaps between steps: the same millisecond, a second, a day, a month, more than a year. */
const gap = fc.constantFrom(0, 0, 1000, DAY, 40 * DAY, 400 * DAY);

export const historyArb = (known = false): fc.Arbitrary<{ op: Op; gap: number }[]> => fc.array(fc.record({ op: opArb(known), gap }), { minLength: 6, maxLength: 40 });

export interface History {
  input: LotInput;
  /** Every instant, in order, with Σ raw × M / 10^d per wallet × mint after it (the chain's view). */
  instants: { at: number; units: Map<string, Rat> }[];
  /** Sum of the known costs of acquisitions. */
  costUsd: Rat;
  /** Sum of the known net USD of income actions, for the wallets' booked units. */
  incomeUsd: Rat;
}

export const key = (owner: string, mint: string): string => `${owner}|${mint}`;
const T0 = Date.parse("2024-01-01T00:00:00Z");

/**
 * Turn random steps into a consistent tenant history: times first, then the steps in the order the
 * engine applies them (time, actions before movements, then signature), each sized against the
 * balances of that moment.
 */
export function buildHistory(steps: { op: Op; gap: number }[]): History {
  let t = T0;
  const timed = steps.map((s, i) => ({ ...s, at: (t += s.gap), i }));
  timed.sort((a, b) => a.at - b.at || (a.op.k === "action" ? 0 : 1) - (b.op.k === "action" ? 0 : 1) || a.i - b.i);
  const rawOf = new Map<string, bigint>();
  const mOf = [1, 1];
  const movements: Movement[] = [];
  const actions: ActionEvent[] = [];
  const instants: History["instants"] = [];
  let costUsd = ZERO;
  let incomeUsd = ZERO;
  const get = (w: string, m: M): bigint => rawOf.get(key(w, MINTS[m].mint)) ?? 0n;
  const put = (w: string, m: M, delta: bigint): void => void rawOf.set(key(w, MINTS[m].mint), get(w, m) + delta);
  const snapshot = (at: number): void => {
    const units = new Map<string, Rat>();
    for (const w of WALLETS) for (const m of [0, 1] as M[]) units.set(key(w, MINTS[m].mint), unitsAt(get(w, m), liftF64(mOf[m]!), MINTS[m].decimals));
    if (instants.length && instants[instants.length - 1]!.at === at) instants[instants.length - 1]!.units = units;
    else instants.push({ at, units });
  };
  const part = (w: W, m: M, p: number): bigint => (get(w, m) * BigInt(p)) / 100n;
  for (const { op, at, i } of timed) {
    const signature = `tx${String(i).padStart(4, "0")}`;
    const base = { at, signature };
    if (op.k === "action") {
      const mOld = mOf[op.m]!;
      const mNew = nextMultiplier(op, mOld);
      for (const w of WALLETS) {
        const r = get(w, op.m);
        if (r <= 0n) continue;
        const a = action({
          owner: w,
          mint: MINTS[op.m].mint,
          actionId: `${signature}:${w}`,
          at,
          type: op.type,
          raw: r,
          mOld,
          mNew,
          decimals: MINTS[op.m].decimals,
          cashPerShare: op.cash === null ? null : rat(op.cash, 10_000),
          stockFactor: op.type === "cash_and_stock_dividend" ? STOCK_FACTOR : undefined,
          proceedsPerShare: op.proceeds === null ? null : rat(op.proceeds, 100),
        });
        actions.push(a);
        if (a.usd) incomeUsd = add(incomeUsd, a.usd);
      }
      mOf[op.m] = mNew;
    } else if (mOf[op.m] !== 0) {
      // A terminated line (multiplier 0) shows no units: nobody trades it (the engine flags it, tested apart).
      const { mint: mintId, decimals } = MINTS[op.m];
      const common = { ...base, mint: mintId, decimals, multiplier: mOf[op.m]! };
      if (op.k === "buy" || op.k === "transfer_in") {
        const cost = op.k === "buy" && op.cents !== null ? rat(op.cents, 100) : null;
        movements.push(movement({ ...common, owner: op.w, rawDelta: op.raw, usd: cost, reason: cost ? null : op.k === "buy" ? "sol_paid" : "transfer" }));
        if (cost) costUsd = add(costUsd, cost);
        put(op.w, op.m, op.raw);
      } else {
        const amount = part(op.w, op.m, op.percent);
        if (amount > 0n) {
          if (op.k === "own") {
            if (op.to !== op.w) {
              movements.push(movement({ ...common, owner: op.w, rawDelta: -amount, reason: "transfer", counterpart: op.to }));
              movements.push(movement({ ...common, owner: op.to, rawDelta: amount, reason: "transfer", counterpart: op.w }));
              put(op.w, op.m, -amount);
              put(op.to, op.m, amount);
            }
          } else {
            const proceeds = op.k === "sell" && op.cents !== null ? rat(op.cents, 100) : null;
            const reason = proceeds ? null : op.k === "seize" ? "seizure" : op.k === "sell" ? "no_stablecoin_leg" : "transfer";
            movements.push(movement({ ...common, owner: op.w, rawDelta: -amount, usd: proceeds, reason }));
            put(op.w, op.m, -amount);
          }
        }
      }
    }
    snapshot(at);
  }
  return { input: { movements, actions }, instants, costUsd, incomeUsd };
}

export const STOCK_FACTOR = parseDecimal("1.05");

function nextMultiplier(op: Extract<Op, { k: "action" }>, m: number): number {
  switch (typeInfo(op.type).category) {
    case "income":
      return op.type === "cash_and_stock_dividend" ? m * 1.05 * (1 + op.bump) : m * (1 + op.bump);
    case "basis":
      if (op.type === "reverse_split") return m / op.ratio;
      if (op.type === "forward_split" || op.type === "unit_split") return m * op.ratio;
      return m * (1 + op.bump);
    case "identity":
      return m * 0.5;
    case "termination":
      return op.end === 0 ? 0 : op.end === 1 ? m : m * (1 + op.bump);
    default:
      return op.end === 0 ? m * (1 - op.bump) : m * (1 + op.bump);
  }
}

/** A copy of the input with its lists in another order (the engine must not care). */
export function shuffled(input: LotInput, seed: number): LotInput {
  const shuffle = <T>(xs: readonly T[]): T[] => {
    const out = [...xs];
    let s = seed || 1;
    for (let i = out.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) % 2147483648;
      const j = s % (i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return { movements: shuffle(input.movements), actions: shuffle(input.actions) };
}
