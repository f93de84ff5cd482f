// The shape of one action type's rules, and the readings they share. Each type's entry (in the
// category files beside this one) says which issuer records map to it, how it is classified and
// booked, the lineage link it writes, how v1 shows it, and its label, category and treatment.
import type { BookingFacts } from "../book";
import type { Classified } from "../classified";
import { caTypeKey, unitsRatio } from "../issuer";
import { cmp, div, liftF64, mul, nearestF64, type Rat, sub, ulpDistance, ZERO } from "../numbers";
import type { IssuerRecord, IssuerRevisionObs } from "../observations";
import type { ActionType, Category, ChainTransition, LineageLinkView, Treatment, V1Kind, V1Projection } from "../types";
import type { V1Input } from "../v1";

/** An issuer record as the rules read it, against the chain change it matched (none while only announced). */
export interface IssuerReading {
  revision: IssuerRevisionObs;
  record: IssuerRecord;
  /** The caType folded to one spelling ("cashdividend"). */
  caType: string;
  /** toUnits ÷ fromUnits, when published. */
  units: Rat | null;
  transition: ChainTransition | null;
}

export function readRecord(revision: IssuerRevisionObs, transition: ChainTransition | null): IssuerReading {
  const record = revision.record;
  return { revision, record, caType: caTypeKey(record.caType), units: unitsRatio(record), transition };
}

export interface TypeRule {
  type: ActionType;
  label: string;
  category: Category;
  treatment: Treatment;
  v1Kind: V1Kind;
  /** The issuer caTypes (folded) whose records may be this type. */
  caTypes: readonly string[];
  /** Which of those records are this type; the entries sharing a caType never both say yes. */
  recognises?: (reading: IssuerReading) => boolean;
  /** Fills in a matched chain change from the record: factor, figures, warnings. */
  classify?: (c: Classified, reading: IssuerReading) => void;
  /** The reason people read, written once the mint's figures are settled (after plausibility). */
  explain?: (c: Classified) => string;
  /** The booking for one wallet holding `raw` base units at the activation. */
  book: (c: Classified, raw: bigint, decimals: number) => BookingFacts;
  /** The link this type writes into the instrument's lineage (its action shows it too). */
  lineage: LineageLinkView["type"] | null;
  /** Its factor changes the unit basis: quantities and prices are restated across it. */
  restatesBasis: boolean;
  /** How v1 shows it: kind, headline, reasons. */
  v1: (a: V1Input) => V1Projection;
}

/** Does M_old × F land on M_new (nearest f64, 4 ulp)? Then F is what the chain did. */
export function factorReconciles(t: ChainTransition, f: Rat): boolean {
  return ulpDistance(nearestF64(mul(liftF64(t.multiplierOldF64), f)), t.multiplierNewF64) <= 4n;
}

/** Reinvestment price P = M_old·F·cash ÷ (M_new − M_old·F), in this change's unit basis. */
export function impliedPrice(mOld: Rat, mNew: Rat, cash: Rat | null, stockFactor: Rat): Rat | null {
  if (cash === null || cmp(cash, ZERO) <= 0) return null;
  const base = mul(mOld, stockFactor);
  const gain = sub(mNew, base);
  return cmp(gain, ZERO) > 0 ? div(mul(base, cash), gain) : null;
}
