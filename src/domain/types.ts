// The engine's output contract: plain, JSON-safe records (exact numbers as decimal strings,
// times as ISO-8601 UTC strings, null where unknown). Other layers store and serve these as-is.
import type { BalanceChangeObs, InstrumentObs, IssuerRecord, IssuerRevisionObs, MintStateObs, MultiplierUpdateObs, RecordSource, TokenAccountObs } from "./observations";

export type ActionType =
  | "cash_dividend"
  | "withholding_adjustment"
  | "stock_dividend"
  | "cash_and_stock_dividend"
  | "forward_split"
  | "reverse_split"
  | "unit_split"
  | "cash_in_lieu"
  | "spin_off"
  | "rights_distribution"
  | "stock_merger"
  | "cash_merger"
  | "mixed_merger"
  | "identity_change"
  | "redemption"
  | "delisting"
  | "seizure"
  | "unknown";

export type Treatment = "income" | "quantity_basis" | "basis_allocation" | "identity" | "not_booked";
export type Category = "income" | "basis" | "identity" | "termination" | "custody" | "unknown";
export type LifecycleState = "announced" | "confirmed" | "activated" | "corrected" | "reversed" | "superseded";
export type ValidationStatus = "validated" | "unvalidated" | "not_built";
export type V1Kind = "dividend" | "split" | "unclassified_adjustment";

export interface EngineWallet {
  owner: string;
  accounts: TokenAccountObs[];
  balanceChanges: BalanceChangeObs[];
  /** Named history gaps the sync recorded; a position touched by one is `partial`. */
  gaps: string[];
}

export interface EngineInput {
  /** Unix seconds: the clock, as an argument. */
  now: number;
  instruments: InstrumentObs[];
  /** Latest per mint (may be empty for a mint). */
  mintStates: MintStateObs[];
  multiplierUpdates: MultiplierUpdateObs[];
  /** Every stored revision of every event, cancelled ones included. */
  issuerRevisions: IssuerRevisionObs[];
  wallets: EngineWallet[];
  /** Transition key -> ISO time a sync first saw it in force. */
  firstObservedActive?: Record<string, string>;
}

/** One change of the multiplier in force on a mint, as the chain wrote it. */
export interface ChainTransition {
  /** `${mint}:${signature}:${ixIndex}` of the update that wrote the new multiplier. */
  key: string;
  mint: string;
  signature: string;
  ixIndex: number;
  slot: number;
  /** Block time of the update transaction (publication), ISO. */
  blockTime: string;
  blockTimeUnix: number;
  /** Multipliers as exact decimal expansions of the chain f64 values. */
  multiplierOld: string;
  multiplierNew: string;
  /** The f64 values themselves (the only floats in the domain; kept for exact re-lifting). */
  multiplierOldF64: number;
  multiplierNewF64: number;
  /** The timestamp written in the instruction, ISO. */
  scheduledAt: string;
  /** When the new value takes force: max(timestamp, block time), ISO. */
  effectiveAt: string;
  effectiveAtUnix: number;
  /** activated: in force at `now`; confirmed: ahead; superseded: overwritten before activation. */
  state: "activated" | "confirmed" | "superseded";
  /** For superseded schedules: the key of the update that overwrote it. */
  supersededBy: string | null;
}

export interface RevisionRef {
  eventId: string;
  version: number;
}

export interface LifecycleStep {
  state: LifecycleState;
  at: string | null;
  revision: RevisionRef | null;
  supersedes: RevisionRef | null;
  note: string;
}

export interface Lifecycle {
  state: LifecycleState;
  steps: LifecycleStep[];
}

export interface Validation {
  status: ValidationStatus;
  realInstances: number;
}

export interface ActionTimestamps {
  issuerEffectiveAt: string | null;
  issuerCreatedAt: string | null;
  configuredActivationAt: string | null;
  publicationBlockTime: string | null;
  firstObservedActiveAt: string | null;
  ingestedAt: string | null;
}

export interface ChainEvidence {
  signature: string | null;
  slot: number | null;
  blockTime: string | null;
  multiplierOld: string | null;
  multiplierNew: string | null;
  scheduledAt: string | null;
  effectiveAt: string | null;
  updateSignature: string | null;
}

export interface MatchedRevision {
  eventId: string;
  version: number;
  sha256: string;
}

export interface RevisionView {
  eventId: string;
  version: number;
  status: string;
  caType: string;
  sha256: string;
  ingestedAt: string;
  edited: boolean;
  /** Who stated it: the issuer's feed, or an operator's import. */
  source: RecordSource;
  /** How the engine read this revision: standing, cancelled (by a later one) or superseded. */
  standing: "standing" | "cancelled" | "superseded" | "cancellation";
  record: IssuerRecord;
}

export interface LineageLinkView {
  type: "identity_change" | "spin_off" | "rights_distribution" | "transform" | "terminate";
  from: string;
  to: string | null;
  basisFraction: string;
  cashFraction: string;
  at: string;
  /** What a spin-off, rights distribution or transform distributed (absent on other links). */
  distributed?: DistributedView;
  actionId?: string;
}

/** What a spin-off, rights distribution or cash in lieu distributed, as a source names it (src/domain/distributed.ts). */
export interface DistributedName {
  /** The holding's name as a source states it; null when none does. */
  name: string | null;
  /** Who stated it: an operator record, or the issuer's note. */
  namedBy: "operator" | "issuer" | null;
}

/** A distribution as people read it: its name (when stated), a short label and one plain sentence. */
export interface DistributedView extends DistributedName {
  /** The name, else what it was: "a holding distributed by HON (not named by the issuer)". */
  holding: string;
  description: string;
}

/** Where a part of the earliest identity's basis sits now. */
export interface BasisHoldingView {
  holding: string;
  kind: "position" | "cash" | "distributed";
  fraction: string;
  /** For a distributed part: what was distributed, and when (one entry per distribution). */
  distributed?: DistributedView;
  at?: string;
}

export interface V1Projection {
  kind: V1Kind;
  splitFactor: string | null;
  headline: string;
  reasons: string[];
  classificationResult: "dividend" | "split" | "unclassified";
}

export interface ActionEvidenceSummary {
  chainKey: string | null;
  matchedRevisionSha256: string | null;
  revisionCount: number;
  rawBalance: string;
  payloadSha256: string;
}

export interface ActionRecord {
  id: string;
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  /** null for `announced` actions (nothing on chain yet). */
  transitionKey: string | null;
  type: ActionType;
  treatment: Treatment;
  category: Category;
  /** Display form of U1 − U0, exact decimal string. */
  quantityDisplay: string;
  unitsBefore: string;
  unitsAfter: string;
  rawBalance: string;
  /** Convertible units added; "0" when not income. */
  incomeUnits: string;
  /** Income in USD, net of withholding tax and retention; null when unknown (and on every other treatment). */
  usd: string | null;
  /** The income breakdown (treatment income; null elsewhere and where unknown, never a guessed 0). Where all parts are known, grossUsd = usd + withholdingTaxUsd + retainedUsd. */
  grossUsd: string | null;
  /** The issuer's tax rate; 0 when the rate it published was a currency retention. */
  withholdingTaxRate: string | null;
  /** Withholding tax only; negative when a refund passes tax back. */
  withholdingTaxUsd: string | null;
  /** The share of gross the issuer published as retained for currency or fees. */
  retentionRate: string | null;
  retainedUsd: string | null;
  factor: string | null;
  splitFactor: string | null;
  distributedFraction: string | null;
  proceedsUsd: string | null;
  underlying: { from: string | null; to: string | null } | null;
  refundNote: string | null;
  warnings: string[];
  reason: string;
  lifecycle: Lifecycle;
  timestamps: ActionTimestamps;
  /** The activation time the chain wrote (issuer effective time for `announced`). */
  effectiveAt: string | null;
  chain: ChainEvidence;
  matched: MatchedRevision | null;
  revisions: RevisionView[];
  lineageLink: LineageLinkView | null;
  v1: V1Projection;
  evidence: ActionEvidenceSummary;
  evidenceSha256: string;
}

export interface JournalBooking {
  owner: string;
  actionId: string;
  mint: string;
  symbol: string;
  type: ActionType;
  treatment: Treatment;
  kind: V1Kind;
  unitsDelta: string;
  principalUnitsDelta: string;
  incomeUnits: string;
  usd: string | null;
  /** The income breakdown, as on the action (see ActionRecord). */
  grossUsd: string | null;
  withholdingTaxRate: string | null;
  withholdingTaxUsd: string | null;
  retentionRate: string | null;
  retainedUsd: string | null;
  factor: string | null;
  effectiveAt: string | null;
  evidenceSha256: string;
}

export type ChangeReason = "issuer correction" | "new balance history" | "valuation change" | "no longer applicable";

export interface JournalDiff {
  reversals: { booking: JournalBooking; changeReason: ChangeReason }[];
  recognitions: { booking: JournalBooking; changeReason: ChangeReason | null }[];
  /** Wanted bookings whose evidence changed but whose figures did not: nothing is appended for them. */
  restated: JournalBooking[];
  /** The reason for the whole diff when there is one dominant reason, else null. */
  changeReason: ChangeReason | null;
}

export interface PositionRecord {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  rawBalance: string;
  /** Multiplier in force at `now`. */
  multiplier: string;
  quantity: string;
  principalQuantity: string;
  convertibleQuantity: string;
  incomeUsd: string;
  incomeUnits: string;
  unvaluedIncomeEvents: number;
  status: "ok" | "partial" | "terminated";
  statusReason: string | null;
  unclassifiedAdjustments: number;
}

export type YieldWindow = "trailing_30d" | "trailing_365d" | "tracked";

export interface YieldRecord {
  owner: string;
  mint: string;
  symbol: string;
  window: YieldWindow;
  from: string;
  to: string;
  status: "ok" | "partial";
  /** Why the window is partial: e.g. "history_starts_after_window", "balance_gap", "unvalued_income". */
  partialCode: string | null;
  incomeUsd: string | null;
  incomeUnits: string | null;
  averageQuantity: string | null;
  shareYield: string | null;
  annualisedShareYield: string | null;
  distributionPerShareUsd: string | null;
}

export interface LineageIdentity {
  symbol: string;
  underlying: string | null;
  isin: string | null;
  validFrom: string | null;
}

export interface LineageRecord {
  mint: string;
  identities: LineageIdentity[];
  links: LineageLinkView[];
  /** Where the earliest identity's basis sits now; fractions sum to exactly 1. */
  basisNowSits: BasisHoldingView[];
}

export interface TaxonomyEntry {
  type: ActionType;
  label: string;
  category: Category;
  treatment: Treatment;
  validation: Validation;
  census: {
    matchedTransitions: number;
    reconciled: number;
    unreconciled: number;
    examples: { mint: string; transitionKey: string; eventId: string; version: number }[];
  };
}

export interface Rejection {
  kind: "issuer_revision" | "multiplier_update" | "balance_change";
  ref: string;
  reason: string;
}

export interface EngineOutput {
  transitions: ChainTransition[];
  actions: ActionRecord[];
  bookings: JournalBooking[];
  positions: PositionRecord[];
  yields: YieldRecord[];
  lineage: LineageRecord[];
  census: TaxonomyEntry[];
  /** The matched chain transitions the census counts, per mint (stored per mint, summed by type). */
  censusInstances: CensusInstance[];
  /**
   * Per mint, the next time its books change by the clock alone (a scheduled multiplier takes
   * force, an announced event expires unexecuted); null when nothing is ahead.
   */
  clockChanges: { mint: string; at: number | null }[];
  rejections: Rejection[];
}

/** One chain transition matched to an issuer record of a type, and whether its booking reconciled. */
export interface CensusInstance {
  type: ActionType;
  mint: string;
  transitionKey: string;
  eventId: string;
  version: number;
  reconciled: boolean;
}
