// Yield per position and window (docs/yield.md): income USD and units, time-weighted average quantity
// in the current unit basis, share yield (annualised) and distribution per current share. A
// window the ledger cannot cover fully is `partial` with a code instead of numbers.
import { type BalanceHistory, rawAfter } from "./balances";
import { units } from "./book";
import { cmp, div, formatDecimal, formatExact, liftF64, mul, ONE, type Rat, rat, sum, ZERO } from "./numbers";
import { ruleOf } from "./rules";
import { isoFromUnix } from "./time";
import type { ActionType, Treatment, YieldRecord, YieldWindow } from "./types";

export interface YieldAction {
  at: number;
  type: ActionType;
  treatment: Treatment;
  /** Exact U1/U0 ratio applied to the position (restates quantities across it). */
  scale: Rat;
  /**
   * The issuer's own factor where it reconciles with the chain (restates cash a share across it).
   * The chain ratio of two f64 multipliers is not the issuer's decimal (a 10:1 split reads
   * 10.00000000000000044), so cash a share restated by it would read 0.321999999999999993.
   */
  factor: Rat | null;
  incomeUnits: Rat;
  usd: Rat | null;
  cashPerShare: Rat | null;
}

export interface YieldInput {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  now: number;
  history: BalanceHistory;
  multiplierAt: (t: number) => number;
  /** Activated actions of the position, any order. */
  actions: YieldAction[];
  /** Why the balance history cannot be trusted (gaps, unreconciled), or null. */
  coverageProblem: string | null;
}

const DAY = 86400;
const YEAR = 365 * DAY;

export function buildYields(y: YieldInput): YieldRecord[] {
  const held = holdingOverTime(y);
  const firstSeen = y.history.changes.length ? y.history.changes[0]!.blockTime : null;
  const windows: [YieldWindow, number][] = [
    ["trailing_30d", y.now - 30 * DAY],
    ["trailing_365d", y.now - YEAR],
    ["tracked", firstSeen ?? y.now],
  ];
  return windows.map(([window, from]) => {
    const base = emptyRecord(y, window, from);
    const partialCode = uncoveredWindow(y, firstSeen, from);
    return partialCode ? { ...base, status: "partial", partialCode } : windowYield(base, held, from, y.now);
  });
}

/** The position's actions in time order, and what it held at any instant, in the current unit basis. */
interface HoldingOverTime {
  acts: YieldAction[];
  /** Balance-change and action times: where the quantity held steps. */
  steps: number[];
  /** Factor restating a quantity held at `t` into the current unit basis. */
  restate: (t: number) => Rat;
  /** The same for cash a share, by the issuer's own factors where they reconcile. */
  restateCash: (t: number) => Rat;
  /** The quantity held just after `t`, in the current unit basis. */
  quantityAt: (t: number) => Rat;
}

function holdingOverTime(y: YieldInput): HoldingOverTime {
  const acts = [...y.actions].sort((a, b) => a.at - b.at);
  // suffix[i] = product of basis factors of acts[i..]; restate(t) = suffix of the first act after t.
  const restatesBasis = (a: YieldAction): boolean => ruleOf(a.type).restatesBasis;
  const quantitySuffix = suffixProducts(acts, (a) => (restatesBasis(a) ? a.scale : ONE));
  const cashSuffix = suffixProducts(acts, (a) => (restatesBasis(a) ? (a.factor ?? a.scale) : ONE));
  const restate = (t: number): Rat => quantitySuffix[firstAfter(acts, t)]!;
  // The three windows share most of their cuts: value each instant once.
  const quantities = new Map<number, Rat>();
  const quantityAt = (t: number): Rat => {
    let q = quantities.get(t);
    if (!q) quantities.set(t, (q = mul(units(rawAfter(y.history, t), liftF64(y.multiplierAt(t)), y.decimals), restate(t))));
    return q;
  };
  return {
    acts,
    steps: [...y.history.changes.map((c) => c.blockTime), ...acts.map((a) => a.at)],
    restate,
    restateCash: (t) => cashSuffix[firstAfter(acts, t)]!,
    quantityAt,
  };
}

/** Index of the first action after `t` (actions in time order). */
function firstAfter(acts: YieldAction[], t: number): number {
  let lo = 0;
  let hi = acts.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (acts[m]!.at > t) hi = m;
    else lo = m + 1;
  }
  return lo;
}

function emptyRecord(y: YieldInput, window: YieldWindow, from: number): YieldRecord {
  return {
    owner: y.owner,
    mint: y.mint,
    symbol: y.symbol,
    window,
    from: isoFromUnix(from),
    to: isoFromUnix(y.now),
    status: "ok",
    partialCode: null,
    incomeUsd: null,
    incomeUnits: null,
    averageQuantity: null,
    shareYield: null,
    annualisedShareYield: null,
    distributionPerShareUsd: null,
  };
}

/** Why the window from `from` to now cannot be covered (its partial code), or null when it can. */
function uncoveredWindow(y: YieldInput, firstSeen: number | null, from: number): string | null {
  if (y.coverageProblem) return "balance_history_incomplete";
  if (firstSeen === null) return "no_balance_history";
  // Before the first recorded change we only know the balance if the account opened there.
  if (y.history.opening > 0n && from < firstSeen) return "history_starts_inside_window";
  if (y.now <= from) return "empty_window";
  return null;
}

/** Income, time-weighted average quantity and yields over a window the history covers. */
function windowYield(base: YieldRecord, held: HoldingOverTime, from: number, to: number): YieldRecord {
  // Time-weighted quantity: piecewise constant between balance changes and actions.
  const cuts = new Set<number>([from, to]);
  for (const t of held.steps) if (t > from && t < to) cuts.add(t);
  const times = [...cuts].sort((a, b) => a - b);
  const segments = times.slice(0, -1).map((t, i) => mul(held.quantityAt(t), rat(times[i + 1]! - t)));
  const avg = div(sum(segments), rat(to - from));

  const inWindow = held.acts.filter((a) => a.treatment === "income" && a.at > from && a.at <= to);
  const units = sum(inWindow.map((a) => mul(a.incomeUnits, held.restate(a.at))));
  const unvalued = inWindow.some((a) => a.usd === null);
  const usd = unvalued ? null : sum(inWindow.map((a) => a.usd!));
  const perShare = inWindow.some((a) => a.cashPerShare === null) ? null : sum(inWindow.map((a) => div(a.cashPerShare!, held.restateCash(a.at))));
  const sy = cmp(avg, ZERO) > 0 ? div(units, avg) : null;
  return {
    ...base,
    status: unvalued ? "partial" : "ok",
    partialCode: unvalued ? "unvalued_income" : null,
    incomeUsd: usd === null ? null : formatExact(usd),
    incomeUnits: formatDecimal(units),
    averageQuantity: formatDecimal(avg),
    shareYield: sy === null ? null : formatDecimal(sy),
    annualisedShareYield: sy === null ? null : formatDecimal(div(mul(sy, rat(YEAR)), rat(to - from))),
    distributionPerShareUsd: perShare === null ? null : formatDecimal(perShare),
  };
}

/** out[i] = product of factor(acts[j]) for j ≥ i; out[acts.length] = 1. */
function suffixProducts(acts: YieldAction[], factor: (a: YieldAction) => Rat): Rat[] {
  const out: Rat[] = new Array(acts.length + 1);
  out[acts.length] = ONE;
  for (let i = acts.length - 1; i >= 0; i--) out[i] = mul(out[i + 1]!, factor(acts[i]!));
  return out;
}
