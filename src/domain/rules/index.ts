// Every action type's rules, one entry per type, found by the type's name in the file of its
// category: income.ts, basis.ts, identity.ts, termination.ts, custody.ts, unknown.ts. The order
// here is the taxonomy's order (the census and /v2/taxonomy list the types in it).
import { type BookingFacts, withoutUsd } from "../book";
import type { Classified } from "../classified";
import type { ActionType, V1Projection } from "../types";
import type { V1Input } from "../v1";
import { cashInLieu, forwardSplit, reverseSplit, rightsDistribution, spinOff, stockDividend, unitSplit } from "./basis";
import { seizure } from "./custody";
import { identityChange, stockMerger } from "./identity";
import { cashAndStockDividend, cashDividend, withholdingAdjustment } from "./income";
import type { IssuerReading, TypeRule } from "./rule";
import { cashMerger, delisting, mixedMerger, redemption } from "./termination";
import { unknown } from "./unknown";

export type { TypeRule } from "./rule";

export const RULES: readonly TypeRule[] = [
  cashDividend,
  withholdingAdjustment,
  stockDividend,
  cashAndStockDividend,
  forwardSplit,
  reverseSplit,
  unitSplit,
  cashInLieu,
  spinOff,
  rightsDistribution,
  stockMerger,
  cashMerger,
  mixedMerger,
  identityChange,
  redemption,
  delisting,
  seizure,
  unknown,
];

const BY_TYPE = new Map(RULES.map((r) => [r.type, r]));

export function ruleOf(type: ActionType): TypeRule {
  const rule = BY_TYPE.get(type);
  if (!rule) throw new RangeError(`unknown action type ${type}`);
  return rule;
}

const BY_CA_TYPE = new Map<string, TypeRule[]>();
for (const rule of RULES) for (const caType of rule.caTypes) BY_CA_TYPE.set(caType, [...(BY_CA_TYPE.get(caType) ?? []), rule]);

/** The type an issuer record is, read against its chain change (or none yet); null when no rule takes its caType. */
export function ruleForRecord(reading: IssuerReading): TypeRule | null {
  const candidates = BY_CA_TYPE.get(reading.caType) ?? [];
  return candidates.find((rule) => rule.recognises?.(reading) ?? true) ?? null;
}

/** The booking for one wallet; a schedule overwritten before it took force moved no money. */
export function bookTransition(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const facts = ruleOf(c.type).book(c, raw, decimals);
  return c.transition.state === "superseded" ? withoutUsd(facts) : facts;
}

/** The reason people read, once the mint's figures are settled. */
export const explain = (c: Classified): string => ruleOf(c.type).explain?.(c) ?? c.reason;

export const projectV1 = (a: V1Input): V1Projection => ruleOf(a.type).v1(a);
