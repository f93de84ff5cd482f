import { Type } from "@sinclair/typebox";
import { ActionType, Category, Treatment, Validation } from "./actions.ts";

export const TaxonomyEntry = Type.Object(
  {
    type: ActionType,
    label: Type.String({ description: "The type in words" }),
    category: Category,
    treatment: Treatment,
    validation: Validation,
    census: Type.Record(Type.String(), Type.Unknown(), { description: "What the census counted in this ledger for the type" }),
  },
  { title: "TaxonomyEntry", description: "One action type: its category, how it is booked and how far that is proven" },
);
export const TaxonomyResponse = Type.Object(
  { types: Type.Array(TaxonomyEntry, { minItems: 18, maxItems: 18, description: "All 18 types, always" }) },
  { title: "TaxonomyResponse", description: "Every action type with its treatment and validation" },
);
