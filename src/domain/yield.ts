// Yield per position and window (docs/yield.md): income USD and units, time-weighted average quantity
// in the current unit basis, share yield (annualised) and distribution per current share. A
// window the ledger cannot cover fully is `partial` with a code instead of numbers.
import type { BalanceHistory } from "./balances";
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
  const acts = [...y.actions].sort((a, b) => a.at - b.at);
  // Factor restating a quantity held at time t into the current unit basis.
  // suffix[i] = product of basis factors of acts[i..]; restate(t) = suffix of the first act after t.
  const restatesBasis = (a: YieldAction): boolean => ruleOf(a.type).restatesBasis;
  const quantitySuffix = suffixProducts(acts, (a) => (restatesBasis(a) ? a.scale : ONE));
  const cashSuffix = suffixProducts(acts, (a) => (restatesBasis(a) ? (a.factor ?? a.scale) : ONE));
  const firstAfter = (t: number): number => {
    let lo = 0;
    let hi = acts.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (acts[m]!.at > t) hi = m;
      else lo = m + 1;
    }
    return lo;
  };
  const restate = (t: number): Rat => quantitySuffix[firstAfter(t)]!;
  const restateCash = (t: number): Rat => cashSuffix[firstAfter(t)]!;
  const rawAt = (t: number): bigint => {
    if (y.history.changes.length === 0) return y.history.reported;
    let raw = y.history.opening;
    for (const c of y.history.changes) {
      if (c.blockTime > t) break;
      raw += c.postRaw - c.preRaw;
    }
    return raw;
  };
  // The three windows share most of their cuts: value each instant once.
  const quantities = new Map<number, Rat>();
  const qtyAt = (t: number): Rat => {
    let q = quantities.get(t);
    if (!q) quantities.set(t, (q = mul(units(rawAt(t), liftF64(y.multiplierAt(t)), y.decimals), restate(t))));
    return q;
  };
  const firstSeen = y.history.changes.length ? y.history.changes[0]!.blockTime : null;

  const windows: [YieldWindow, number][] = [
    ["trailing_30d", y.now - 30 * DAY],
    ["trailing_365d", y.now - YEAR],
    ["tracked", firstSeen ?? y.now],
  ];
  return windows.map(([window, from]) => one(window, from));

  function one(window: YieldWindow, from: number): YieldRecord {
    const to = y.now;
    const base: YieldRecord = {
      owner: y.owner,
      mint: y.mint,
      symbol: y.symbol,
      window,
      from: isoFromUnix(from),
      to: isoFromUnix(to),
      status: "ok",
      partialCode: null,
      incomeUsd: null,
      incomeUnits: null,
      averageQuantity: null,
      shareYield: null,
      annualisedShareYield: null,
      distributionPerShareUsd: null,
    };
    if (y.coverageProblem) return { ...base, status: "partial", partialCode: "balance_history_incomplete" };
    if (firstSeen === null) return { ...base, status: "partial", partialCode: "no_balance_history" };
    // Before the first recorded change we only know the balance if the account opened there.
    if (y.history.opening > 0n && from < firstSeen) return { ...base, status: "partial", partialCode: "history_starts_inside_window" };
    if (to <= from) return { ...base, status: "partial", partialCode: "empty_window" };

    // Time-weighted quantity: piecewise constant between balance changes and actions.
    const cuts = new Set<number>([from, to]);
    for (const c of y.history.changes) if (c.blockTime > from && c.blockTime < to) cuts.add(c.blockTime);
    for (const a of acts) if (a.at > from && a.at < to) cuts.add(a.at);
    const times = [...cuts].sort((a, b) => a - b);
    const segments = times.slice(0, -1).map((t, i) => mul(qtyAt(t), rat(times[i + 1]! - t)));
    const avg = div(sum(segments), rat(to - from));

    const inWindow = acts.filter((a) => a.treatment === "income" && a.at > from && a.at <= to);
    const units = sum(inWindow.map((a) => mul(a.incomeUnits, restate(a.at))));
    const unvalued = inWindow.some((a) => a.usd === null);
    const usd = unvalued ? null : sum(inWindow.map((a) => a.usd!));
    const perShare = inWindow.some((a) => a.cashPerShare === null) ? null : sum(inWindow.map((a) => div(a.cashPerShare!, restateCash(a.at))));
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
}

/** out[i] = product of factor(acts[j]) for j ≥ i; out[acts.length] = 1. */
function suffixProducts(acts: YieldAction[], factor: (a: YieldAction) => Rat): Rat[] {
  const out: Rat[] = new Array(acts.length + 1);
  out[acts.length] = ONE;
  for (let i = acts.length - 1; i >= 0; i--) out[i] = mul(out[i + 1]!, factor(acts[i]!));
  return out;
}
