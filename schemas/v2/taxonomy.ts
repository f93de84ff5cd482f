import { Type } from "@sinclair/typebox";
import { ActionType, Category, Treatment, Validation } from "./actions.ts";

export const TaxonomyEntry = Type.Object({
  type: ActionType,
  label: Type.String(),
  category: Category,
  treatment: Treatment,
  validation: Validation,
  census: Type.Record(Type.String(), Type.Unknown(), { description: "What the census counted in this ledger for the type" }),
});
export const TaxonomyResponse = Type.Object({ types: Type.Array(TaxonomyEntry, { minItems: 18, maxItems: 18 }) });
