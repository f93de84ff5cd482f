// What a booking computes for one wallet holding raw balance R at the activation, and the steps
// every type's booking is made of (docs/action-types.md#booking). U0 = R·M_old/10^d,
// U1 = R·M_new/10^d, exact. Quantities a position replays always follow the chain exactly
// (U1 − U0); issuer figures only value and label them. Each type's own booking lives with its
// rules (src/domain/rules).
import type { CashPerShare } from "./cash";
import type { Classified } from "./classified";
import { mul, ONE, pow10, type Rat, rat, sub, ZERO } from "./numbers";

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
  /** Net income in USD (U0 × net cash a share). */
  usd: Rat | null;
  grossUsd: Rat | null;
  /** Withholding tax; negative when a refund passes tax back. */
  withholdingUsd: Rat | null;
  retainedUsd: Rat | null;
  proceedsUsd: Rat | null;
  warnings: string[];
}

export function units(raw: bigint, m: Rat, decimals: number): Rat {
  // raw·M/10^d in one reduction.
  return rat(raw * m.n, m.d * pow10(decimals));
}

/** The units before and after at the chain's multipliers; nothing valued, nothing scaled yet. */
export function startBooking(c: Classified, raw: bigint, decimals: number): BookingFacts {
  return unvaluedFacts(units(raw, c.mOld, decimals), units(raw, c.mNew, decimals));
}

/** Facts of a change from u0 to u1 units: no income, nothing valued, nothing scaled. */
export function unvaluedFacts(u0: Rat, u1: Rat): BookingFacts {
  return {
    u0,
    u1,
    delta: sub(u1, u0),
    incomeUnits: ZERO,
    scale: ONE,
    principalAdd: ZERO,
    usd: null,
    grossUsd: null,
    withholdingUsd: null,
    retainedUsd: null,
    proceedsUsd: null,
    warnings: [],
  };
}

const times = (a: Rat, b: Rat | null): Rat | null => (b === null ? null : mul(a, b));

/** Values the cash of U0 shares: every part of the breakdown scales by the same U0, so it still adds up. */
export function valueCash(f: BookingFacts, cash: CashPerShare | null): void {
  f.usd = times(f.u0, cash?.net ?? null);
  f.grossUsd = times(f.u0, cash?.gross ?? null);
  f.withholdingUsd = times(f.u0, cash?.withholding ?? null);
  f.retainedUsd = times(f.u0, cash?.retained ?? null);
}

/** Proceeds of a distribution sold and reinvested, for U0 shares. */
export function valueProceeds(f: BookingFacts, perShare: Rat | null): void {
  f.proceedsUsd = times(f.u0, perShare);
}

/** Units ×F across the whole position (principal and income units alike), basis unchanged. */
export function scaleAll(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = startBooking(c, raw, decimals);
  // The chain's exact ratio keeps the replay equal to raw × multiplier; the issuer's F is reported.
  f.scale = c.chainFactor;
  return f;
}

/** Termination, custody and unknown changes: the units still move on chain, but add nothing convertible. */
export function bookNotBooked(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = startBooking(c, raw, decimals);
  f.principalAdd = f.delta;
  return f;
}

/** A schedule overwritten before it took force moved no money: its booking shows no USD. */
export const withoutUsd = (f: BookingFacts): BookingFacts => ({ ...f, usd: null, grossUsd: null, withholdingUsd: null, retainedUsd: null, proceedsUsd: null });
