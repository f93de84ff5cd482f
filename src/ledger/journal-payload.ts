// A journal entry's booking, stored once (docs/storage.md#the-journal). The booking is the
// canonical JSON of the engine's JournalBooking, and the entry's columns (owner, action, mint,
// amounts, evidence hash, …) already hold most of its fields: an entry written now stores in
// `payload` only the fields its columns do not hold as they are, and the booking is that payload
// with the columns' values put back. It leaves out its nulls too, and putting back makes each
// nullable field it lacks null. An entry written before stores the whole booking (`owner` among
// its fields, which no other form holds: putting back leaves it as it is, so a booking of 0.1.0,
// written before the income breakdown, gets no breakdown), or each field once with every null
// kept (nothing is lacking). Seals, verify and booking read the booking put back, so every seal
// and answer is what it was. A nullable field added to JournalBooking later must not be put back
// into payloads written before it: they lack it.
import { canonicalJson } from "../domain/evidence.ts";
import type { JournalBooking } from "../domain/types.ts";
import type { JournalRow, StoredEntry } from "./tables/journal.ts";

/** Each column that holds a booking field, and the field. */
const COLUMN_FIELDS = [
  ["owner", "owner"],
  ["action_id", "actionId"],
  ["mint", "mint"],
  ["symbol", "symbol"],
  ["type", "type"],
  ["treatment", "treatment"],
  ["kind", "kind"],
  ["units_delta", "unitsDelta"],
  ["principal_units_delta", "principalUnitsDelta"],
  ["income_units", "incomeUnits"],
  ["usd", "usd"],
  ["factor", "factor"],
  ["effective_at", "effectiveAt"],
  ["evidence_sha256", "evidenceSha256"],
] as const satisfies readonly (readonly [keyof JournalRow, keyof JournalBooking])[];

/** The columns an entry of this booking holds its fields in (an effective time it lacks is ""). */
export function entryColumns(b: JournalBooking): Omit<StoredEntry, "payload"> {
  return {
    owner: b.owner,
    action_id: b.actionId,
    mint: b.mint,
    symbol: b.symbol,
    type: b.type,
    treatment: b.treatment,
    kind: b.kind,
    units_delta: b.unitsDelta,
    principal_units_delta: b.principalUnitsDelta,
    income_units: b.incomeUnits,
    usd: b.usd,
    factor: b.factor,
    effective_at: b.effectiveAt ?? "",
    evidence_sha256: b.evidenceSha256,
  };
}

type NullableField = { [K in keyof JournalBooking]: null extends JournalBooking[K] ? K : never }[keyof JournalBooking];

/** Every field of a booking that can be null (the type checks that none is missing). */
const NULLABLE_FIELDS = Object.keys({
  usd: 0,
  grossUsd: 0,
  withholdingTaxRate: 0,
  withholdingTaxUsd: 0,
  retentionRate: 0,
  retainedUsd: 0,
  factor: 0,
  effectiveAt: 0,
} satisfies Record<NullableField, 0>) as NullableField[];

/** A field every whole booking holds and no other payload does (its column always holds it). */
const WHOLE_BOOKING_HAS = "owner" satisfies keyof JournalBooking;

/** The column that holds a field, if one does. */
const columnOf = new Map<string, (typeof COLUMN_FIELDS)[number][0]>(COLUMN_FIELDS.map(([column, field]) => [field, column]));

/**
 * The payload an entry stores: the booking less each field its column holds exactly, and less each
 * null whose column, if it has one, is null too. A field whose column holds something else is kept
 * (`effective_at` holds "" for a booking without an effective time, so its null is kept).
 */
export function storedPayload(b: JournalBooking, columns: Omit<StoredEntry, "payload">): string {
  const rest: Record<string, unknown> = { ...b };
  for (const [column, field] of COLUMN_FIELDS) if (b[field] !== null && b[field] === columns[column]) delete rest[field];
  for (const field of NULLABLE_FIELDS) {
    const column = columnOf.get(field);
    if (b[field] === null && (column === undefined || columns[column] === null)) delete rest[field];
  }
  return canonicalJson(rest);
}

/**
 * The entry's booking: its payload with each field it lacks taken from its column, then, unless it
 * is a whole booking, each nullable field still lacking null.
 */
export function bookingOf(r: StoredEntry): JournalBooking {
  const b = JSON.parse(r.payload) as Record<string, unknown>;
  const whole = WHOLE_BOOKING_HAS in b;
  for (const [column, field] of COLUMN_FIELDS) if (!(field in b) && r[column] !== null) b[field] = r[column];
  if (!whole) for (const field of NULLABLE_FIELDS) if (!(field in b)) b[field] = null;
  return b as unknown as JournalBooking;
}

/** The canonical JSON of the entry's booking (what its seal covers). */
export const bookingJson = (r: StoredEntry): string => canonicalJson(bookingOf(r));
