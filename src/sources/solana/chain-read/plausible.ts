// What no real Scaled UI Amount mint or UpdateMultiplier can hold (the program refuses such
// values; a hostile or broken provider can still send them): refused at the source, as a named
// gap, so one bad value cannot reach the books. Shared by the mint states and the authority walks.
import type { MintStateObs, MultiplierUpdateObs } from "../../../domain/observations";

/** Decimals above this cannot describe a real token (u64 holds under 20 digits). */
export const MAX_DECIMALS = 18;

const plausibleMultiplier = (x: number): boolean => Number.isFinite(x) && x > 0;

/** Why an update cannot be real, or null. */
export function implausibleUpdate(u: MultiplierUpdateObs): string | null {
  if (!plausibleMultiplier(u.multiplier)) return `non-finite or non-positive multiplier ${u.multiplier}`;
  if (!Number.isSafeInteger(u.effectiveTimestamp)) return `impossible effective timestamp ${u.effectiveTimestamp}`;
  return null;
}

/** Why a mint's state cannot be real, or null. */
export function implausibleMint(state: MintStateObs): string | null {
  if (!Number.isInteger(state.decimals) || state.decimals < 0 || state.decimals > MAX_DECIMALS) return `impossible decimals ${state.decimals}`;
  if (!plausibleMultiplier(state.multiplier) || !plausibleMultiplier(state.newMultiplier)) return `non-finite or non-positive multiplier (${state.multiplier}, ${state.newMultiplier})`;
  if (!Number.isSafeInteger(state.newMultiplierEffectiveTimestamp)) return `impossible effective timestamp ${state.newMultiplierEffectiveTimestamp}`;
  return null;
}
