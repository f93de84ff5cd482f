// Parsing `ca-ledger import cost-basis` files (docs/lots.md#declared-cost-basis): both shapes, the
// canonical form the ledger hashes, an error naming the line and field for each bad cell, what a
// writer quotes reads back (property), and the declarations as the lot engine's input.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { getBase58Decoder } from "@solana/kit";
import { canonicalSha256 } from "../../src/domain/evidence";
import { type CostBasisObservation, declarationsInput } from "../../src/domain/lots/declarations";
import { deriveLots } from "../../src/domain/lots";
import { formatDecimal, liftF64, parseDecimal } from "../../src/domain/numbers";
import { toCsv } from "../../src/http/csv";
import { COST_COLUMNS, CostBasisError, declarationPayload, LOT_COLUMNS, parseCostBasis } from "../../src/sources/operator/cost-basis";
import { movement } from "../domain/lots-support";

const OWNER = "Fj1s9o7GwzmvfhWabTckxGJUDGP6mLujd4ZGyCYFKGXn";
const MINT = "XsaBXg8dU5cPM6ehmVctMkVqoiRG2ZjMo1cyBJ3AykQ";
const SIG = "34L7x2Qx3gSSB44mfwWkgV1xeKAhhm2JViz3WM9cDXpcbpsggPq7erNVLfTQVy2WBkiCTRN15wfQfRaSejLk7yxm";
const TODAY = "2026-09-13";

/** The error a file raises, as its line, field and message. */
function failure(text: string): [number, string | null, string] {
  try {
    parseCostBasis(text, TODAY);
  } catch (e) {
    if (e instanceof CostBasisError) return [e.line, e.field, e.message];
    throw e;
  }
  throw new Error("the file parsed");
}

describe("the two shapes", () => {
  test("by signature: owner, signature, cost, amounts written canonically", () => {
    expect(parseCostBasis(`owner,signature,costUsd\r\n${OWNER},${SIG},7400.50\r\n`, TODAY)).toEqual([{ kind: "cost", owner: OWNER, signature: SIG, costUsd: "7400.5" }]);
  });

  test("a lot bought off chain: columns in any order, a day is its start in UTC, a time keeps its offset as UTC", () => {
    const text = ["costUsd,units,acquiredAt,mint,owner", `1000,10,2025-03-01,${MINT},${OWNER}`, ` 0.000001 , 0.5 ,2025-03-01T23:30+02:00,${MINT},${OWNER}`].join("\n");
    expect(parseCostBasis(text, TODAY)).toEqual([
      { kind: "lot", owner: OWNER, mint: MINT, acquiredAt: "2025-03-01T00:00:00.000Z", units: "10", costUsd: "1000" },
      { kind: "lot", owner: OWNER, mint: MINT, acquiredAt: "2025-03-01T21:30:00.000Z", units: "0.5", costUsd: "0.000001" },
    ]);
  });

  test("the stored payload is canonical JSON: the same declaration written two ways hashes the same", () => {
    const [a] = parseCostBasis(`owner,signature,costUsd\n${OWNER},${SIG},7400.50\n`, TODAY);
    const [b] = parseCostBasis(`costUsd,owner,signature\n07400.5000,${OWNER},${SIG}\n`, TODAY);
    expect(declarationPayload(a!)).toBe(`{"costUsd":"7400.5","kind":"cost","owner":"${OWNER}","signature":"${SIG}"}`);
    expect(canonicalSha256(a)).toBe(canonicalSha256(b));
  });
});

describe("errors name the line and the field", () => {
  const lot = (cells: Partial<Record<(typeof LOT_COLUMNS)[number], string>>) =>
    `${LOT_COLUMNS.join(",")}\n${LOT_COLUMNS.map((c) => cells[c] ?? { owner: OWNER, mint: MINT, acquiredAt: "2025-03-01", units: "1", costUsd: "1" }[c]).join(",")}\n`;
  const cost = (cells: Partial<Record<(typeof COST_COLUMNS)[number], string>>) =>
    `${COST_COLUMNS.join(",")}\n${COST_COLUMNS.map((c) => cells[c] ?? { owner: OWNER, signature: SIG, costUsd: "1" }[c]).join(",")}\n`;

  test.each([
    ["owner", lot({ owner: "not-an-address" }), "expected a base58 Solana address"],
    ["mint", lot({ mint: "0OIl" }), "expected a base58 Solana address"],
    ["signature", cost({ signature: OWNER }), "expected a transaction signature (base58, 64 bytes)"],
    ["costUsd", cost({ costUsd: "-5" }), "expected a dollar amount, 0 or more"],
    ["costUsd", cost({ costUsd: "1e3" }), "expected a dollar amount"],
    ["costUsd", cost({ costUsd: "$10" }), "expected a dollar amount"],
    ["costUsd", cost({ costUsd: "" }), "expected a dollar amount"],
    ["costUsd", cost({ costUsd: "1".repeat(16) }), "at most 15 digits before the point"],
    ["units", lot({ units: "0" }), "expected a number of units above 0"],
    ["units", lot({ units: "0.0000000000000000001" }), "18 after"],
    ["acquiredAt", lot({ acquiredAt: "2025-02-29" }), "expected a day YYYY-MM-DD"],
    ["acquiredAt", lot({ acquiredAt: "01/03/2025" }), "expected a day YYYY-MM-DD"],
    ["acquiredAt", lot({ acquiredAt: "2025-03-01T24:00Z" }), "expected a day YYYY-MM-DD"],
    ["acquiredAt", lot({ acquiredAt: "2025-03-01T10:00" }), "with Z or an offset"],
    ["acquiredAt", lot({ acquiredAt: "2026-09-14" }), "after today (2026-09-13, UTC)"],
    ["acquiredAt", lot({ acquiredAt: "2026-09-13T23:30-01:00" }), "after today"],
    ["acquiredAt", lot({ acquiredAt: "1969-12-31" }), "before 1970"],
  ])("%s: %p", (field, text, reason) => {
    const [line, named, message] = failure(text);
    expect([line, named]).toEqual([2, field]);
    expect(message).toStartWith(`line 2, ${field}: `);
    expect(message).toContain(reason);
  });

  test("a time later today is accepted; the same transaction declared twice in one file is refused", () => {
    expect(parseCostBasis(lot({ acquiredAt: "2026-09-13T23:59:59.999Z" }), TODAY)).toHaveLength(1);
    expect(failure(`${COST_COLUMNS.join(",")}\n${OWNER},${SIG},1\n\n${OWNER},${SIG},2\n`)).toEqual([4, "signature", "line 4, signature: this owner's transaction is already declared on line 2"]);
  });

  test("the header: empty file, unknown, repeated or mixed columns, no rows; rows of the wrong width; a broken quote", () => {
    expect(failure("")[2]).toBe("line 1: the file is empty; expected the header owner,signature,costUsd or owner,mint,acquiredAt,units,costUsd");
    expect(failure("owner,signature,cost\n")[2]).toBe('line 1: unknown column "cost"; expected owner,signature,costUsd or owner,mint,acquiredAt,units,costUsd');
    expect(failure("owner,owner,costUsd\n")[2]).toBe("line 1: the column owner appears twice");
    expect(failure("owner,signature,mint,costUsd\n")[2]).toContain("line 1: the columns owner,signature,mint,costUsd are neither shape");
    expect(failure("owner,signature,costUsd\n")).toEqual([2, null, "line 2: the file has a header but no declaration"]);
    expect(failure(`owner,signature,costUsd\n${OWNER},${SIG}\n`)[2]).toBe("line 2: 2 cells, the header has 3");
    expect(failure(`owner,signature,costUsd\n${OWNER},${SIG},"1\n`)[2]).toBe("line 2: a quoted field is not closed");
  });
});

describe("properties", () => {
  const base58 = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => getBase58Decoder().decode(b));
  const decimal = (before: number) =>
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** BigInt(before) - 1n }), fc.option(fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), { nil: null }), fc.nat({ max: 17 })).map(([i, f, width]) =>
      f === null
        ? String(i)
        : `${i}.${String(f)
            .padStart(18, "0")
            .slice(0, width + 1)}`,
    );
  const day = fc.date({ min: new Date("2020-03-16T00:00:00Z"), max: new Date(`${TODAY}T23:59:59.999Z`), noInvalidDate: true });
  const lotRow = fc.record({ owner: base58(32), mint: base58(32), acquiredAt: day, units: decimal(20).filter((s) => parseDecimal(s).n > 0n), costUsd: decimal(15) });

  test("what the CSV writer writes reads back as the same declarations, in order, amounts exact", () => {
    fc.assert(
      fc.property(fc.array(lotRow, { minLength: 1, maxLength: 8 }), (rows) => {
        const text = toCsv(
          [...LOT_COLUMNS],
          rows.map((r) => [r.owner, r.mint, r.acquiredAt.toISOString(), r.units, r.costUsd]),
        );
        const parsed = parseCostBasis(text, TODAY);
        expect(parsed.map((d) => d.kind === "lot" && [d.owner, d.mint, d.acquiredAt])).toEqual(rows.map((r) => [r.owner, r.mint, r.acquiredAt.toISOString()]));
        parsed.forEach((d, i) => {
          if (d.kind !== "lot") throw new Error("a lot");
          expect(parseDecimal(d.units)).toEqual(parseDecimal(rows[i]!.units));
          expect(parseDecimal(d.costUsd)).toEqual(parseDecimal(rows[i]!.costUsd));
          expect(formatDecimal(parseDecimal(d.costUsd))).toBe(d.costUsd);
        });
      }),
      { numRuns: 200 },
    );
  });

  test("signatures of 64 random bytes are read; the same one twice for one owner is refused, for two owners it is not", () => {
    fc.assert(
      fc.property(base58(32), base58(32), base58(64), (a, b, sig) => {
        expect(
          parseCostBasis(
            toCsv(
              [...COST_COLUMNS],
              [
                [a, sig, "1"],
                [b, sig, "2"],
              ],
            ),
            TODAY,
          ).map((d) => d.owner),
        ).toEqual([a, b]);
        if (a !== b)
          expect(() =>
            parseCostBasis(
              toCsv(
                [...COST_COLUMNS],
                [
                  [a, sig, "1"],
                  [a, sig, "2"],
                ],
              ),
              TODAY,
            ),
          ).toThrow(CostBasisError);
      }),
      { numRuns: 100 },
    );
  });
});

describe("the documentation's examples", () => {
  test("each CSV example of docs/lots.md#declared-cost-basis parses, and its JSON is the stored payload", () => {
    const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "lots.md"), "utf8");
    const section = doc.slice(doc.indexOf("## Declared cost basis"), doc.indexOf("### How declarations apply"));
    const csv = [...section.matchAll(/```csv\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const json = [...section.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.trim().split("\n"));
    expect(csv).toHaveLength(2);
    const parsed = csv.flatMap((text) => parseCostBasis(text, TODAY));
    // The JSON shortens the addresses with an ellipsis: compare with them shortened alike.
    const short = (payload: string) => payload.replace(/"([1-9A-HJ-NP-Za-km-z]{4})[1-9A-HJ-NP-Za-km-z]{28,}"/g, '"$1…"');
    expect(parsed.map((d) => short(declarationPayload(d)))).toEqual(json);
  });
});

describe("as the lot engine's input", () => {
  test("a declared cost prices a SOL-paid purchase; a declared lot dates and values units withdrawn from an exchange", () => {
    const stored: CostBasisObservation[] = [
      ...parseCostBasis(`owner,signature,costUsd\n${OWNER},${SIG},7400\n`, TODAY),
      ...parseCostBasis(`owner,mint,acquiredAt,units,costUsd\n${OWNER},${MINT},2025-01-02,5,3000\n${OWNER},So11111111111111111111111111111111111111112,2025-01-02,1,1\n`, TODAY),
    ];
    const M = liftF64(1);
    const input = declarationsInput(stored, (mint) => (mint === MINT ? { multiplier: M, decimals: 8 } : null));
    expect(input.unknownMint.map((d) => d.mint)).toEqual(["So11111111111111111111111111111111111111112"]);
    const movements = [
      movement({ owner: OWNER, mint: MINT, at: Date.parse("2025-02-01T00:00:00Z"), signature: SIG, rawDelta: 10n * 10n ** 8n, multiplier: 1, reason: "sol_paid" }),
      movement({ owner: OWNER, mint: MINT, at: Date.parse("2025-03-01T00:00:00Z"), signature: "withdrawal", rawDelta: 5n * 10n ** 8n, multiplier: 1, reason: "transfer" }),
    ];
    const report = deriveLots({ movements, actions: [], declaredCosts: input.declaredCosts, declaredLots: input.declaredLots }, { method: "fifo", treatment: "income" });
    expect(report.problems).toEqual([]);
    expect(report.lots.map((l) => [l.acquiredAt, formatDecimal(l.units), l.basisUsd && formatDecimal(l.basisUsd), l.source])).toEqual([
      [Date.parse("2025-01-02T00:00:00Z"), "5", "3000", "declared"],
      [Date.parse("2025-02-01T00:00:00Z"), "10", "7400", "declared"],
    ]);
  });
});
