// Replays UpdateMultiplier instructions per mint, as the Token-2022 program applies them, into
// the changes of the multiplier *in force*. Re-asserts of the value in force are not changes; a
// schedule overwritten before its activation is `superseded`; a future one is `confirmed`.
import type { MultiplierUpdateObs } from "./observations";
import { f64ToDecimal } from "./numbers";
import { isoFromUnix } from "./time";
import type { ChainTransition } from "./types";

/**
 * Multiplier of a freshly initialised Scaled UI Amount mint before any observed update. xStocks
 * mints start at 1; an earlier history we did not see would show up as a reconciliation gap.
 */
export const INITIAL_MULTIPLIER = 1;

export const transitionKey = (u: Pick<MultiplierUpdateObs, "mint" | "signature" | "ixIndex">): string => `${u.mint}:${u.signature}:${u.ixIndex}`;

/** Chain order: slot, then signature (deterministic within a slot), then instruction index. */
export function compareUpdates(a: MultiplierUpdateObs, b: MultiplierUpdateObs): number {
  if (a.slot !== b.slot) return a.slot - b.slot;
  if (a.blockTime !== b.blockTime) return a.blockTime - b.blockTime;
  if (a.signature !== b.signature) return a.signature < b.signature ? -1 : 1;
  return a.ixIndex - b.ixIndex;
}

interface MintState {
  multiplier: number;
  newMultiplier: number;
  effectiveTs: number;
}

const inForceAt = (s: MintState, t: number): number => (t >= s.effectiveTs ? s.newMultiplier : s.multiplier);

/** The transitions of one mint, oldest first, with their state relative to `now`. */
export function mintTransitions(updates: MultiplierUpdateObs[], now: number): ChainTransition[] {
  const sorted = [...updates].sort(compareUpdates);
  const state: MintState = { multiplier: INITIAL_MULTIPLIER, newMultiplier: INITIAL_MULTIPLIER, effectiveTs: 0 };
  const out: ChainTransition[] = [];
  let pending: ChainTransition | null = null;
  // One transition's new multiplier is the next one's old: expand each f64 to decimal once.
  const decimals = new Map<number, string>();
  const decimal = (x: number): string => {
    let s = decimals.get(x);
    if (s === undefined) decimals.set(x, (s = f64ToDecimal(x)));
    return s;
  };
  for (const u of sorted) {
    const b = u.blockTime;
    // A schedule still ahead at this block is overwritten by this update: it never takes force.
    if (pending && b < pending.effectiveAtUnix) {
      pending.state = "superseded";
      pending.supersededBy = transitionKey(u);
    }
    pending = null;
    const before = inForceAt(state, b);
    // The program keeps the stored multiplier stale after an activation; what matters is the
    // value in force at b, which becomes the base of whatever this update writes.
    state.multiplier = before;
    state.newMultiplier = u.multiplier;
    state.effectiveTs = u.effectiveTimestamp;
    if (u.effectiveTimestamp <= b) state.multiplier = u.multiplier;
    if (Object.is(u.multiplier, before)) continue; // re-assert: nothing changes
    const effective = Math.max(u.effectiveTimestamp, b);
    const scheduledAt = isoFromUnix(u.effectiveTimestamp);
    const tr: ChainTransition = {
      key: transitionKey(u),
      mint: u.mint,
      signature: u.signature,
      ixIndex: u.ixIndex,
      slot: u.slot,
      blockTime: isoFromUnix(b),
      blockTimeUnix: b,
      multiplierOld: decimal(before),
      multiplierNew: decimal(u.multiplier),
      multiplierOldF64: before,
      multiplierNewF64: u.multiplier,
      scheduledAt,
      effectiveAt: effective === u.effectiveTimestamp ? scheduledAt : isoFromUnix(effective),
      effectiveAtUnix: effective,
      state: now >= effective ? "activated" : "confirmed",
      supersededBy: null,
    };
    out.push(tr);
    if (u.effectiveTimestamp > b) pending = tr;
  }
  // A superseded schedule cannot have been activated, whatever `now` says.
  return out;
}

/** All mints' transitions, grouped by mint and ordered by activation. */
export function buildTransitions(updates: MultiplierUpdateObs[], now: number): ChainTransition[] {
  const byMint = new Map<string, MultiplierUpdateObs[]>();
  for (const u of updates) {
    const list = byMint.get(u.mint) ?? [];
    list.push(u);
    byMint.set(u.mint, list);
  }
  const out: ChainTransition[] = [];
  for (const mint of [...byMint.keys()].sort()) out.push(...mintTransitions(byMint.get(mint)!, now));
  return out;
}

/** Transitions that actually took force, in order: the multiplier path of the mint. */
export const effectiveTransitions = (ts: ChainTransition[]): ChainTransition[] => ts.filter((t) => t.state === "activated").sort((a, b) => a.effectiveAtUnix - b.effectiveAtUnix);

/** Multiplier in force at time t given a mint's activated transitions (sorted). */
export function multiplierAt(activated: ChainTransition[], t: number): number {
  // Binary search for the last transition in force at t (callers ask once per balance change,
  // action and yield cut, so a linear scan made long histories quadratic).
  let lo = 0;
  let hi = activated.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (activated[mid]!.effectiveAtUnix <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? INITIAL_MULTIPLIER : activated[lo - 1]!.multiplierNewF64;
}
