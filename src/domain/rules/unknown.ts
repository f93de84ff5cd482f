// A multiplier change no single issuer record explains (none, several, or a type without a
// rule): not booked, the units add nothing convertible, and the reason says which.
import { bookNotBooked } from "../book";
import { reasonV1 } from "../v1";
import type { TypeRule } from "./rule";

/** Recorded and shown, with no booking rule: nothing convertible, v1 shows the reason. */
export const notBooked = {
  treatment: "not_booked",
  v1Kind: "unclassified_adjustment",
  book: bookNotBooked,
  lineage: null,
  restatesBasis: false,
  v1: reasonV1,
} as const;

export const unknown: TypeRule = { ...notBooked, type: "unknown", label: "Unknown multiplier change", category: "unknown", caTypes: [] };
