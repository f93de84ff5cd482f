// One action as the v2 list shows it: its event's template with its type's validation from the
// stored census, and the wallet's values that splice into it (tables/actions.ts actionDocument).
// An event's `data` (change-events.ts) is this text, read inside the booking's own transaction:
// the write path reaches no read model (docs/architecture.md#the-ledger), so it is here.
import { computeCensus } from "../domain/taxonomy.ts";
import type { ActionType } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { splice, storedValues } from "./action-rows.ts";
import { actionSql } from "./tables/actions.ts";
import { censusSql } from "./tables/census.ts";

/** Every type's validation on a ledger with no census yet. */
export const EMPTY_VALIDATIONS: ReadonlyMap<ActionType, string> = new Map(computeCensus([]).map((e) => [e.type, JSON.stringify(e.validation)] as const));

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
export function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

/** Each type's validation as stored now (the census), for every type. */
export async function storedValidations(db: Sql): Promise<Map<ActionType, string>> {
  const map = new Map(EMPTY_VALIDATIONS);
  for (const r of await db.all(censusSql.validations)) map.set(r.type, r.v);
  return map;
}

/** The v2 list item of the wallet's action as its template (validation in place) and the wallet's values; null when it has no such action. */
export async function actionItemParts(db: Sql, owner: string, id: string, validations: ReadonlyMap<ActionType, string>): Promise<ItemParts | null> {
  const row = await db.get(actionSql.item, { owner, id });
  return row ? { template: withValidation(row.template, validations.get(row.type)!), values: storedValues(row) } : null;
}

/** A served document as the text every wallet showing its event shares, with slots, and the wallet's values for them. */
export interface ItemParts {
  template: string;
  values: string[];
}

/** The text of a document given as parts. */
export const itemText = (p: ItemParts): string => splice(p.template, p.values);
