// The lot engine's inputs and outputs (docs/lots.md). Plain typed data: times are unix
// milliseconds, quantities and USD amounts exact rationals, `null` where a value is unknown
// (never 0). Presentation (decimal strings, rounding for people, symbols) is the caller's job.
import type { Rat } from "../numbers";
import type { ActionType, Category, Treatment } from "../types";

/** Which reading of reinvested income a report uses (docs/lots.md#two-treatments). */
export type TaxTreatment = "income" | "deferred";
/** Which open lot a disposal takes first (docs/lots.md#methods). */
export type LotMethod = "fifo" | "lifo" | "hifo" | "average";
export type LotSource = "purchase" | "transfer_in" | "income" | "own_transfer" | "declared";
export type Term = "short" | "long";

export const TAX_TREATMENTS: readonly TaxTreatment[] = ["income", "deferred"];
export const LOT_METHODS: readonly LotMethod[] = ["fifo", "lifo", "hifo", "average"];

/**
 * One change of a followed mint's raw balance in one wallet, from one transaction
 * (docs/lots.md#movements). `rawDelta` > 0 is an acquisition, < 0 a disposal.
 */
export interface Movement {
  owner: string;
  mint: string;
  /** Block time of the transaction, unix ms. */
  at: number;
  signature: string;
  rawDelta: bigint;
  /** The multiplier in force at `at` (the chain's f64 lifted exactly). */
  multiplier: Rat;
  decimals: number;
  /** Cost (acquisition) or proceeds (disposal) in USD; null when the transaction does not show it. */
  usd: Rat | null;
  /** Why `usd` is null (`no_stablecoin_leg`, `sol_paid`, `transfer`, `opening_balance`, `seizure`, …). */
  reason: string | null;
  /** The other wallet of the same tenant on the other side of a transfer; null otherwise. */
  counterpart: string | null;
}

/** A corporate action as booked for one wallet (the standing recognition of an activated action). */
export interface ActionEvent {
  owner: string;
  mint: string;
  actionId: string;
  /** When the new multiplier took force, unix ms. */
  at: number;
  type: ActionType;
  treatment: Treatment;
  category: Category;
  multiplierOld: Rat;
  multiplierNew: Rat;
  /** U0 = R·M_old/10^d and U1 = R·M_new/10^d, exact. */
  unitsBefore: Rat;
  unitsAfter: Rat;
  /** Units booked as income (U1 − U0 for a cash dividend; 0 for non-income types). */
  incomeUnits: Rat;
  /** Net income in USD as booked; null when unknown (and on every non-income type). */
  usd: Rat | null;
  /** Spin-off or rights proceeds (information only), or a termination's cash-out; null when unknown. */
  proceedsUsd: Rat | null;
}

/** `import cost-basis` by signature: the cost of the owner's acquisition in that transaction. */
export interface DeclaredCost {
  owner: string;
  signature: string;
  costUsd: Rat;
}

/** `import cost-basis` as a standalone lot: units bought off chain (a CEX), later arriving in the wallet. */
export interface DeclaredLot {
  owner: string;
  mint: string;
  acquiredAt: number;
  /** Displayed units at `acquiredAt`. */
  units: Rat;
  /** The mint's multiplier in force at `acquiredAt` (to compare the units with raw amounts). */
  multiplier: Rat;
  decimals: number;
  costUsd: Rat;
}

export interface LotInput {
  movements: readonly Movement[];
  actions: readonly ActionEvent[];
  declaredCosts?: readonly DeclaredCost[];
  declaredLots?: readonly DeclaredLot[];
}

export interface LotOptions {
  method: LotMethod;
  treatment: TaxTreatment;
  /** Start of the reporting window, unix ms (inclusive); default: the beginning of time. */
  from?: number;
  /** End of the window, unix ms (inclusive); events after it are not applied. Default: all. */
  asOf?: number;
  /**
   * Called after every instant (all events of one unix ms applied), in time order, with a read-only
   * view of the open lots: for time series, and for the property tests that check every instant.
   */
  onInstant?: (at: number, view: LotView) => void;
}

/** Where a lot was first acquired (kept when the lot moves between own wallets or is split). */
export interface LotOrigin {
  owner: string;
  source: LotSource;
  signature: string | null;
  actionId: string | null;
}

export interface OpenLot {
  /** Deterministic: the same input gives the same ids (a moved or split lot keeps its origin in it). */
  id: string;
  owner: string;
  mint: string;
  acquiredAt: number;
  units: Rat;
  basisUsd: Rat | null;
  basisKnown: boolean;
  source: LotSource;
  /** The transaction that brought the lot into this wallet (purchase, transfer in, own transfer). */
  signature: string | null;
  /** The income action that created it (source `income`). */
  actionId: string | null;
  /** Why the basis is unknown. */
  reason: string | null;
  origin: LotOrigin;
}

/** One disposal × one lot consumed (docs/lots.md#realized-gains). */
export interface RealizedRow {
  owner: string;
  mint: string;
  units: Rat;
  /** Null only when no open lot covered the units (an incomplete history). */
  acquiredAt: number | null;
  disposedAt: number;
  proceedsUsd: Rat | null;
  basisUsd: Rat | null;
  gainUsd: Rat | null;
  /** Long only when a known acquisition date is more than a year before (docs/lots.md#term). */
  term: Term;
  /** The disposal's transaction; null for a termination (see actionId). */
  signature: string | null;
  actionId: string | null;
  lotId: string | null;
  lotSource: LotSource | null;
  /** Why a value is null: `proceeds: <reason>`, `basis: <reason>`, joined with "; ". */
  reason: string | null;
}

/** Units over [from, asOf]: opening + acquired − disposed + ownTransfer + corporateAction + uncovered = closing, exactly. */
export interface UnitsReconciliation {
  openingUnits: Rat;
  acquiredUnits: Rat;
  disposedUnits: Rat;
  /** Signed: in − out. */
  ownTransferUnits: Rat;
  corporateActionUnits: Rat;
  /** Units disposed that no open lot held (0 on a complete history). */
  uncoveredUnits: Rat;
  closingUnits: Rat;
}

/** Known basis over [from, asOf]: opening + acquired + income − disposed + ownTransfer = closing, exactly. */
export interface BasisReconciliation {
  openingUsd: Rat;
  acquiredUsd: Rat;
  incomeUsd: Rat;
  disposedUsd: Rat;
  ownTransferUsd: Rat;
  closingUsd: Rat;
}

export interface InstrumentTotals {
  owner: string;
  mint: string;
  units: Rat;
  /** Sum of the known bases of the open lots. */
  basisUsd: Rat;
  unknownBasisUnits: Rat;
  /** The last multiplier the wallet's events carried (null before any). */
  multiplier: Rat | null;
  reconciliation: UnitsReconciliation;
  basis: BasisReconciliation;
}

export type ActionEffect = "income_lot" | "scaled" | "terminated" | "none";

/** What a corporate action (or a multiplier change no action explained) did to a wallet's lots. */
export interface AppliedAction {
  owner: string;
  mint: string;
  /** Null for a multiplier change seen on a movement with no action booked for the wallet. */
  actionId: string | null;
  at: number;
  type: ActionType | null;
  effect: ActionEffect;
  /** F = M_new ÷ M_old. */
  factor: Rat;
  unitsBefore: Rat;
  unitsAfter: Rat;
  incomeUnits: Rat;
  incomeBasisUsd: Rat | null;
  /** Spin-off / rights proceeds as the issuer published them: information, nothing realized. */
  proceedsUsd: Rat | null;
  /** True when the change had no booking rule (not_booked, unknown) yet moved units: scaled, basis unchanged. */
  unbooked: boolean;
}

export interface LotProblem {
  owner: string;
  /** Null for a declaration that names no acquisition (the signature is in the message). */
  mint: string | null;
  at: number | null;
  code: string;
  message: string;
}

export interface LotReport {
  method: LotMethod;
  treatment: TaxTreatment;
  from: number | null;
  asOf: number | null;
  /** Open at asOf, by owner, mint, acquiredAt. */
  lots: OpenLot[];
  /** Every wallet × mint with units or flows in the window. */
  instruments: InstrumentTotals[];
  /** Disposals inside [from, asOf], in time order. */
  realized: RealizedRow[];
  /** Corporate actions (and unexplained multiplier changes) applied inside [from, asOf]. */
  actions: AppliedAction[];
  problems: LotProblem[];
}

/** A read-only view of the open lots between two instants. */
export interface LotView {
  /** Units of one wallet × mint (0 when it holds none). */
  units(owner: string, mint: string): Rat;
  /** Every wallet × mint that ever held lots. */
  holdings(): { owner: string; mint: string }[];
  lots(owner: string, mint: string): OpenLot[];
}
