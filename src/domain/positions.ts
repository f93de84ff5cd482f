// A wallet's position in one mint, replayed event by event: deposits become principal, income
// actions add convertible income units, basis and identity factors scale both, withdrawals take
// both down proportionally, unbooked changes add non-convertible principal. The replay must land
// exactly on raw × multiplier, or the position is `partial` and says why.
import type { BookingFacts } from "./book";
import type { BalanceHistory } from "./balances";
import { units } from "./book";
import { add, cmp, div, eq, formatDecimal, formatExact, liftF64, mul, parseDecimal, type Rat, sub, sum, ZERO } from "./numbers";
import type { ActionType, PositionRecord, Treatment } from "./types";

export interface ReplayAction {
  at: number;
  type: ActionType;
  treatment: Treatment;
  facts: BookingFacts;
  usd: Rat | null;
  v1Unclassified: boolean;
  terminates: boolean;
}

export interface PositionInput {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  history: BalanceHistory;
  /** Multiplier in force at time t (f64 read from chain). */
  multiplierAt: (t: number) => number;
  multiplierNow: number;
  actions: ReplayAction[];
  gaps: string[];
  extraProblems: string[];
}

/** A time before every chain event (finite so that time differences stay numbers). */
export const BEFORE_ALL = -1e15;

export interface PositionState {
  principal: Rat;
  income: Rat;
}

/** Apply a raw balance change at time t to the state. */
export function applyBalanceChange(s: PositionState, deltaRaw: bigint, m: Rat, decimals: number): void {
  const q = units(deltaRaw < 0n ? -deltaRaw : deltaRaw, m, decimals);
  if (deltaRaw >= 0n) {
    s.principal = add(s.principal, q);
    return;
  }
  const total = add(s.principal, s.income);
  if (cmp(total, ZERO) <= 0) {
    s.principal = sub(s.principal, q);
    return;
  }
  // Withdrawals take principal and income units down in proportion.
  const keep = sub(total, q);
  const ratio = div(keep, total);
  s.principal = mul(s.principal, ratio);
  s.income = mul(s.income, ratio);
}

export function applyAction(s: PositionState, f: BookingFacts): void {
  s.principal = add(mul(s.principal, f.scale), f.principalAdd);
  s.income = add(mul(s.income, f.scale), f.incomeUnits);
}

export function buildPosition(p: PositionInput): PositionRecord {
  const s: PositionState = { principal: ZERO, income: ZERO };
  const h = p.history;
  type Ev = { at: number; order: number; run: () => void };
  const evs: Ev[] = [];
  if (h.opening > 0n || h.changes.length === 0) {
    // Balance held before the recorded history (or no history at all): an opening deposit.
    const opening = h.changes.length === 0 ? h.reported : h.opening;
    // Held from before any observed multiplier change: deposited at the initial multiplier.
    evs.push({ at: BEFORE_ALL, order: -1, run: () => applyBalanceChange(s, opening, liftF64(p.multiplierAt(BEFORE_ALL)), p.decimals) });
  }
  // Actions take force before any transfer in the same second (the transfer sees the new multiplier).
  for (const a of p.actions) evs.push({ at: a.at, order: 0, run: () => applyAction(s, a.facts) });
  for (const c of h.changes) {
    evs.push({ at: c.blockTime, order: 1, run: () => applyBalanceChange(s, c.postRaw - c.preRaw, liftF64(p.multiplierAt(c.blockTime)), p.decimals) });
  }
  evs.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const e of evs) e.run();

  const mNow = liftF64(p.multiplierNow);
  const quantity = units(h.reported, mNow, p.decimals);
  const problems = [...p.extraProblems];
  if (h.problem) problems.push(h.problem);
  if (p.gaps.length) problems.push(`sync gaps: ${p.gaps.join(", ")}`);
  if (!eq(add(s.principal, s.income), quantity)) {
    problems.push(`replayed quantity ${formatDecimal(add(s.principal, s.income))} differs from raw × multiplier ${formatExact(quantity)}`);
  }
  const convertible = formatDecimal(s.income);
  const income = p.actions.filter((a) => a.treatment === "income");
  const incomeUsd = sum(income.flatMap((a) => (a.usd ? [a.usd] : [])));
  const terminal = [...p.actions].reverse().find((a) => a.terminates);
  const status: PositionRecord["status"] = problems.length ? "partial" : terminal ? "terminated" : "ok";
  return {
    owner: p.owner,
    mint: p.mint,
    symbol: p.symbol,
    decimals: p.decimals,
    rawBalance: h.reported.toString(),
    multiplier: formatExact(mNow),
    quantity: formatExact(quantity),
    // Principal and income units may be non-terminating after scalings; the convertible part is
    // rounded for display and principal takes the rest, so the two always add up to `quantity`.
    principalQuantity: formatDecimal(sub(quantity, parseDecimal(convertible))),
    convertibleQuantity: convertible,
    incomeUsd: formatExact(incomeUsd),
    incomeUnits: formatExact(sum(income.map((a) => a.facts.incomeUnits))),
    unvaluedIncomeEvents: income.filter((a) => a.usd === null).length,
    status,
    statusReason: problems.length ? problems.join("; ") : terminal ? `terminated by ${terminal.type}` : null,
    unclassifiedAdjustments: p.actions.filter((a) => a.v1Unclassified).length,
  };
}
