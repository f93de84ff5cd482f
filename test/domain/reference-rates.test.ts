// The ECB history file (test/fixtures/ecb: a real sample) and the rate arithmetic: USD → X on a day
// is (X per EUR) ÷ (USD per EUR), exactly; properties for the arithmetic and for the parser's
// error positions.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { roundedText } from "../../src/domain/display";
import { div, eq, formatExact, mul, ONE, parseDecimal, rat } from "../../src/domain/numbers";
import { EUR_PER_EUR, parseEcbHistory, RatesFileError, usdRate } from "../../src/domain/reference-rates";

const ecbSample = join(import.meta.dir, "..", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");
const text = readFileSync(ecbSample, "utf8");
/** The sample's last day: no later day may be in it. */
const TODAY = "2026-01-09";

describe("the ECB history file", () => {
  test("the real sample reads whole: 27 days, 41 currencies, gaps left out", () => {
    const h = parseEcbHistory(text, TODAY);
    expect(h.days.length).toBe(27);
    expect(h.currencies.length).toBe(41);
    expect(h.currencies.slice(0, 4)).toEqual(["USD", "JPY", "BGN", "CYP"]);
    const byDate = new Map(h.days.map((d) => [d.date, d.perEur]));
    // Rates exactly as published.
    expect(byDate.get("2025-12-31")!.get("USD")).toBe("1.175");
    expect(byDate.get("2025-12-31")!.get("JPY")).toBe("184.09");
    expect(byDate.get("2026-01-09")!.get("USD")).toBe("1.1642");
    // Bulgaria joined the euro on 2026-01-01: the lev is quoted in 2025 and N/A from 2026.
    expect(byDate.get("2025-12-31")!.get("BGN")).toBe("1.9558");
    expect(byDate.get("2026-01-02")!.has("BGN")).toBe(false);
    // Currencies the ECB no longer quotes are N/A throughout.
    expect(h.days.some((d) => d.perEur.has("CYP"))).toBe(false);
    // No rates on the holidays.
    for (const holiday of ["2025-12-25", "2025-12-26", "2026-01-01"]) expect(byDate.has(holiday)).toBe(false);
  });

  test("CRLF line endings, a byte-order mark and a missing final newline read the same", () => {
    const same = parseEcbHistory("\uFEFF" + text.replace(/\n/g, "\r\n").replace(/\r\n$/, ""), TODAY);
    expect(same).toEqual(parseEcbHistory(text, TODAY));
  });

  const errorOf = (t: string): RatesFileError => {
    try {
      parseEcbHistory(t, TODAY);
    } catch (e) {
      if (e instanceof RatesFileError) return e;
      throw e;
    }
    throw new Error("accepted");
  };

  test("a bad file names the line and the column", () => {
    const lines = text.split("\n");
    const withCell = (line: number, column: number, value: string) => {
      const copy = [...lines];
      const cells = copy[line - 1]!.split(",");
      cells[column - 1] = value;
      copy[line - 1] = cells.join(",");
      return copy.join("\n");
    };
    expect(errorOf(withCell(5, 2, "1,1")).message).toMatch(/^line 5: expected 43 columns/);
    expect(errorOf(withCell(5, 3, "abc"))).toMatchObject({ line: 5, column: 3, message: "line 5, column 3: JPY: expected a positive decimal rate or N/A" });
    expect(errorOf(withCell(6, 2, "-1.1"))).toMatchObject({ line: 6, column: 2 });
    expect(errorOf(withCell(6, 2, "0"))).toMatchObject({ line: 6, column: 2 });
    expect(errorOf(withCell(7, 1, "2025-02-30"))).toMatchObject({ line: 7, column: 1 });
    expect(errorOf(withCell(8, 1, lines[1]!.split(",")[0]!))).toMatchObject({ line: 8, column: 1, message: expect.stringContaining("appears twice") });
    expect(errorOf(withCell(1, 3, "EUR"))).toMatchObject({ line: 1, column: 3 });
    expect(errorOf(withCell(1, 4, "USD"))).toMatchObject({ line: 1, column: 4, message: expect.stringContaining("USD appears twice") });
    expect(errorOf(withCell(1, 1, "Day"))).toMatchObject({ line: 1, column: 1 });
    expect(errorOf(withCell(9, 43, "1.5"))).toMatchObject({ line: 9, column: 43 });
    expect(errorOf("")).toMatchObject({ line: 1 });
    expect(errorOf(lines[0]! + "\n")).toMatchObject({ line: 2, message: expect.stringContaining("no rates") });
    expect(errorOf("Date,JPY\n2025-01-02,160\n").message).toContain("no USD column");
  });

  test("property: any cell made unreadable is reported at its own line and column", () => {
    const lines = text.split("\n").filter((l) => l !== "");
    fc.assert(
      fc.property(fc.integer({ min: 2, max: lines.length }), fc.integer({ min: 2, max: 42 }), fc.constantFrom("x", "1.2.3", "-5", "1e3", " 1.1", "N/ A", "0.0"), (line, column, bad) => {
        const copy = [...lines];
        const cells = copy[line - 1]!.split(",");
        cells[column - 1] = bad;
        copy[line - 1] = cells.join(",");
        const e = errorOf(copy.join("\n") + "\n");
        expect([e.line, e.column]).toEqual([line, column]);
      }),
    );
  });
});

describe("USD → X", () => {
  const quotes = fc.tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 6 })).map(([n, places]) => parseDecimal(formatExact(rat(n, 10n ** BigInt(places)))));

  test("property: the rate times the dollar's quote is the currency's quote, exactly", () => {
    fc.assert(
      fc.property(quotes, quotes, (usdPerEur, xPerEur) => {
        expect(eq(mul(usdRate(usdPerEur, xPerEur), usdPerEur), xPerEur)).toBe(true);
      }),
    );
  });

  test("property: EUR is 1 ÷ (USD per EUR); USD is 1; X→Y through USD does not depend on the dollar", () => {
    fc.assert(
      fc.property(quotes, quotes, quotes, (usdPerEur, x, y) => {
        expect(eq(usdRate(usdPerEur, EUR_PER_EUR), div(ONE, usdPerEur))).toBe(true);
        expect(eq(usdRate(usdPerEur, usdPerEur), ONE)).toBe(true);
        expect(eq(div(usdRate(usdPerEur, x), usdRate(usdPerEur, y)), div(x, y))).toBe(true);
      }),
    );
  });

  test("the real quotes of 2025-12-31: 1.175 dollars and 184.09 yen per euro", () => {
    const usd = parseDecimal("1.175");
    expect(roundedText(usdRate(usd, EUR_PER_EUR), 10)).toBe("0.8510638298");
    expect(roundedText(usdRate(usd, parseDecimal("184.09")), 10)).toBe("156.6723404255");
    // 100 USD in euros, rounded once at 6 decimals.
    expect(roundedText(mul(parseDecimal("100"), usdRate(usd, EUR_PER_EUR)), 6)).toBe("85.106383");
  });
});
