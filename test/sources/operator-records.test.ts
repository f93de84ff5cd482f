// Parsing operator records: RFC 4180 CSV reads back what a writer quotes (properties), and the
// same records given as a JSON array, as JSON lines or as CSV parse to the same records.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { toCsv } from "../../src/http/csv";
import { parseCsv } from "../../src/sources/operator/csv";
import { OPERATOR_FIELDS, OperatorRecordsError, parseOperatorRecords } from "../../src/sources/operator/records";

const MINT = "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2";

describe("CSV", () => {
  test("cells with commas, quotes and line breaks read back as written (CRLF or LF)", () => {
    // Cells that a spreadsheet would take for a formula get a quote prefix from the writer: not generated here.
    const cell = fc.string({ unit: fc.constantFrom("a", "Z", "0", ",", '"', "\n", "\r\n", " ", "é", "x") }).filter((s) => !/^[=+\-@\t\r]/.test(s));
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 6 }), fc.boolean(), (rows, lf) => {
        const text = toCsv(["a", "b"], rows);
        const parsed = parseCsv(lf ? text.replace(/\r\n/g, "\n") : text).map((r) => r.cells);
        const expected = [["a", "b"], ...rows].map((r) => (lf ? r.map((c) => c.replace(/\r\n/g, "\n")) : r));
        expect(parsed).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  test("each row keeps the line it starts on", () => {
    expect(parseCsv('a,b\n"x\ny",1\nz,2\n').map((r) => r.line)).toEqual([1, 2, 4]);
  });
});

describe("operator records", () => {
  const decimal = fc.tuple(fc.nat({ max: 10_000 }), fc.nat({ max: 9999 })).map(([a, b]) => `${a}.${b}`);
  // A multiplier is positive (a zero one is refused: docs/sources.md#issuer-records).
  const positive = fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.nat({ max: 9999 })).map(([a, b]) => `${a}.${b}`);
  const record = fc.record({
    mint: fc.constant(MINT),
    eventId: fc.uuid(),
    version: fc.integer({ min: 1, max: 50 }),
    xstockSymbol: fc.constantFrom("ABCx", "EXPRE"),
    spvSymbol: fc.constantFrom(null, "ABC"),
    caType: fc.constantFrom("CashDividend", "StockDividend", "SpinOff"),
    status: fc.constantFrom("Initial", "Scheduled", "Corrected", "Cancelled"),
    effectiveTimeUtc: fc.constantFrom(null, "2026-08-14T00:30:00.000Z"),
    createdTimeUtc: fc.constant(null),
    multiplierOld: fc.option(positive, { nil: null }),
    multiplierNew: fc.option(positive, { nil: null }),
    grossCashflowUsd: fc.option(decimal, { nil: null }),
    netCashflowUsd: fc.option(decimal, { nil: null }),
    withholdingTaxRate: fc.option(decimal, { nil: null }),
    fromUnits: fc.constant(null),
    toUnits: fc.constant(null),
    redemptionPriceUsd: fc.constant(null),
    notes: fc.option(
      fc.string({ unit: fc.constantFrom("a", ",", '"', " ", "\n") }).filter((s) => s !== "" && !/^[=+\-@\t\r]/.test(s)),
      { nil: null },
    ),
    xstockIsin: fc.constant(null),
    spvIsin: fc.constant(null),
    // The operator's own field: absent unless given (a record without it hashes as before).
    distributedName: fc.option(fc.constantFrom("SOLS", "Solstice Advanced Materials", "Honeywell Aerospace, Inc."), { nil: undefined }),
  });

  test("a JSON array, JSON lines and CSV of the same records parse alike", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), (records) => {
        const fromArray = parseOperatorRecords(JSON.stringify(records), "r.json");
        const fromLines = parseOperatorRecords(records.map((r) => JSON.stringify(r)).join("\n"), "r.jsonl");
        const fromCsv = parseOperatorRecords(
          toCsv(
            [...OPERATOR_FIELDS],
            records.map((r) => OPERATOR_FIELDS.map((f) => r[f])),
          ),
          "r.csv",
        );
        expect(fromArray).toEqual(records);
        expect(fromLines).toEqual(records);
        expect(fromCsv).toEqual(records);
      }),
      { numRuns: 200 },
    );
  });

  test("nullable fields may be left out; the format is told from the content when the name does not say", () => {
    const minimal = { mint: MINT, eventId: "e", version: 1, xstockSymbol: "ABCx", caType: "CashDividend", status: "Initial" };
    const [parsed] = parseOperatorRecords(JSON.stringify(minimal), "records");
    expect(parsed).toMatchObject({ ...minimal, netCashflowUsd: null, notes: null });
    expect(Object.keys(parsed!).sort()).toEqual(OPERATOR_FIELDS.filter((f) => f !== "distributedName").sort());
    expect(parseOperatorRecords("mint,eventId,version,xstockSymbol,caType,status\n" + `${MINT},e,1,ABCx,CashDividend,Initial\n`, "records")).toEqual([parsed!]);
    expect(() => parseOperatorRecords("", "r.json")).toThrow(OperatorRecordsError);
  });

  test("distributedName: kept when given (JSON or CSV), left out when empty or null, refused when not a plain name", () => {
    const spinOff = { mint: MINT, eventId: "e", version: 2, xstockSymbol: "HONx", caType: "SpinOff", status: "Corrected" };
    const [named] = parseOperatorRecords(JSON.stringify([{ ...spinOff, distributedName: "SOLS" }]), "r.json");
    expect(named!.distributedName).toBe("SOLS");
    const csvHeader = "mint,eventId,version,xstockSymbol,caType,status,distributedName\n";
    expect(parseOperatorRecords(csvHeader + `${MINT},e,2,HONx,SpinOff,Corrected,SOLS\n`, "r.csv")).toEqual([named!]);
    for (const empty of [null, ""]) {
      const [r] = parseOperatorRecords(JSON.stringify([{ ...spinOff, distributedName: empty }]), "r.json");
      expect("distributedName" in r!).toBe(false);
    }
    expect("distributedName" in parseOperatorRecords(csvHeader + `${MINT},e,2,HONx,SpinOff,Corrected,\n`, "r.csv")[0]!).toBe(false);
    for (const bad of [42, " SOLS", "SO\nLS", "x".repeat(201)]) {
      expect(() => parseOperatorRecords(JSON.stringify([{ ...spinOff, distributedName: bad }]), "r.json")).toThrow(/record 1: distributedName: expected the distributed holding's name/);
    }
  });
});
