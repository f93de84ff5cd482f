// A booked action record (src/domain/types.ts ActionRecord, as the engine and the journal hold it)
// as the lot engine's input. Only what took force moves lots: an announced, superseded or
// reversed action books nothing, and a seizure's units leave through its balance change, which
// the caller passes as a movement with reason `seizure` (docs/lots.md#inputs).
import { parseDecimal } from "../numbers";
import type { ActionRecord } from "../types";
import type { ActionEvent } from "./types";

/** What of an action record the lot engine reads: the wallet's units and amounts, the event's kind, lifecycle and multipliers. */
export type ActionFacts = Pick<
  ActionRecord,
  "id" | "owner" | "mint" | "type" | "treatment" | "category" | "transitionKey" | "effectiveAt" | "unitsBefore" | "unitsAfter" | "incomeUnits" | "usd" | "proceedsUsd"
> & { lifecycle: Pick<ActionRecord["lifecycle"], "state">; chain: Pick<ActionRecord["chain"], "multiplierOld" | "multiplierNew"> };

export function actionEventOf(a: ActionFacts): ActionEvent | null {
  if (a.lifecycle.state !== "activated" && a.lifecycle.state !== "corrected") return null;
  if (a.transitionKey === null || a.type === "seizure") return null;
  const { multiplierOld, multiplierNew } = a.chain;
  if (a.effectiveAt === null || multiplierOld === null || multiplierNew === null) return null;
  return {
    owner: a.owner,
    mint: a.mint,
    actionId: a.id,
    at: Date.parse(a.effectiveAt),
    type: a.type,
    treatment: a.treatment,
    category: a.category,
    multiplierOld: parseDecimal(multiplierOld),
    multiplierNew: parseDecimal(multiplierNew),
    unitsBefore: parseDecimal(a.unitsBefore),
    unitsAfter: parseDecimal(a.unitsAfter),
    incomeUnits: parseDecimal(a.incomeUnits),
    usd: a.usd === null ? null : parseDecimal(a.usd),
    proceedsUsd: a.proceedsUsd === null ? null : parseDecimal(a.proceedsUsd),
  };
}
