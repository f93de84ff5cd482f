// A chain change once classified: its match, its type and the per-share figures its booking
// needs. Mint-level (no wallet in it). Filled in by src/domain/classify.ts and each type's entry in
// src/domain/rules, read by the bookings (src/domain/book.ts), the action assembly and the lineage.
import type { CashPerShare } from "./cash";
import type { MatchResult } from "./match";
import type { Rat } from "./numbers";
import type { IssuerRevisionObs } from "./observations";
import type { ActionType, ChainTransition, DistributedName } from "./types";

export interface Classified {
  transition: ChainTransition;
  match: MatchResult;
  revision: IssuerRevisionObs | null;
  type: ActionType;
  /** The classifier's own reason (shown as the v1 reason for unbooked types). */
  reason: string;
  warnings: string[];
  mOld: Rat;
  mNew: Rat;
  /** M_new / M_old exactly. */
  chainFactor: Rat;
  /** Quantity factor applied to principal for quantity_basis / identity types (and a stock part). */
  factor: Rat | null;
  /** The issuer's cash a share, split into gross, tax, retention and net (income types). */
  cash: CashPerShare | null;
  /** Proceeds per share for basis allocations, when published (null when absent or implausible). */
  proceedsPerShare: Rat | null;
  distributedFraction: Rat | null;
  /** What a spin-off or rights distribution distributed, as a source names it (null elsewhere). */
  distributed: DistributedName | null;
  refundNote: string | null;
  underlying: { from: string | null; to: string | null } | null;
  /** Implied reinvestment price P = M_old·cash ÷ (M_new − M_old·F_stock), in this transition's unit basis. */
  impliedPrice: Rat | null;
  /** False when the issuer's figures do not reconcile with the chain (census). */
  reconciled: boolean;
}
