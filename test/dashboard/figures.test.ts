// The figures the dashboard computes in the browser: the display rule (USD at most six decimals,
// ties to even, at least cents; quantities at the mint's decimals), exact totals, and the year
// report from income entries. Properties for the arithmetic, and agreement with the API's own
// totals on the demo ledger.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createClient } from "../../client/src/index.ts";
import { add, formatExact, formatFixed, parseDecimal, rat, roundHalfEven, sub } from "../../src/domain/numbers.ts";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { demoOwners, demoTenant } from "../../src/demo/load.ts";
import { decimalText, percentText, quantityText, sumDecimals, usdDigits, usdText } from "../../web/src/format.ts";
import { entriesSince, reportFromEntries, yearsOf } from "../../web/src/income-report.ts";
import { reportCsv } from "../../web/src/report-csv.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";
import { ledgerFlags } from "../support/engine.ts";

/** An exact decimal string with up to 30 fractional digits, either sign. */
const arbDecimal = fc
  .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 30 }))
  .map(([n, places]) => formatExact(rat(n, 10n ** BigInt(places))));

describe("the display rule", () => {
  test("USD: half-even at six decimals, at least two shown, the rounded value unchanged", () => {
    fc.assert(fc.property(arbDecimal, (x) => {
      const shown = usdDigits(x);
      const places = shown.split(".")[1]?.length ?? 0;
      expect(places >= 2 && places <= 6).toBe(true);
      expect(sub(parseDecimal(shown), roundHalfEven(parseDecimal(x), 6)).n).toBe(0n);
    }), { numRuns: 2000 });
  });

  test("USD examples: ties to even, cents kept, groups of three, unknown is not zero", () => {
    expect(usdDigits("1.0000005")).toBe("1.00");
    expect(usdDigits("1.0000015")).toBe("1.000002");
    expect(usdDigits("0.5")).toBe("0.50");
    expect(usdDigits("-0.0000001")).toBe("0.00");
    expect(usdText("1234567.125")).toBe("$1,234,567.125");
    expect(usdText("-12.5")).toBe("-$12.50");
    expect(usdText(null)).toBe("unknown");
  });

  test("quantities at the mint's decimals, trailing zeros trimmed, as formatFixed rounds them", () => {
    fc.assert(fc.property(arbDecimal, fc.integer({ min: 0, max: 12 }), (x, decimals) => {
      const shown = quantityText(x, decimals).replaceAll(",", "");
      expect(sub(parseDecimal(shown), parseDecimal(formatFixed(parseDecimal(x), decimals))).n).toBe(0n);
      expect(shown).not.toMatch(/\.\d*0$|\.$/);
    }), { numRuns: 1000 });
    expect(quantityText("28.11249389934005582514231491586542688310146331787109375", 8)).toBe("28.1124939");
    expect(quantityText("12500.000000", 6)).toBe("12,500");
    expect(decimalText("0.13810858")).toBe("0.13810858");
    expect(percentText("0.25")).toBe("25%");
    expect(percentText("1")).toBe("100%");
  });

  test("a total is the exact sum of the known values, unknown ones counted apart", () => {
    fc.assert(fc.property(fc.array(fc.option(arbDecimal, { nil: null }), { maxLength: 30 }), (values) => {
      const total = sumDecimals(values);
      const known = values.filter((v): v is string => v !== null);
      expect(total.known).toBe(known.length);
      expect(total.unknown).toBe(values.length - known.length);
      if (known.length === 0) expect(total.value).toBeNull();
      else expect(total.value).toBe(formatExact(known.map(parseDecimal).reduce(add)));
    }), { numRuns: 1000 });
  });
});

type Entry = Parameters<typeof reportFromEntries>[2][number];

const arbEntry = fc.record({
  month: fc.integer({ min: 1, max: 12 }),
  year: fc.constantFrom(2025, 2026),
  symbol: fc.constantFrom("SPYx", "NVOx", "=HYPERLINK()"),
  kind: fc.constantFrom("dividend", "dividend", "dividend", "split", "unclassified_adjustment"),
  usd: fc.option(arbDecimal, { nil: null }),
}).map(({ month, year, symbol, kind, usd }, ) => ({
  id: "act", owner: "o", mint: `mint-${symbol}`, symbol, kind, splitFactor: null, headline: "", reasons: [], quantityDisplay: "1", incomeUnits: "1", usd, warnings: [], evidenceSha256: "0".repeat(64),
  grossUsd: null, withholdingTaxRate: null, withholdingTaxUsd: null, retentionRate: null, retainedUsd: null,
  exact: { incomeUnits: "1", usd, grossUsd: null, withholdingTaxUsd: null, retainedUsd: null },
  effectiveAt: `${year}-${String(month).padStart(2, "0")}-15T00:00:00.000Z`,
}) as Entry);

describe("the year report from income entries", () => {
  test("rows, months and totals agree; only the year's dividends count; unknown USD is counted, not zero", () => {
    fc.assert(fc.property(fc.array(arbEntry, { maxLength: 60 }), (entries) => {
      const report = reportFromEntries(2026, ["o"], entries);
      const income = entries.filter((e) => e.kind === "dividend" && e.effectiveAt.startsWith("2026-"));
      expect(report.totals.events).toBe(income.length);
      expect(report.totals.unvaluedEvents).toBe(income.filter((e) => e.usd === null).length);
      expect(report.totals.usd).toBe(sumDecimals(income.map((e) => e.usd)).value);
      for (const parts of [report.rows, report.months]) {
        expect(parts.reduce((n, r) => n + r.events, 0)).toBe(report.totals.events);
        expect(sumDecimals(parts.map((r) => r.usd)).value).toBe(report.totals.usd);
      }
      expect(new Set(report.rows.map((r) => r.month + r.symbol)).size).toBe(report.rows.length);
      expect(report.months.map((m) => m.month)).toEqual(Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, "0")}`));
      // Until the API gives the breakdown, gross, withheld and retained are unknown, not zero.
      expect([report.totals.grossUsd, report.totals.withholdingTaxUsd, report.totals.retainedUsd]).toEqual([null, null, null]);
    }), { numRuns: 500 });
  });

  test("the CSV: a row per month × symbol, then the total; unknown is an empty cell; formula text quoted", () => {
    const entries = fc.sample(arbEntry, { numRuns: 40, seed: 3 });
    const report = reportFromEntries(2026, ["o"], entries);
    const lines = reportCsv(report).split("\r\n");
    expect(lines[0]).toBe("year,month,symbol,events,grossUsd,withholdingTaxUsd,retainedUsd,usd,unvaluedEvents");
    expect(lines).toHaveLength(report.rows.length + 3); // header, rows, total, and the final CRLF
    expect(lines[lines.length - 2]).toBe(`2026,total,,${report.totals.events},,,,${report.totals.usd === null ? "" : usdDigits(report.totals.usd)},${report.totals.unvaluedEvents}`);
    for (const line of lines.filter((l) => l.includes("HYPERLINK"))) expect(line).toContain("'=HYPERLINK()");
  });
});

describe("agreement with the API on the demo ledger", () => {
  let server: ServerHandle;
  let key: string;
  beforeAll(async () => {
    server = await startServer({ port: "0", host: "127.0.0.1", ...ledgerFlags(await demoDataDir() )}, { env: { LOG_LEVEL: "error" }, quiet: true, offline: true });
    key = (await createKey(server.ledger.db, { name: "figures", tenant: demoTenant, scopes: ["ledger:read"] })).key;
  });
  afterAll(async () => {
    await server?.stop();
    removeTempDirs();
  });

  test("every year's report summed equals each wallet's income total and unvalued count in the portfolio", async () => {
    const api = createClient({ baseUrl: server.url, apiKey: key });
    for (const owner of demoOwners()) {
      const entries = await entriesSince(api, owner, 0);
      const reports = yearsOf(entries).map((year) => reportFromEntries(year, [owner], entries));
      expect(reports.length).toBeGreaterThan(0);
      const portfolio = await api.portfolio(owner);
      expect(sumDecimals(reports.map((r) => r.totals.usd)).value).toBe(formatExact(parseDecimal(portfolio.totals.exact.incomeUsd)));
      expect(reports.reduce((n, r) => n + r.totals.unvaluedEvents, 0)).toBe(portfolio.totals.unvaluedIncomeEvents);
    }
  });

  test("paging: a report from the year on reads only the pages it needs and misses nothing", async () => {
    const api = createClient({ baseUrl: server.url, apiKey: key });
    const owner = demoOwners()[0]!;
    const all = await entriesSince(api, owner, 0);
    let asked = 0;
    const counting = createClient({ baseUrl: server.url, apiKey: key, fetch: (input, init) => { asked++; return fetch(input, init); } });
    const since = await entriesSince(counting, owner, 2026, 3);
    expect(reportFromEntries(2026, [owner], since)).toEqual(reportFromEntries(2026, [owner], all));
    const newerThan2026 = all.filter((e) => e.effectiveAt >= "2026-").length;
    expect(asked).toBe(Math.floor(newerThan2026 / 3) + 1); // the page that reaches 2025 is the last one read
    expect(asked).toBeLessThan(Math.ceil(all.length / 3));
  });
});
