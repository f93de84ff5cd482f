// The 18 action types as the taxonomy lists them (label, category, treatment, v1 kind, from each
// type's entry in src/domain/rules), and the census that computes each type's validation status
// from the data (never written as a constant).
import { ruleOf, RULES } from "./rules";
import type { ActionType, CensusInstance, Category, TaxonomyEntry, Treatment, V1Kind, Validation } from "./types";

export type { CensusInstance } from "./types";

export interface TypeInfo {
  type: ActionType;
  label: string;
  category: Category;
  treatment: Treatment;
  v1Kind: V1Kind;
}

export const TAXONOMY: readonly TypeInfo[] = RULES.map(({ type, label, category, treatment, v1Kind }) => ({ type, label, category, treatment, v1Kind }));

export const typeInfo = (type: ActionType): TypeInfo => ruleOf(type);

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
