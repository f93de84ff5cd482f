// A multiplier change no single issuer record explains (none, several, or a type without a
// rule): not booked, the units add nothing convertible, and the reason says which.
import { bookNotBooked } from "../book";
import { reasonV1 } from "../v1";
import type { TypeRule } from "./rule";

export const unknown: TypeRule = {
  type: "unknown",
  label: "Unknown multiplier change",
  category: "unknown",
  treatment: "not_booked",
  v1Kind: "unclassified_adjustment",
  caTypes: [],
  book: bookNotBooked,
  lineage: null,
  restatesBasis: false,
  v1: reasonV1,
};
