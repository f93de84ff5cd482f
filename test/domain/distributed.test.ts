// What a distribution distributed, in words (src/domain/distributed.ts): a name only where a
// source states it (an operator record's distributedName, an issuer note naming what it sold),
// the operator's before the note, the matched revision before the event's others.
import { describe, expect, test } from "bun:test";
import { describeDistributed, distributedName, nameInNote } from "../../src/domain/distributed";
import type { IssuerRevisionObs } from "../../src/domain/observations";
import { revision } from "./helpers";

const spinOff = (version: number, notes: string | null, extra: Record<string, unknown> = {}): IssuerRevisionObs => ({
  ...revision({ eventId: "e", version, xstockSymbol: "CMCSAx", spvSymbol: "CMCSA", caType: "SpinOff", status: "Initial", notes, ...extra } as never),
  ...(extra.mint ? { source: "operator" as const, mint: extra.mint as string } : {}),
});

describe("the name of what was distributed", () => {
  test("issuer notes that name what was sold; others name nothing", () => {
    expect(nameInNote("Sell of 373.48 shares of VSNT (CMCSA spin off) @ $ 34.56020")).toBe("VSNT");
    expect(nameInNote("Sell of 18606 units of KRAQW")).toBe("KRAQW");
    expect(nameInNote("Selling proceeds of 18,606 warrants @ $0.5553321509 - $100 (subscription fee)")).toBeNull();
    expect(nameInNote("[CANCELLED v1] Misscalculation - $100 fee not included in calculation")).toBeNull();
    expect(nameInNote(null)).toBeNull();
  });

  test("the matched revision first, then the others newest first; an operator's distributedName before a note", () => {
    const v1 = spinOff(1, "Sell of 10 shares of OLD");
    const v2 = spinOff(2, null);
    const v3 = spinOff(3, "Sell of 10 shares of NEW");
    expect(distributedName(v2, [v1, v2, v3])).toEqual({ name: "NEW", namedBy: "issuer" });
    expect(distributedName(v1, [v1, v2, v3])).toEqual({ name: "OLD", namedBy: "issuer" });
    const operator = spinOff(4, "Sell of 10 shares of NOTE", { mint: "m", distributedName: "Spun Co" });
    expect(distributedName(operator, [v1, v2, v3, operator])).toEqual({ name: "Spun Co", namedBy: "operator" });
    // A feed record cannot carry the operator's field: only an operator revision's counts.
    const feed = { ...spinOff(5, null), record: { ...spinOff(5, null).record, distributedName: "X" } as never };
    expect(distributedName(feed, [feed])).toEqual({ name: null, namedBy: null });
  });

  test("sentences: unnamed, named, rights, cash in lieu", () => {
    const none = { name: null, namedBy: null };
    expect(describeDistributed("spin_off", none, "HON", "HONx").description).toBe("a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by the issuer)");
    expect(describeDistributed("spin_off", { name: "VSNT", namedBy: "issuer" }, "CMCSA", "CMCSAx")).toEqual({
      name: "VSNT",
      namedBy: "issuer",
      holding: "VSNT",
      description: "VSNT, spun off by CMCSA, sold by the issuer and reinvested in CMCSAx (named in the issuer's note)",
    });
    expect(describeDistributed("rights_distribution", none, "KRAQ", "KRAQx").holding).toBe("rights distributed by KRAQ (not named by the issuer)");
    expect(describeDistributed("cash_in_lieu", none, "ABC", "ABCx")).toEqual({
      name: null,
      namedBy: null,
      holding: "fractional entitlements of ABC",
      description: "fractional entitlements of ABC, sold by the issuer and reinvested in ABCx",
    });
  });
});
