// The v1 presentation of a v2 action (docs/api.md#v1-presentation): kind, splitFactor, headline and reasons.
// The sentences are the contract, verbatim, with F and X% filled in.
import { typeInfo } from "./taxonomy";
import type { ActionType, V1Projection } from "./types";

export interface V1Input {
  type: ActionType;
  /** Quantity factor as displayed on the action (splits, stock dividends, identity changes). */
  factor: string | null;
  /** distributedFraction as a percentage string, e.g. "1.3571" (spin-offs, rights). */
  percent: string | null;
  reason: string;
  refundNote: string | null;
}

export const V1_SENTENCES = {
  stock_dividend: "Stock dividend booked as a quantity adjustment, not income",
  spin_off: "Spin-off booked as a basis allocation, not income",
  rights_distribution: "Rights distribution booked as a basis allocation, not income",
  identity_change: "Identity change of the underlying booked as a quantity adjustment, not income",
} as const;

export const REFUND_V1_NOTE = "This refund passes back tax withheld earlier and is not a new dividend";

export function projectV1(a: V1Input): V1Projection {
  const info = typeInfo(a.type);
  const F = a.factor ?? "?";
  const X = `${a.percent ?? "?"}%`;
  switch (a.type) {
    case "cash_dividend":
    case "cash_and_stock_dividend":
      return { kind: "dividend", splitFactor: null, headline: info.label, reasons: [a.reason], classificationResult: "dividend" };
    case "withholding_adjustment":
      return {
        kind: "dividend",
        splitFactor: null,
        headline: info.label,
        reasons: [a.reason, REFUND_V1_NOTE],
        classificationResult: "dividend",
      };
    case "forward_split":
    case "reverse_split":
    case "unit_split":
      return { kind: "split", splitFactor: a.factor, headline: info.label, reasons: [a.reason], classificationResult: "split" };
    case "stock_dividend":
      return unclassified(V1_SENTENCES.stock_dividend, `units ×${F}, cost basis spread across them`);
    case "spin_off":
      return unclassified(V1_SENTENCES.spin_off, `${X} of the position's value distributed and reinvested`);
    case "rights_distribution":
      return unclassified(V1_SENTENCES.rights_distribution, `${X} of the value came from rights sold and reinvested`);
    case "identity_change":
      return unclassified(V1_SENTENCES.identity_change, `units ×${F}, all cost basis carried over`);
    default:
      // Unmatched or unbooked (and basis types v1 has no words for): the classifier's own reason.
      return { kind: "unclassified_adjustment", splitFactor: null, headline: a.reason, reasons: [a.reason], classificationResult: "unclassified" };
  }
}

function unclassified(sentence: string, detail: string): V1Projection {
  return {
    kind: "unclassified_adjustment",
    splitFactor: null,
    headline: sentence,
    reasons: [sentence, detail],
    classificationResult: "unclassified",
  };
}
