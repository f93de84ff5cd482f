// A journal entry stores each field of its booking once (src/ledger/journal-payload.ts,
// docs/storage.md#the-journal): for any booking, the booking put back from what an entry stores is
// the booking, canonical JSON byte for byte, and so is the one put back from what the entry stored
// in either form of before (the whole booking, of 0.1.0 without the income breakdown too; each
// field once with every null kept). A field its column holds otherwise stays in the payload; a null
// does not, but for a missing effective time (its column holds "").
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/domain/evidence.ts";
import type { JournalBooking } from "../../src/domain/types.ts";
import { bookingJson, bookingOf, entryColumns, storedPayload } from "../../src/ledger/journal-payload.ts";
import { fieldsOncePayload } from "../support/journal-payload-before.ts";

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
const NO_BREAKDOWN = { grossUsd: null, withholdingTaxRate: null, withholdingTaxUsd: null, retentionRate: null, retainedUsd: null };
/** Bookings of every kind, many without a gross USD (every entry but valued income), some with the whole breakdown null. */
const bookings = fc.oneof(
  booking,
  booking.map((b) => ({ ...b, grossUsd: null })),
  booking.map((b) => ({ ...b, ...NO_BREAKDOWN })),
);
const NULLABLE = ["usd", "grossUsd", "withholdingTaxRate", "withholdingTaxUsd", "retentionRate", "retainedUsd", "factor", "effectiveAt"] as const;

describe("a journal entry's booking", () => {
  test("put back from what the entry stores is the booking, byte for byte, and the payload holds none of the columns' values", () => {
    fc.assert(
      fc.property(bookings, (b) => {
        const columns = entryColumns(b);
        const payload = storedPayload(b, columns);
        expect(bookingJson({ ...columns, payload })).toBe(canonicalJson(b));
        expect(bookingOf({ ...columns, payload })).toEqual(b);
        const stored = JSON.parse(payload) as Record<string, unknown>;
        for (const field of ["owner", "actionId", "mint", "type", "treatment", "kind", "unitsDelta", "principalUnitsDelta", "incomeUnits", "evidenceSha256"]) expect(stored).not.toHaveProperty(field);
        // Every null is left out but a missing effective time (its column holds ""); a value of the breakdown stays.
        for (const field of NULLABLE) if (b[field] === null) expect(field in stored).toBe(field === "effectiveAt");
        for (const field of Object.keys(NO_BREAKDOWN) as (keyof typeof NO_BREAKDOWN)[]) if (b[field] !== null) expect(stored[field]).toBe(b[field]);
      }),
      { numRuns: 500 },
    );
  });

  test("with the whole breakdown null and an effective time, the entry stores an empty object", () => {
    fc.assert(
      fc.property(
        booking.filter((b) => b.effectiveAt !== null).map((b) => ({ ...b, ...NO_BREAKDOWN })),
        (b) => {
          expect(storedPayload(b, entryColumns(b))).toBe("{}");
        },
      ),
      { numRuns: 100 },
    );
  });

  test("put back from a whole payload (an entry written before) is the booking, byte for byte", () => {
    fc.assert(
      fc.property(bookings, (b) => {
        expect(bookingJson({ ...entryColumns(b), payload: canonicalJson(b) })).toBe(canonicalJson(b));
      }),
      { numRuns: 300 },
    );
  });

  test("put back from a whole payload of 0.1.0 (a booking without the income breakdown) is that booking, byte for byte", () => {
    fc.assert(
      fc.property(bookings, (b) => {
        const { grossUsd, withholdingTaxRate, withholdingTaxUsd, retentionRate, retainedUsd, ...of010 } = b;
        const payload = canonicalJson(of010);
        expect(bookingJson({ ...entryColumns(b), payload })).toBe(payload);
      }),
      { numRuns: 300 },
    );
  });

  test("put back from each field once with every null kept (an entry written before nulls were left out) is the booking, byte for byte", () => {
    fc.assert(
      fc.property(bookings, (b) => {
        const payload = fieldsOncePayload(b);
        expect(JSON.parse(payload)).toHaveProperty("grossUsd");
        expect(bookingJson({ ...entryColumns(b), payload })).toBe(canonicalJson(b));
        expect(bookingOf({ ...entryColumns(b), payload })).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });
});
