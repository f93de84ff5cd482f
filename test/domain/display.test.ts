// The one rounding rule for what people read (src/domain/display.ts), against independent
// derivations: USD half-even at 6 places, derived quantities half-even at the mint's decimals,
// and the float noise an f64 multiplier leaves in exact values kept from the holder.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { displayedChange, quantityForPeople, uiAmount, uiChange, usdForPeople, usdInText, usdTextForPeople } from "../../src/domain/display";
import { runEngine } from "../../src/domain/engine";
import { add, cmp, formatExact, parseDecimal, rat, ratAbs, sub, sum } from "../../src/domain/numbers";
import { positionShown } from "../../src/ledger/portfolio-render.ts";
import { decUsd6, scenario } from "./helpers";

const decimalString = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 30 })).map(([negative, digits, places]) => {
  const s = digits.toString().padStart(places + 1, "0");
  const body = places ? `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}` : s;
  return formatExact(parseDecimal((negative ? "-" : "") + body));
});

describe("USD for people", () => {
  test("half-even at 6 places, trailing zeros dropped, within half a millionth of the exact value", () => {
    fc.assert(
      fc.property(decimalString, (exact) => {
        const shown = usdForPeople(parseDecimal(exact));
        expect(shown).toBe(decUsd6(exact));
        expect(shown).toMatch(/^-?\d+(\.\d{0,5}[1-9])?$/);
        expect(cmp(ratAbs(sub(parseDecimal(shown), parseDecimal(exact))), rat(1, 2_000_000))).toBeLessThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  test("ties go to the even digit; unknown stays null", () => {
    expect(usdForPeople(parseDecimal("0.0000025"))).toBe("0.000002");
    expect(usdForPeople(parseDecimal("0.0000035"))).toBe("0.000004");
    expect(usdForPeople(parseDecimal("-0.0000001"))).toBe("0");
    expect(usdTextForPeople(null)).toBeNull();
    expect(usdInText(parseDecimal("-0.0002534"))).toBe("-$0.000253");
  });

  test("a total is the sum of the exact values rounded once, not the sum of rounded rows", () => {
    const rows = ["0.0000004", "0.0000004", "0.0000004"];
    expect(usdForPeople(sum(rows.map(parseDecimal)))).toBe("0.000001");
    expect(rows.map((r) => usdForPeople(parseDecimal(r)))).toEqual(["0", "0", "0"]);
  });
});

describe("quantities for people", () => {
  test("decimals that are not a mint's u8 (a stored row read back damaged) give NaN, and the position fails to render, instead of looping for ever", () => {
    expect(uiAmount(100_000_000n, 1.5, undefined as unknown as number)).toBe("NaN");
    expect(uiAmount(100_000_000n, 1.5, 2.5)).toBe("NaN");
    // Past a u8 (a flipped bit of mint_states.decimals): no text of millions of digits.
    expect(uiAmount(100_000_000n, 1.5, 8 + 2 ** 24)).toBe("NaN");
    expect(uiAmount(100_000_000n, 1.5, -1)).toBe("NaN");
    expect(uiAmount(100_000_000n, 1.5, 255)).toMatch(/^0\.0+15$/); // a u8 still renders
    const p = runEngine(scenario(["KLACx"], 300_000_000n)).positions[0]!;
    expect(() => positionShown({ ...p, decimals: undefined as unknown as number }, parseDecimal(p.incomeUsd))).toThrow(/not a decimal number/);
  });

  test("the float noise of a split lifted from f64 multipliers is not shown (KLACx, 3 tokens, 1 → 10)", () => {
    // The exact ratio of the two f64 multipliers is 10.00000000000000044…, not the issuer's 10:
    // the exact principal carries it; the holder reads 30, parts that add up to the wallet's own
    // figure, and the distribution a share as the issuer's decimals give it.
    const out = runEngine(scenario(["KLACx"], 300_000_000n));
    const p = out.positions[0]!;
    expect(p.principalQuantity.startsWith("30.0000000000000013")).toBe(true);
    const income = parseDecimal(p.incomeUsd);
    const shown = positionShown(p, income);
    expect(shown.principalQuantity).toBe("30");
    expect(shown.quantity).toBe(uiAmount(300_000_000n, 10.01683308516363, 8));
    expect(formatExact(add(parseDecimal(shown.principalQuantity), parseDecimal(shown.convertibleQuantity)))).toBe(shown.quantity);
    expect(shown.exact.principalQuantity).toBe(p.principalQuantity);
    const tracked = out.yields.find((y) => y.window === "tracked")!;
    expect(tracked.distributionPerShareUsd).toBe("0.322");
  });

  test("half-even at the mint's decimals", () => {
    fc.assert(
      fc.property(decimalString, fc.integer({ min: 0, max: 12 }), (exact, decimals) => {
        const shown = quantityForPeople(parseDecimal(exact), decimals);
        const places = shown.split(".")[1]?.length ?? 0;
        expect(places).toBeLessThanOrEqual(decimals);
        const half = rat(1, 2n * 10n ** BigInt(decimals));
        expect(cmp(ratAbs(sub(parseDecimal(shown), parseDecimal(exact))), half)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  test("property: the change a wallet shows for one balance is the difference of its two renderings", () => {
    const raw = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));
    const multiplier = fc.double({ min: 1e-6, max: 1e6, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(raw, multiplier, multiplier, fc.integer({ min: 0, max: 24 }), (r, before, after, decimals) => {
        expect(uiChange(r, before, after, decimals)).toBe(displayedChange(uiAmount(r, before, decimals), uiAmount(r, after, decimals)));
      }),
      { numRuns: 2000 },
    );
  });

  test("a displayed change is exact on the displayed strings", () => {
    expect(displayedChange("10.03909240", "10.05714560")).toBe("0.0180532");
    expect(displayedChange(uiAmount(100_000_000n, 1, 6), uiAmount(100_000_000n, 1.06, 6))).toBe("6");
  });
});
