// What an operator declared with `import cost-basis` (docs/lots.md#declared-cost-basis): the cost of
// an acquisition named by its signature, or a lot bought off chain whose units later arrive in
// the wallet with no cost the chain can show. A declaration never creates units: the chain's
// movements do; a declaration only dates and values them.
import { units as unitsAt } from "../book";
import { cmp, div, fromBigInt, mul, pow10, type Rat, rat, sub } from "../numbers";
import { shareOf } from "./share";
import type { DeclaredCost, DeclaredLot, LotProblem, Movement } from "./types";

const key = (owner: string, other: string): string => `${owner}\u0000${other}`;

/** Declared costs by owner × signature, applied only where they name exactly one acquisition. */
export class DeclaredCosts {
  private readonly cost = new Map<string, Rat>();
  private readonly used = new Set<string>();
  private readonly ambiguous = new Set<string>();

  constructor(
    costs: readonly DeclaredCost[],
    movements: readonly Movement[],
    private readonly problems: LotProblem[],
  ) {
    // A later declaration for the same acquisition replaces an earlier one (callers pass them in stored order).
    for (const c of costs) this.cost.set(key(c.owner, c.signature), c.costUsd);
    if (this.cost.size === 0) return;
    const acquisitions = new Map<string, number>();
    for (const m of movements) {
      if (m.rawDelta <= 0n || m.counterpart !== null) continue;
      const k = key(m.owner, m.signature);
      if (this.cost.has(k)) acquisitions.set(k, (acquisitions.get(k) ?? 0) + 1);
    }
    for (const [k, n] of acquisitions) if (n > 1) this.ambiguous.add(k);
  }

  /** The declared cost of this acquisition, or undefined. */
  costOf(m: Movement): Rat | undefined {
    const k = key(m.owner, m.signature);
    const cost = this.cost.get(k);
    if (cost === undefined) return undefined;
    this.used.add(k);
    if (this.ambiguous.has(k)) {
      this.problems.push({
        owner: m.owner,
        mint: m.mint,
        at: m.at,
        code: "declared_cost_ambiguous",
        message: `declared cost for ${m.signature} names several acquisitions of this wallet: not applied`,
      });
      return undefined;
    }
    return cost;
  }

  /** Declarations that named no acquisition the derivation reached. */
  reportUnused(): void {
    for (const [k] of this.cost) {
      if (this.used.has(k)) continue;
      const [owner, signature] = k.split("\u0000") as [string, string];
      this.problems.push({ owner, mint: null, at: null, code: "declared_cost_unmatched", message: `declared cost for ${signature} names no acquisition of this wallet` });
    }
  }
}

interface Pending {
  index: number;
  lot: DeclaredLot;
  /** The declared units as raw amounts (units × 10^d ÷ M at acquisition): what a multiplier never changes. */
  rawTotal: Rat;
  rawLeft: Rat;
  costLeft: Rat;
}

/** A part of a declared lot that an arriving movement covers. */
export interface DeclaredPiece {
  index: number;
  acquiredAt: number;
  units: Rat;
  cost: Rat;
}

/** Declared lots per wallet × mint, oldest first, waiting for units with no cost to arrive. */
export class DeclaredLots {
  private readonly queues = new Map<string, Pending[]>();

  constructor(lots: readonly DeclaredLot[]) {
    lots.forEach((lot, index) => {
      if (lot.units.n <= 0n || lot.multiplier.n <= 0n) return;
      const raw = div(mul(lot.units, rat(pow10(lot.decimals))), lot.multiplier);
      const k = key(lot.owner, lot.mint);
      const q = this.queues.get(k) ?? [];
      q.push({ index, lot, rawTotal: raw, rawLeft: raw, costLeft: lot.costUsd });
      this.queues.set(k, q);
    });
    for (const q of this.queues.values()) q.sort((a, b) => a.lot.acquiredAt - b.lot.acquiredAt || a.index - b.index);
  }

  /**
   * Cover an acquisition with no known cost by the declared lots acquired at or before it, oldest
   * first. Returns the declared pieces and the raw amount left uncovered.
   */
  cover(m: Movement): { pieces: DeclaredPiece[]; rawLeft: Rat } {
    const q = this.queues.get(key(m.owner, m.mint));
    let left: Rat = fromBigInt(m.rawDelta);
    const pieces: DeclaredPiece[] = [];
    while (q?.length && left.n > 0n && q[0]!.lot.acquiredAt <= m.at) {
      const p = q[0]!;
      const all = cmp(p.rawLeft, left) <= 0;
      const raw = all ? p.rawLeft : left;
      const cost = shareOf(p.costLeft, raw, p.rawLeft);
      pieces.push({ index: p.index, acquiredAt: p.lot.acquiredAt, units: rawUnits(raw, m.multiplier, m.decimals), cost });
      p.rawLeft = sub(p.rawLeft, raw);
      p.costLeft = sub(p.costLeft, cost);
      left = sub(left, raw);
      if (all) q.shift();
    }
    return { pieces, rawLeft: left };
  }

  /** Declared units that never arrived in the wallet up to the end of the derivation. */
  reportUnmatched(problems: LotProblem[]): void {
    for (const q of this.queues.values()) {
      for (const p of q) {
        const share = div(p.rawLeft, p.rawTotal);
        problems.push({
          owner: p.lot.owner,
          mint: p.lot.mint,
          at: p.lot.acquiredAt,
          code: "declared_lot_unmatched",
          message: `declared lot ${p.index} (${cmp(share, rat(1)) === 0 ? "all" : "part"} of its units) never arrived in the wallet with no cost shown: not applied`,
        });
      }
    }
  }
}

/** Displayed units of a raw amount that may be fractional (a share of a declared lot). */
function rawUnits(raw: Rat, m: Rat, decimals: number): Rat {
  return raw.d === 1n ? unitsAt(raw.n, m, decimals) : div(mul(raw, m), rat(pow10(decimals)));
}
