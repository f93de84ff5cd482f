// The table of action types (src/domain/rules): one entry per type, in the taxonomy's order, and
// for any issuer record exactly one entry claims it, whether read against a chain change or only
// announced.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { actionTypes } from "../../schemas/v2/actions";
import { announcedType, classify } from "../../src/domain/classify";
import { f64ToDecimal } from "../../src/domain/numbers";
import { RULES } from "../../src/domain/rules";
import { readRecord } from "../../src/domain/rules/rule";
import { ACTION_TYPES } from "../../src/domain/taxonomy";
import type { ChainTransition } from "../../src/domain/types";
import { revision } from "./helpers";
import { recordedSymbols } from "./recorded";

const base = recordedSymbols().find((s) => s.symbol === "SPYx")!.revisions[0]!.record;

function transition(mOld: number, mNew: number): ChainTransition {
  return {
    key: "m:sig:0",
    mint: "m",
    signature: "sig",
    ixIndex: 0,
    slot: 1,
    blockTime: "2026-01-01T00:00:00.000Z",
    blockTimeUnix: 1_767_225_600,
    multiplierOld: f64ToDecimal(mOld),
    multiplierNew: f64ToDecimal(mNew),
    multiplierOldF64: mOld,
    multiplierNewF64: mNew,
    scheduledAt: "2026-01-01T00:00:00.000Z",
    effectiveAt: "2026-01-01T00:00:00.000Z",
    effectiveAtUnix: 1_767_225_600,
    state: "activated",
    supersededBy: null,
  };
}

describe("the type table", () => {
  test("one entry per type, in the order the taxonomy and the API schema list them", () => {
    expect(RULES.map((r) => r.type)).toEqual([...ACTION_TYPES]);
    expect(RULES.map((r) => r.type)).toEqual([...actionTypes]);
  });

  test("every income type books income and every other type books none; categories and treatments agree", () => {
    for (const r of RULES) expect(r.treatment === "income").toBe(r.category === "income");
    expect(RULES.filter((r) => r.lineage === "identity_change").map((r) => r.type)).toEqual(["stock_merger", "identity_change"]);
  });

  test("property: every record of a known caType is claimed by exactly one type, announced or on chain", () => {
    const caTypes = [...new Set(RULES.flatMap((r) => r.caTypes))];
    const units = fc.constantFrom<[string | null, string | null]>([null, null], ["1", "1"], ["1", "10"], ["2", "1"], ["100", "101.2"]);
    const notes = fc.constantFrom(null, "cash in lieu of fractions", "Stock Merger 0.5 NYSE:AZN for 1 NASDAQ:AZN (ADR)", "Stock Merger 1 NYSE:NEW for 1 NASDAQ:OLD");
    const cash = fc.constantFrom<[string | null, string | null, string]>(["1", "0.7", "Initial"], ["0", "0.12", "Corrected"], [null, null, "Initial"]);
    const chain = fc.constantFrom<[number, number] | null>(null, [1, 1.01], [1, 10], [2, 1], [1, 1]);
    fc.assert(
      fc.property(fc.constantFrom(...caTypes), units, notes, cash, chain, (caType, [fromUnits, toUnits], note, [gross, net, status], multipliers) => {
        const rev = revision({ ...base, caType, fromUnits, toUnits, notes: note, grossCashflowUsd: gross, netCashflowUsd: net, status });
        const reading = readRecord(rev, multipliers ? transition(...multipliers) : null);
        const claims = RULES.filter((r) => r.caTypes.includes(reading.caType) && (r.recognises?.(reading) ?? true));
        expect(claims.length).toBe(1);
        if (multipliers === null) expect(announcedType(rev)).toBe(claims[0]!.type);
      }),
      { numRuns: 400 },
    );
  });

  test("a caType no entry takes is unknown, and the reason names it", () => {
    const rev = revision({ ...base, caType: "TenderOffer", multiplierOld: "1", multiplierNew: "1.01" });
    const c = classify(transition(1, 1.01), {
      kind: "matched",
      event: { eventId: base.eventId, revisions: [rev], all: [rev], standing: new Map(), voids: new Map() },
      revision: rev,
      reason: "matched",
    });
    expect(c.type).toBe("unknown");
    expect(c.reason).toBe("issuer type TenderOffer has no booking rule");
    expect(announcedType(rev)).toBe("unknown");
  });
});
