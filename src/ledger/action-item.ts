// One action as the v2 list shows it, as JSON text: its event's template with the wallet's values
// spliced in (tables/actions.ts actionDocument) and its type's validation from the stored census.
// An event's `data` (change-events.ts) is this text, read inside the booking's own transaction:
// the write path reaches no read model (docs/architecture.md#the-ledger), so it is here.
import { computeCensus } from "../domain/taxonomy.ts";
import type { ActionType } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { actionDocument, actionSql } from "./tables/actions.ts";
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

/** The v2 list item of the wallet's action; null when it has no such action. */
export async function actionItemText(db: Sql, owner: string, id: string): Promise<string | null> {
  const row = await db.get(actionSql.item, { owner, id });
  return row ? withValidation(actionDocument(row), (await storedValidations(db)).get(row.type)!) : null;
}
