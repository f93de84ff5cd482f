// Booking rules, one function per type (docs/action-types.md#booking), for one wallet holding raw balance R at the
// activation. U0 = R·M_old/10^d, U1 = R·M_new/10^d, exact. Quantities a position replays always
// follow the chain exactly (U1 − U0); issuer figures only value and label them.
import type { Classified } from "./classify";
import { mul, pow10, type Rat, rat, sub, ZERO } from "./numbers";

export interface BookingFacts {
  u0: Rat;
  u1: Rat;
  /** U1 − U0: what the chain changed (computed once; bookings and income read it). */
  delta: Rat;
  /** Units added as income (convertible). */
  incomeUnits: Rat;
  /** How existing principal and income units scale (exactly U1/U0 for basis changes, else 1). */
  scale: Rat;
  /** Units added to principal outside the scaling (non-convertible, e.g. unbooked changes). */
  principalAdd: Rat;
  usd: Rat | null;
  proceedsUsd: Rat | null;
  warnings: string[];
}

export function units(raw: bigint, m: Rat, decimals: number): Rat {
  // raw·M/10^d in one reduction.
  return rat(raw * m.n, m.d * pow10(decimals));
}

function start(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const u0 = units(raw, c.mOld, decimals);
  const u1 = units(raw, c.mNew, decimals);
  return {
    u0,
    u1,
    delta: sub(u1, u0),
    incomeUnits: ZERO,
    scale: rat(1),
    principalAdd: ZERO,
    usd: null,
    proceedsUsd: null,
    warnings: [],
  };
}

const times = (a: Rat, b: Rat | null): Rat | null => (b === null ? null : mul(a, b));

/** usd = U0 × net cash per share; the units U1 − U0 are income units. */
export function bookCashDividend(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = start(c, raw, decimals);
  f.incomeUnits = f.delta;
  f.usd = times(f.u0, c.cashPerShare);
  return f;
}

/** A withholding refund is booked as a dividend; the refund note travels on the action. */
export function bookWithholdingAdjustment(c: Classified, raw: bigint, decimals: number): BookingFacts {
  return bookCashDividend(c, raw, decimals);
}

/** Cash part as a dividend; stock part scales the position by F_stock with basis spread. */
export function bookCashAndStockDividend(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = start(c, raw, decimals);
  const fs = c.factor ?? rat(1);
  f.scale = fs;
  f.incomeUnits = sub(f.u1, mul(f.u0, fs));
  f.usd = times(f.u0, c.cashPerShare);
  return f;
}

/** Units ×F across the whole position (principal and income units alike), basis unchanged. */
function scaleAll(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = start(c, raw, decimals);
  // The chain's exact ratio keeps the replay equal to raw × multiplier; the issuer's F is reported.
  f.scale = c.chainFactor;
  return f;
}

export const bookStockDividend = scaleAll;
export const bookForwardSplit = scaleAll;
export const bookReverseSplit = scaleAll;
export const bookUnitSplit = scaleAll;

/** A fraction of value distributed and reinvested: units grow, basis is allocated, never income. */
export function bookSpinOff(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = scaleAll(c, raw, decimals);
  f.proceedsUsd = times(f.u0, c.proceedsPerShare);
  return f;
}

export const bookRightsDistribution = bookSpinOff;
export const bookCashInLieu = bookSpinOff;

/** Same company, new line: units ×F, all basis carried (the lineage link records the move). */
export const bookIdentityChange = scaleAll;
export const bookStockMerger = scaleAll;

/** Termination, custody and unknown changes: the units still move on chain, but add nothing convertible. */
export function bookNotBooked(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = start(c, raw, decimals);
  f.principalAdd = f.delta;
  return f;
}

export const bookCashMerger = bookNotBooked;
export const bookMixedMerger = bookNotBooked;
export const bookRedemption = bookNotBooked;
export const bookDelisting = bookNotBooked;
export const bookUnknown = bookNotBooked;

const RULES: Record<Classified["type"], (c: Classified, raw: bigint, d: number) => BookingFacts> = {
  cash_dividend: bookCashDividend,
  withholding_adjustment: bookWithholdingAdjustment,
  stock_dividend: bookStockDividend,
  cash_and_stock_dividend: bookCashAndStockDividend,
  forward_split: bookForwardSplit,
  reverse_split: bookReverseSplit,
  unit_split: bookUnitSplit,
  cash_in_lieu: bookCashInLieu,
  spin_off: bookSpinOff,
  rights_distribution: bookRightsDistribution,
  stock_merger: bookStockMerger,
  cash_merger: bookCashMerger,
  mixed_merger: bookMixedMerger,
  identity_change: bookIdentityChange,
  redemption: bookRedemption,
  delisting: bookDelisting,
  seizure: bookNotBooked,
  unknown: bookUnknown,
};

export function bookTransition(c: Classified, raw: bigint, decimals: number): BookingFacts {
  return RULES[c.type](c, raw, decimals);
}
