// The payload a journal entry stored before nulls were left out (src/ledger/journal-payload.ts of
// before, docs/storage.md#the-journal): the booking less each non-null field its column holds
// exactly, every null kept. Frozen here so tests can write entries of that form.
import { canonicalJson } from "../../src/domain/evidence.ts";
import type { JournalBooking } from "../../src/domain/types.ts";
import { entryColumns } from "../../src/ledger/journal-payload.ts";

/** Each field's column, as entries stored them before nulls were left out. */
const COLUMN_OF: Partial<Record<keyof JournalBooking, string>> = {
  owner: "owner",
  actionId: "action_id",
  mint: "mint",
  symbol: "symbol",
  type: "type",
  treatment: "treatment",
  kind: "kind",
  unitsDelta: "units_delta",
  principalUnitsDelta: "principal_units_delta",
  incomeUnits: "income_units",
  usd: "usd",
  factor: "factor",
  effectiveAt: "effective_at",
  evidenceSha256: "evidence_sha256",
};
/** The payload entries stored before nulls were left out: the booking less each non-null field its column holds exactly. */
export function fieldsOncePayload(b: JournalBooking): string {
  const columns = entryColumns(b) as unknown as Record<string, unknown>;
  const rest: Record<string, unknown> = { ...b };
  for (const [field, column] of Object.entries(COLUMN_OF)) if (rest[field] !== null && columns[column] === rest[field]) delete rest[field];
  return canonicalJson(rest);
}
