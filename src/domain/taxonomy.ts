// The 18 action types: label, category, treatment, how v1 shows them, and the census that
// computes each type's validation status from the data (never written as a constant).
import type { ActionType, CensusInstance, Category, TaxonomyEntry, Treatment, V1Kind, Validation } from "./types";

export type { CensusInstance } from "./types";

export interface TypeInfo {
  type: ActionType;
  label: string;
  category: Category;
  treatment: Treatment;
  v1Kind: V1Kind;
}

const t = (type: ActionType, label: string, category: Category, treatment: Treatment, v1Kind: V1Kind): TypeInfo => ({
  type,
  label,
  category,
  treatment,
  v1Kind,
});

export const TAXONOMY: readonly TypeInfo[] = [
  t("cash_dividend", "Cash dividend", "income", "income", "dividend"),
  t("withholding_adjustment", "Withholding tax adjustment", "income", "income", "dividend"),
  t("stock_dividend", "Stock dividend", "basis", "quantity_basis", "unclassified_adjustment"),
  t("cash_and_stock_dividend", "Cash and stock dividend", "income", "income", "dividend"),
  t("forward_split", "Forward split", "basis", "quantity_basis", "split"),
  t("reverse_split", "Reverse split", "basis", "quantity_basis", "split"),
  t("unit_split", "Unit split", "basis", "quantity_basis", "split"),
  t("cash_in_lieu", "Cash in lieu of fractions", "basis", "basis_allocation", "unclassified_adjustment"),
  t("spin_off", "Spin-off", "basis", "basis_allocation", "unclassified_adjustment"),
  t("rights_distribution", "Rights distribution", "basis", "basis_allocation", "unclassified_adjustment"),
  t("stock_merger", "Stock merger", "identity", "identity", "unclassified_adjustment"),
  t("cash_merger", "Cash merger", "termination", "not_booked", "unclassified_adjustment"),
  t("mixed_merger", "Cash and stock merger", "termination", "not_booked", "unclassified_adjustment"),
  t("identity_change", "Identity change", "identity", "identity", "unclassified_adjustment"),
  t("redemption", "Redemption", "termination", "not_booked", "unclassified_adjustment"),
  t("delisting", "Delisting", "termination", "not_booked", "unclassified_adjustment"),
  t("seizure", "Seizure (custody transfer)", "custody", "not_booked", "unclassified_adjustment"),
  t("unknown", "Unknown multiplier change", "unknown", "not_booked", "unclassified_adjustment"),
];

const BY_TYPE = new Map(TAXONOMY.map((i) => [i.type, i]));

export function typeInfo(type: ActionType): TypeInfo {
  const info = BY_TYPE.get(type);
  if (!info) throw new RangeError(`unknown action type ${type}`);
  return info;
}

export const ACTION_TYPES: readonly ActionType[] = TAXONOMY.map((i) => i.type);

/**
 * Validation from data: `not_built` when the type has no booking rule (treatment not_booked);
 * `validated` when at least one real instance exists and all reconciled; else `unvalidated`.
 */
export function validationFor(type: ActionType, instances: CensusInstance[]): Validation {
  const mine = instances.filter((i) => i.type === type);
  const info = typeInfo(type);
  if (info.treatment === "not_booked") return { status: "not_built", realInstances: mine.length };
  const ok = mine.length > 0 && mine.every((i) => i.reconciled);
  return { status: ok ? "validated" : "unvalidated", realInstances: mine.length };
}

export function computeCensus(instances: CensusInstance[], maxExamples = 3): TaxonomyEntry[] {
  return TAXONOMY.map((info) => {
    const mine = instances.filter((i) => i.type === info.type);
    const reconciled = mine.filter((i) => i.reconciled).length;
    return {
      type: info.type,
      label: info.label,
      category: info.category,
      treatment: info.treatment,
      validation: validationFor(info.type, instances),
      census: {
        matchedTransitions: mine.length,
        reconciled,
        unreconciled: mine.length - reconciled,
        examples: mine.slice(0, maxExamples).map((i) => ({
          mint: i.mint,
          transitionKey: i.transitionKey,
          eventId: i.eventId,
          version: i.version,
        })),
      },
    };
  });
}
