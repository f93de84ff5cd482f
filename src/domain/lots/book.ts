// One wallet's open lots of one mint, kept in the order the chosen method takes them
// (docs/lots.md#methods). Exact: a lot split by a disposal gives the piece its share of the basis
// and keeps the rest, so nothing is lost or created; the book keeps running totals (units, known
// basis, unknown-basis units) so a report never re-adds its lots.
import { add, cmp, div, mul, type Rat, sub, ZERO } from "../numbers";
import { shareOf } from "./share";
import { Heap } from "./heap";
import type { LotMethod, LotOrigin, LotSource, OpenLot } from "./types";

/** What a lot is, apart from how many units it holds and their basis. */
export interface LotMeta {
  id: string;
  acquiredAt: number;
  source: LotSource;
  signature: string | null;
  actionId: string | null;
  reason: string | null;
  origin: LotOrigin;
}

interface Lot extends LotMeta {
  /** Creation order across the whole derivation: the last tiebreak, so the order is total. */
  seq: number;
  units: Rat;
  known: boolean;
  /** The lot's own basis (specific identification); unused under `average`, where the pool holds it. */
  basis: Rat;
}

/** Units taken out of one lot, with their basis (null when the lot's basis is unknown). */
export interface Piece {
  lot: LotMeta;
  units: Rat;
  basis: Rat | null;
}

const byDate = (a: Lot, b: Lot): number => a.acquiredAt - b.acquiredAt || a.seq - b.seq;

/** basis_a/units_a vs basis_b/units_b by cross multiplication (units > 0): no division, no reduction. */
function perUnit(a: Lot, b: Lot): number {
  const l = a.basis.n * a.units.d * b.units.n * b.basis.d;
  const r = b.basis.n * b.units.d * a.units.n * a.basis.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** `a` is taken before `b`. HIFO cannot rank an unknown basis: those go after every known lot. */
const ORDER: Record<LotMethod, (a: Lot, b: Lot) => boolean> = {
  fifo: (a, b) => byDate(a, b) < 0,
  average: (a, b) => byDate(a, b) < 0,
  lifo: (a, b) => byDate(a, b) > 0,
  hifo: (a, b) => {
    if (a.known !== b.known) return a.known;
    if (a.known) {
      const c = perUnit(a, b);
      if (c !== 0) return c > 0;
    }
    return byDate(a, b) < 0;
  },
};

export class LotBook {
  private readonly heap: Heap<Lot>;
  private readonly average: boolean;
  /** Units of every open lot. */
  total: Rat = ZERO;
  /** Known basis of every open lot (under `average`: the pool's basis). */
  knownBasis: Rat = ZERO;
  /** Units of the lots whose basis is known (under `average`: the pool's units). */
  knownUnits: Rat = ZERO;

  constructor(
    readonly owner: string,
    readonly mint: string,
    method: LotMethod,
    private readonly nextSeq: () => number,
  ) {
    this.heap = new Heap(ORDER[method]);
    this.average = method === "average";
  }

  get unknownUnits(): Rat {
    return sub(this.total, this.knownUnits);
  }

  get size(): number {
    return this.heap.size;
  }

  /** A new open lot (units > 0). */
  add(meta: LotMeta, units: Rat, basis: Rat | null): void {
    if (units.n <= 0n) return;
    const known = basis !== null;
    this.heap.push({ ...meta, seq: this.nextSeq(), units, known, basis: this.average || !known ? ZERO : basis });
    this.total = add(this.total, units);
    if (known) {
      this.knownUnits = add(this.knownUnits, units);
      this.knownBasis = add(this.knownBasis, basis);
    }
  }

  /** The basis of `units` of a known lot leaving: its own share, or the pool's average. */
  private leaving(lot: Lot, units: Rat): Rat | null {
    if (!lot.known) return null;
    const whole = cmp(units, lot.units) === 0;
    const basis = this.average ? shareOf(this.knownBasis, units, this.knownUnits) : shareOf(lot.basis, units, lot.units);
    this.knownUnits = sub(this.knownUnits, units);
    this.knownBasis = sub(this.knownBasis, basis);
    if (!this.average && !whole) lot.basis = sub(lot.basis, basis);
    return basis;
  }

  /** Take `units` in the method's order; `uncovered` is what no open lot held. */
  take(units: Rat): { pieces: Piece[]; uncovered: Rat } {
    const pieces: Piece[] = [];
    let left = units;
    while (left.n > 0n) {
      const lot = this.heap.peek();
      if (!lot) break;
      const whole = cmp(lot.units, left) <= 0;
      const taken = whole ? lot.units : left;
      // The basis share first: it reads the lot's units before they shrink.
      const basis = this.leaving(lot, taken);
      if (whole) this.heap.pop();
      else {
        lot.units = sub(lot.units, taken);
        // Its date is unchanged; its basis per unit may differ by the 10^-18 rounding of the share
        // that left (src/domain/lots/share.ts), which can reorder it against an equal lot under hifo.
        this.heap.fixTop();
      }
      pieces.push({ lot: metaOf(lot), units: taken, basis });
      this.total = sub(this.total, taken);
      left = sub(left, taken);
    }
    return { pieces, uncovered: left };
  }

  /** Every open lot's units ×f (f > 0), basis and dates unchanged; the order stays as it was. */
  scale(f: Rat): void {
    if (f.n === 1n && f.d === 1n) return;
    for (const lot of this.heap.all()) lot.units = mul(lot.units, f);
    this.total = mul(this.total, f);
    this.knownUnits = mul(this.knownUnits, f);
  }

  /** Every open lot, whole, in date order: the book is empty afterwards. */
  drain(): Piece[] {
    const lots = [...this.heap.all()].sort(byDate);
    this.heap.drain();
    return lots.map((lot) => {
      this.total = sub(this.total, lot.units);
      return { lot: metaOf(lot), units: lot.units, basis: this.leaving(lot, lot.units) };
    });
  }

  /** The open lots, in date order, with their basis (under `average`: their share of the pool). */
  open(): OpenLot[] {
    const perUnitAverage = this.average && this.knownUnits.n > 0n ? div(this.knownBasis, this.knownUnits) : ZERO;
    return [...this.heap.all()].sort(byDate).map((lot) => ({
      id: lot.id,
      owner: this.owner,
      mint: this.mint,
      acquiredAt: lot.acquiredAt,
      units: lot.units,
      basisUsd: lot.known ? (this.average ? mul(lot.units, perUnitAverage) : lot.basis) : null,
      basisKnown: lot.known,
      source: lot.source,
      signature: lot.signature,
      actionId: lot.actionId,
      reason: lot.reason,
      origin: lot.origin,
    }));
  }
}

const metaOf = (lot: Lot): LotMeta => ({
  id: lot.id,
  acquiredAt: lot.acquiredAt,
  source: lot.source,
  signature: lot.signature,
  actionId: lot.actionId,
  reason: lot.reason,
  origin: lot.origin,
});
