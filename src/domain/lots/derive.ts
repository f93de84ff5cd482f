// Lots, realized gains and reconciliations, derived from one tenant's movements and booked
// corporate actions under one method and one tax treatment (docs/lots.md). Pure and
// deterministic: the same input gives the same report, whatever order it was listed in; nothing
// is stored as the truth, a re-booking re-derives everything.
import { units as unitsAt } from "../book";
import { add, cmp, div, eq, mul, ONE, type Rat, sub, ZERO } from "../numbers";
import { LotBook, type LotMeta, type Piece } from "./book";
import { shareOf } from "./share";
import { DeclaredCosts, DeclaredLots } from "./declared";
import { TRADE_REASONS } from "./movements";
import { orderEvents } from "./order";
import { termOf } from "./term";
import type { ActionEvent, AppliedAction, InstrumentTotals, LotInput, LotOptions, LotProblem, LotReport, LotSource, LotView, Movement, OpenLot, RealizedRow } from "./types";

/** Reasons the engine itself gives for a value it cannot know (docs/lots.md#reasons). */
export const REASONS = {
  incomeUsdUnknown: "income_usd_unknown",
  noOpenLot: "no_open_lot",
  ownTransferUnmatched: "own_transfer_unmatched",
  transferFee: "transfer_fee",
  terminationProceedsUnknown: "termination_proceeds_unknown",
  afterTermination: "after_termination",
  multiplierZero: "multiplier_zero",
  unknown: "unknown",
} as const;

interface Flows {
  acquired: Rat;
  disposed: Rat;
  own: Rat;
  corporate: Rat;
  uncovered: Rat;
  acquiredUsd: Rat;
  incomeUsd: Rat;
  disposedUsd: Rat;
  ownUsd: Rat;
}

const noFlows = (): Flows => ({
  acquired: ZERO,
  disposed: ZERO,
  own: ZERO,
  corporate: ZERO,
  uncovered: ZERO,
  acquiredUsd: ZERO,
  incomeUsd: ZERO,
  disposedUsd: ZERO,
  ownUsd: ZERO,
});

/** One wallet × mint: its lots, the multiplier its last event carried, its flows in the window. */
interface Holding {
  book: LotBook;
  multiplier: Rat | null;
  openingUnits: Rat;
  openingUsd: Rat;
  flows: Flows;
  touched: boolean;
}

/** Units that left a wallet in an own transfer and have not arrived yet (same transaction). */
interface InTransit {
  from: Holding;
  piece: Piece;
}

const holdingKey = (owner: string, mint: string): string => `${owner}\u0000${mint}`;
const knownSum = (pieces: Piece[]): Rat => pieces.reduce((s, p) => (p.basis === null ? s : add(s, p.basis)), ZERO);

class Derivation {
  private readonly holdings = new Map<string, Holding>();
  private readonly realized: RealizedRow[] = [];
  private readonly applied: AppliedAction[] = [];
  readonly problems: LotProblem[] = [];
  private seq = 0;
  private readonly ids = new Set<string>();
  private windowOpen = false;
  private readonly from: number;
  /** Own transfers of the transaction being applied, per mint. */
  private transit = new Map<string, { pieces: InTransit[]; arrived: boolean }>();
  private transitAt = 0;
  private transitSignature: string | null = null;
  readonly costs: DeclaredCosts;
  readonly declaredLots: DeclaredLots;

  constructor(
    input: LotInput,
    private readonly options: LotOptions,
  ) {
    this.from = options.from ?? -Infinity;
    this.costs = new DeclaredCosts(input.declaredCosts ?? [], input.movements, this.problems);
    this.declaredLots = new DeclaredLots(input.declaredLots ?? []);
  }

  // ---- bookkeeping -------------------------------------------------------------------------

  private holding(owner: string, mint: string): Holding {
    const k = holdingKey(owner, mint);
    let h = this.holdings.get(k);
    if (!h) {
      h = { book: new LotBook(owner, mint, this.options.method, () => this.seq++), multiplier: null, openingUnits: ZERO, openingUsd: ZERO, flows: noFlows(), touched: false };
      this.holdings.set(k, h);
    }
    return h;
  }

  /** The opening of the window: what every holding held just before `from`. */
  openWindow(): void {
    if (this.windowOpen) return;
    this.windowOpen = true;
    for (const h of this.holdings.values()) {
      h.openingUnits = h.book.total;
      h.openingUsd = h.book.knownBasis;
    }
  }

  private inWindow(at: number): boolean {
    return at >= this.from;
  }

  private flow(h: Holding, at: number, change: Partial<Flows>): void {
    if (!this.inWindow(at)) return;
    h.touched = true;
    const f = h.flows;
    for (const k in change) {
      const v = change[k as keyof Flows]!;
      if (v.n !== 0n) f[k as keyof Flows] = add(f[k as keyof Flows], v);
    }
  }

  private problem(owner: string, mint: string, at: number, code: string, message: string): void {
    this.problems.push({ owner, mint, at, code, message });
  }

  /** Lot ids are built from the input (signature, action, origin): a repeat gets `#2`, `#3`… */
  private uniqueId(base: string): string {
    let id = base;
    for (let n = 2; this.ids.has(id); n++) id = `${base}#${n}`;
    this.ids.add(id);
    return id;
  }

  private newLot(owner: string, base: string, acquiredAt: number, source: LotSource, signature: string | null, actionId: string | null, reason: string | null): LotMeta {
    return { id: this.uniqueId(base), acquiredAt, source, signature, actionId, reason, origin: { owner, source, signature, actionId } };
  }

  /** One realized row per piece; proceeds shared by units among the pieces and the uncovered rest. */
  private realize(h: Holding, at: number, pieces: Piece[], uncovered: Rat, proceeds: Rat | null, proceedsReason: string | null, ref: { signature: string | null; actionId: string | null }): void {
    const total = pieces.reduce((s, p) => add(s, p.units), uncovered);
    const { owner, mint } = h.book;
    // Proceeds shared by units, each part taking its share of what is left: the last takes the exact rest.
    let proceedsLeft = proceeds;
    let unitsLeft = total;
    const proceedsOf = (units: Rat): Rat | null => {
      if (proceedsLeft === null) return null;
      const part = shareOf(proceedsLeft, units, unitsLeft);
      proceedsLeft = sub(proceedsLeft, part);
      unitsLeft = sub(unitsLeft, units);
      return part;
    };
    const why = (basisReason: string | null, proceedsUsd: Rat | null, basisUsd: Rat | null): string | null => {
      const parts: string[] = [];
      if (proceedsUsd === null) parts.push(`proceeds: ${proceedsReason ?? REASONS.unknown}`);
      if (basisUsd === null) parts.push(`basis: ${basisReason ?? REASONS.unknown}`);
      return parts.length ? parts.join("; ") : null;
    };
    if (this.inWindow(at)) {
      for (const p of pieces) {
        const proceedsUsd = proceedsOf(p.units);
        this.realized.push({
          owner,
          mint,
          units: p.units,
          acquiredAt: p.lot.acquiredAt,
          disposedAt: at,
          proceedsUsd,
          basisUsd: p.basis,
          gainUsd: proceedsUsd !== null && p.basis !== null ? sub(proceedsUsd, p.basis) : null,
          term: termOf(p.lot.acquiredAt, at),
          ...ref,
          lotId: p.lot.id,
          lotSource: p.lot.source,
          reason: why(p.lot.reason, proceedsUsd, p.basis),
        });
      }
      if (uncovered.n > 0n) {
        const proceedsUsd = proceedsOf(uncovered);
        this.realized.push({
          owner,
          mint,
          units: uncovered,
          acquiredAt: null,
          disposedAt: at,
          proceedsUsd,
          basisUsd: null,
          gainUsd: null,
          // No acquisition date to count a year from: short (docs/lots.md#term).
          term: "short",
          ...ref,
          lotId: null,
          lotSource: null,
          reason: why(REASONS.noOpenLot, proceedsUsd, null),
        });
      }
    }
    this.flow(h, at, { disposed: total, disposedUsd: knownSum(pieces), uncovered });
  }

  private uncoveredProblem(h: Holding, at: number, what: string): void {
    this.problem(h.book.owner, h.book.mint, at, REASONS.noOpenLot, `${what} takes more units than the wallet's open lots hold: the history before it is incomplete`);
  }

  // ---- multiplier changes --------------------------------------------------------------------

  /** Every lot ×f, basis unchanged; a zero factor ends the lots (nothing to scale them to). */
  private scale(h: Holding, at: number, f: Rat, ref: { signature: string | null; actionId: string | null }): void {
    const before = h.book.total;
    if (f.n === 0n) {
      if (before.n > 0n) {
        this.problem(h.book.owner, h.book.mint, at, REASONS.multiplierZero, "the multiplier fell to zero: the lots are disposed of with unknown proceeds");
        this.realize(h, at, h.book.drain(), ZERO, null, REASONS.multiplierZero, ref);
      }
      return;
    }
    h.book.scale(f);
    this.flow(h, at, { corporate: sub(h.book.total, before) });
  }

  /**
   * A movement or an action whose starting multiplier differs from the one the wallet's last event
   * carried, while it held lots: a multiplier change with no action booked for the wallet. Units
   * must still follow the chain: scaled like a basis type, basis unchanged, and flagged.
   */
  private catchUp(h: Holding, at: number, m: Rat): void {
    const last = h.multiplier;
    h.multiplier = m;
    if (last === null || eq(last, m) || h.book.total.n === 0n) return;
    const before = h.book.total;
    const factor = div(m, last);
    this.scale(h, at, factor, { signature: null, actionId: null });
    this.problem(h.book.owner, h.book.mint, at, "multiplier_without_action", "the multiplier changed with no corporate action booked for this wallet: lots scaled, basis unchanged");
    this.record({
      owner: h.book.owner,
      mint: h.book.mint,
      actionId: null,
      at,
      type: null,
      effect: "scaled",
      factor,
      unitsBefore: before,
      unitsAfter: h.book.total,
      incomeUnits: ZERO,
      incomeBasisUsd: null,
      proceedsUsd: null,
      unbooked: true,
    });
  }

  private record(a: AppliedAction): void {
    if (this.inWindow(a.at)) this.applied.push(a);
  }

  // ---- corporate actions ---------------------------------------------------------------------

  applyAction(a: ActionEvent): void {
    this.closeTransit();
    const h = this.holding(a.owner, a.mint);
    this.catchUp(h, a.at, a.multiplierOld);
    h.multiplier = a.multiplierNew;
    const t = h.book.total;
    const factor = a.multiplierOld.n === 0n ? ONE : div(a.multiplierNew, a.multiplierOld);
    const base = { owner: a.owner, mint: a.mint, actionId: a.actionId, at: a.at, type: a.type, factor, unitsBefore: t, incomeUnits: ZERO, incomeBasisUsd: null, proceedsUsd: a.proceedsUsd };
    const unbooked = a.treatment === "not_booked" && a.category !== "termination" && cmp(factor, ONE) !== 0;
    if (t.n === 0n) {
      if (a.unitsBefore.n > 0n) this.problem(a.owner, a.mint, a.at, "action_without_lots", `action ${a.actionId} was booked on units the wallet's lots do not hold`);
      this.record({ ...base, effect: "none", unitsAfter: t, unbooked });
      return;
    }
    if (!eq(t, a.unitsBefore)) {
      this.problem(a.owner, a.mint, a.at, "action_units_mismatch", `action ${a.actionId} was booked on different units than the wallet's lots hold`);
    }
    const ref = { signature: null, actionId: a.actionId };
    if (a.category === "termination") {
      this.terminate(h, a, factor, ref);
      this.record({ ...base, effect: "terminated", unitsAfter: h.book.total, unbooked: false });
      return;
    }
    if (this.options.treatment === "income" && a.treatment === "income") {
      const income = this.incomeLot(h, a, factor);
      if (income) {
        this.record({ ...base, effect: "income_lot", unitsAfter: h.book.total, incomeUnits: income.units, incomeBasisUsd: income.basis, unbooked: false });
        return;
      }
    }
    this.scale(h, a.at, factor, ref);
    this.record({ ...base, effect: cmp(factor, ONE) === 0 ? "none" : "scaled", unitsAfter: h.book.total, unbooked });
  }

  /**
   * Income treatment: the existing lots scale by what is not income (1, or a stock part), and the
   * income units are a new lot at the effective time, basis = the net USD booked. With the wallet
   * holding T units and the booking made on U0: lots ×(F − I/U0), income lot T·I/U0, so the total
   * is T·F, exactly the chain's.
   */
  private incomeLot(h: Holding, a: ActionEvent, factor: Rat): { units: Rat; basis: Rat | null } | null {
    if (a.unitsBefore.n <= 0n) return null;
    const t = h.book.total;
    const perUnit = div(a.incomeUnits, a.unitsBefore);
    const keep = sub(factor, perUnit);
    if (perUnit.n < 0n || keep.n <= 0n) {
      this.problem(a.owner, a.mint, a.at, "income_units_inconsistent", `action ${a.actionId} books income units the multiplier change does not hold: lots scaled, no income lot`);
      return null;
    }
    const before = t;
    h.book.scale(keep);
    const units = mul(t, perUnit);
    const basis = a.usd === null ? null : shareOf(a.usd, t, a.unitsBefore);
    const meta = this.newLot(a.owner, a.actionId, a.at, "income", null, a.actionId, basis === null ? REASONS.incomeUsdUnknown : null);
    h.book.add(meta, units, basis);
    this.flow(h, a.at, { corporate: sub(h.book.total, before), incomeUsd: basis ?? ZERO });
    return { units, basis };
  }

  /**
   * A termination disposes of every lot at its share of the cash-out; units the chain still shows
   * afterwards are a new lot of unknown basis (docs/lots.md#terminations).
   */
  private terminate(h: Holding, a: ActionEvent, factor: Rat, ref: { signature: null; actionId: string }): void {
    const t = h.book.total;
    const proceeds = a.proceedsUsd === null ? null : shareOf(a.proceedsUsd, t, a.unitsBefore.n > 0n ? a.unitsBefore : t);
    this.realize(h, a.at, h.book.drain(), ZERO, proceeds, REASONS.terminationProceedsUnknown, ref);
    const residual = mul(t, factor);
    if (residual.n > 0n) {
      h.book.add(this.newLot(a.owner, `${a.actionId}:residual`, a.at, "transfer_in", null, a.actionId, REASONS.afterTermination), residual, null);
      this.flow(h, a.at, { corporate: residual });
    }
  }

  // ---- movements -----------------------------------------------------------------------------

  applyMovement(m: Movement): void {
    if (m.signature !== this.transitSignature || m.at !== this.transitAt) {
      this.closeTransit();
      this.transitSignature = m.signature;
      this.transitAt = m.at;
    }
    const h = this.holding(m.owner, m.mint);
    this.catchUp(h, m.at, m.multiplier);
    if (m.rawDelta === 0n) return;
    const units = unitsAt(m.rawDelta < 0n ? -m.rawDelta : m.rawDelta, m.multiplier, m.decimals);
    if (units.n === 0n) {
      // A multiplier of zero (a terminated line): the tokens show no units, so no lot can hold their value.
      this.problem(m.owner, m.mint, m.at, "zero_units", `movement ${m.signature} moves tokens that show no units (multiplier 0): not applied`);
      return;
    }
    if (m.rawDelta > 0n) {
      if (m.counterpart !== null) this.arriveOwn(h, m, units);
      else this.acquire(h, m, units);
    } else if (m.counterpart !== null) this.leaveOwn(h, m, units);
    else this.dispose(h, m, units);
  }

  private acquire(h: Holding, m: Movement, units: Rat): void {
    const declared = this.costs.costOf(m);
    const base = `${m.signature}:${m.mint}:${m.owner}`;
    if (declared !== undefined || m.usd !== null) {
      const basis = declared ?? m.usd!;
      h.book.add(this.newLot(m.owner, base, m.at, declared !== undefined ? "declared" : "purchase", m.signature, null, null), units, basis);
      this.flow(h, m.at, { acquired: units, acquiredUsd: basis });
      return;
    }
    // No cost shown: declared lots bought off chain may cover the units (oldest first).
    const { pieces, rawLeft } = this.declaredLots.cover(m);
    let covered = ZERO;
    let coveredUsd = ZERO;
    for (const p of pieces) {
      h.book.add(this.newLot(m.owner, `declared:${p.index}@${m.signature}`, p.acquiredAt, "declared", m.signature, null, null), p.units, p.cost);
      covered = add(covered, p.units);
      coveredUsd = add(coveredUsd, p.cost);
    }
    const rest = sub(units, covered);
    if (rawLeft.n > 0n && rest.n > 0n) {
      const source: LotSource = m.reason !== null && TRADE_REASONS.has(m.reason) ? "purchase" : "transfer_in";
      h.book.add(this.newLot(m.owner, base, m.at, source, m.signature, null, m.reason ?? REASONS.unknown), rest, null);
    }
    this.flow(h, m.at, { acquired: units, acquiredUsd: coveredUsd });
  }

  private dispose(h: Holding, m: Movement, units: Rat): void {
    const { pieces, uncovered } = h.book.take(units);
    if (uncovered.n > 0n) this.uncoveredProblem(h, m.at, `disposal ${m.signature}`);
    this.realize(h, m.at, pieces, uncovered, m.usd, m.usd === null ? (m.reason ?? REASONS.unknown) : null, { signature: m.signature, actionId: null });
  }

  /** Own transfer out: the lots leave in the method's order and wait for the in side. */
  private leaveOwn(h: Holding, m: Movement, units: Rat): void {
    const { pieces, uncovered } = h.book.take(units);
    const moving: InTransit[] = pieces.map((piece) => ({ from: h, piece }));
    if (uncovered.n > 0n) {
      this.uncoveredProblem(h, m.at, `own transfer ${m.signature}`);
      this.flow(h, m.at, { uncovered });
      const lot = this.newLot(m.owner, `${m.signature}:${m.mint}:${m.owner}:uncovered`, m.at, "transfer_in", m.signature, null, REASONS.noOpenLot);
      moving.push({ from: h, piece: { lot, units: uncovered, basis: null } });
    }
    const t = this.transit.get(m.mint) ?? { pieces: [], arrived: false };
    t.pieces.push(...moving);
    this.transit.set(m.mint, t);
  }

  /** Own transfer in: the waiting lots arrive with their dates and basis, in the order they left. */
  private arriveOwn(h: Holding, m: Movement, units: Rat): void {
    const t = this.transit.get(m.mint) ?? { pieces: [], arrived: false };
    this.transit.set(m.mint, t);
    t.arrived = true;
    let left = units;
    while (left.n > 0n && t.pieces.length) {
      const next = t.pieces[0]!;
      const whole = cmp(next.piece.units, left) <= 0;
      const moved = whole ? next.piece.units : left;
      const basis = next.piece.basis === null ? null : shareOf(next.piece.basis, moved, next.piece.units);
      if (whole) t.pieces.shift();
      else next.piece = { ...next.piece, units: sub(next.piece.units, moved), basis: next.piece.basis === null ? null : sub(next.piece.basis, basis!) };
      const src = next.piece.lot;
      // The id names where the lot began and the transfer that brought it here (bounded, however many hops).
      const root = src.id.split(">")[0]!;
      h.book.add({ ...src, id: this.uniqueId(`${root}>${m.signature}`), source: "own_transfer", signature: m.signature, actionId: null }, moved, basis);
      this.flow(next.from, m.at, { own: sub(ZERO, moved), ownUsd: sub(ZERO, basis ?? ZERO) });
      this.flow(h, m.at, { own: moved, ownUsd: basis ?? ZERO });
      left = sub(left, moved);
    }
    if (left.n > 0n) {
      this.problem(m.owner, m.mint, m.at, REASONS.ownTransferUnmatched, `own transfer ${m.signature} brings in more units than left the tenant's wallets: the rest has unknown basis`);
      h.book.add(this.newLot(m.owner, `${m.signature}:${m.mint}:${m.owner}`, m.at, "transfer_in", m.signature, null, REASONS.ownTransferUnmatched), left, null);
      this.flow(h, m.at, { acquired: left });
    }
  }

  /** The end of a transaction: units that left in an own transfer and never arrived were disposed of. */
  closeTransit(): void {
    for (const [, t] of this.transit) {
      for (const { from, piece } of t.pieces) {
        const reason = t.arrived ? REASONS.transferFee : REASONS.ownTransferUnmatched;
        this.problem(from.book.owner, from.book.mint, this.transitAt, reason, `own transfer ${this.transitSignature}: units left and did not arrive in another wallet of the tenant`);
        this.realize(from, this.transitAt, [piece], ZERO, null, reason, { signature: this.transitSignature, actionId: null });
      }
    }
    this.transit = new Map();
    this.transitSignature = null;
  }

  // ---- views and the report ------------------------------------------------------------------

  view(): LotView {
    return {
      units: (owner, mint) => this.holdings.get(holdingKey(owner, mint))?.book.total ?? ZERO,
      holdings: () => [...this.holdings.values()].map((h) => ({ owner: h.book.owner, mint: h.book.mint })),
      lots: (owner, mint) => this.holdings.get(holdingKey(owner, mint))?.book.open() ?? [],
    };
  }

  report(): LotReport {
    const sorted = [...this.holdings.values()].sort((a, b) =>
      a.book.owner < b.book.owner ? -1 : a.book.owner > b.book.owner ? 1 : a.book.mint < b.book.mint ? -1 : a.book.mint > b.book.mint ? 1 : 0,
    );
    const lots: OpenLot[] = [];
    const instruments: InstrumentTotals[] = [];
    for (const h of sorted) {
      const b = h.book;
      lots.push(...b.open());
      if (b.total.n === 0n && h.openingUnits.n === 0n && !h.touched) continue;
      const f = h.flows;
      instruments.push({
        owner: b.owner,
        mint: b.mint,
        units: b.total,
        basisUsd: b.knownBasis,
        unknownBasisUnits: b.unknownUnits,
        multiplier: h.multiplier,
        reconciliation: {
          openingUnits: h.openingUnits,
          acquiredUnits: f.acquired,
          disposedUnits: f.disposed,
          ownTransferUnits: f.own,
          corporateActionUnits: f.corporate,
          uncoveredUnits: f.uncovered,
          closingUnits: b.total,
        },
        basis: {
          openingUsd: h.openingUsd,
          acquiredUsd: f.acquiredUsd,
          incomeUsd: f.incomeUsd,
          disposedUsd: f.disposedUsd,
          ownTransferUsd: f.ownUsd,
          closingUsd: b.knownBasis,
        },
      });
    }
    return {
      method: this.options.method,
      treatment: this.options.treatment,
      from: this.options.from ?? null,
      asOf: this.options.asOf ?? null,
      lots,
      instruments,
      realized: this.realized,
      actions: this.applied,
      problems: this.problems,
    };
  }
}

/**
 * Derive one tenant's lots under `options.method` and `options.treatment`: events are ordered
 * (see ./order.ts), applied up to `asOf`, and the window [from, asOf] gives the realized rows,
 * the applied actions and each holding's reconciliation.
 */
export function deriveLots(input: LotInput, options: LotOptions): LotReport {
  const d = new Derivation(input, options);
  const asOf = options.asOf ?? Infinity;
  const from = options.from ?? -Infinity;
  const events = orderEvents(input.movements, input.actions);
  let instant: number | null = null;
  let complete = true;
  const view = options.onInstant ? d.view() : null;
  const endInstant = (): void => {
    d.closeTransit();
    if (instant !== null && view) options.onInstant!(instant, view);
  };
  for (const e of events) {
    const at = e.event.at;
    if (at > asOf) {
      complete = false;
      break;
    }
    if (at !== instant) {
      endInstant();
      instant = at;
    }
    if (at >= from) d.openWindow();
    if (e.kind === "action") d.applyAction(e.event);
    else d.applyMovement(e.event);
  }
  endInstant();
  d.openWindow();
  // What a declaration named is known only once every event was applied.
  if (complete) {
    d.costs.reportUnused();
    d.declaredLots.reportUnmatched(d.problems);
  }
  return d.report();
}
