// A journal entry stores each field of its booking once (src/ledger/journal-payload.ts,
// docs/storage.md#the-journal): for any booking, the booking put back from what an entry stores is
// the booking, canonical JSON byte for byte, and so is the one put back from a whole payload (an
// entry written before); a null, or a field its column holds otherwise, stays in the payload.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/domain/evidence.ts";
import type { JournalBooking } from "../../src/domain/types.ts";
import { bookingJson, bookingOf, entryColumns, storedPayload } from "../../src/ledger/journal-payload.ts";

const decimal = fc.oneof(
  fc.constant("0"),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.tuple(fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 50n })).map(([i, f]) => `${i}.${f}`),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const booking: fc.Arbitrary<JournalBooking> = fc.record({
  owner: fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
  actionId: fc.stringMatching(/^act_[0-9a-f]{24}$/),
  mint: fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
  symbol: fc.constantFrom("HONx", "KLACx", ""),
  type: fc.constantFrom("cash_dividend", "stock_split", "rights_distribution"),
  treatment: fc.constantFrom("income", "basis_allocation", "none"),
  kind: fc.constantFrom("dividend", "unclassified_adjustment"),
  unitsDelta: decimal,
  principalUnitsDelta: decimal,
  incomeUnits: decimal,
  usd: maybe(decimal),
  grossUsd: maybe(decimal),
  withholdingTaxRate: maybe(decimal),
  withholdingTaxUsd: maybe(decimal),
  retentionRate: maybe(decimal),
  retainedUsd: maybe(decimal),
  factor: maybe(decimal),
  effectiveAt: maybe(fc.constantFrom("2025-09-05T23:55:00.000Z", "2026-01-01T00:00:00.000Z")),
  evidenceSha256: hex,
}) as fc.Arbitrary<JournalBooking>;

describe("a journal entry's booking", () => {
  test("put back from what the entry stores is the booking, byte for byte, and the payload holds none of the columns' values", () => {
    fc.assert(
      fc.property(booking, (b) => {
        const columns = entryColumns(b);
        const payload = storedPayload(b, columns);
        expect(bookingJson({ ...columns, payload })).toBe(canonicalJson(b));
        expect(bookingOf({ ...columns, payload })).toEqual(b);
        const stored = JSON.parse(payload) as Record<string, unknown>;
        for (const field of ["owner", "actionId", "mint", "type", "treatment", "kind", "unitsDelta", "principalUnitsDelta", "incomeUnits", "evidenceSha256"]) expect(stored).not.toHaveProperty(field);
        // A null stays (its column cannot tell it from a missing field); so does a booking without an effective time.
        for (const field of ["usd", "factor", "effectiveAt"] as const) expect(field in stored).toBe(b[field] === null);
      }),
      { numRuns: 300 },
    );
  });

  test("put back from a whole payload (an entry written before) is the booking, byte for byte", () => {
    fc.assert(
      fc.property(booking, (b) => {
        expect(bookingJson({ ...entryColumns(b), payload: canonicalJson(b) })).toBe(canonicalJson(b));
      }),
      { numRuns: 300 },
    );
  });
});
