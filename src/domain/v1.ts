// The v1 presentation of a v2 action (docs/api.md#v1-presentation): kind, splitFactor, headline and reasons.
// The contract's sentences stay verbatim, with F and X% filled in; each type's entry in
// src/domain/rules holds its own sentence and picks one of the shapes below.
import { usdInText } from "./display";
import { formatDecimal, mul, type Rat, rat } from "./numbers";
import type { ActionType, V1Projection } from "./types";

export interface V1Input {
  type: ActionType;
  /** Quantity factor as displayed on the action (splits, stock dividends, identity changes). */
  factor: string | null;
  /** distributedFraction as a percentage string, e.g. "1.3571" (spin-offs, rights). */
  percent: string | null;
  reason: string;
  refundNote: string | null;
  /** Net cash a share the income was valued at (null when unknown). */
  netPerShare: Rat | null;
}

/** Income: kind dividend, the label with the cash a share in the headline, the classifier's reasons. */
export function dividendV1(label: string, a: V1Input, extraReasons: string[] = []): V1Projection {
  const headline = a.netPerShare === null ? label : `${label} of ${usdInText(a.netPerShare)} a share`;
  return { kind: "dividend", splitFactor: null, headline, reasons: [a.reason, ...extraReasons], classificationResult: "dividend" };
}

/** Splits: kind split with the factor. */
export function splitV1(label: string, a: V1Input): V1Projection {
  const headline = a.factor === null ? label : `${label} ×${a.factor}`;
  return { kind: "split", splitFactor: a.factor, headline, reasons: [a.reason], classificationResult: "split" };
}

/** Types v1 has a sentence for: the contract's sentence, then the detail. */
export function sentenceV1(sentence: string, detail: string): V1Projection {
  return { kind: "unclassified_adjustment", splitFactor: null, headline: sentence, reasons: [sentence, detail], classificationResult: "unclassified" };
}

/** Unmatched or unbooked (and basis types v1 has no words for): the classifier's own reason. */
export function reasonV1(a: V1Input): V1Projection {
  return { kind: "unclassified_adjustment", splitFactor: null, headline: a.reason, reasons: [a.reason], classificationResult: "unclassified" };
}

/** A distributed fraction as the percentage v1 and the reasons show ("1.0898"). */
export const percentOf = (fraction: Rat): string => formatDecimal(mul(fraction, rat(100)), 4);

export const factorText = (a: V1Input): string => a.factor ?? "?";
export const percentText = (a: V1Input): string => `${a.percent ?? "?"}%`;
