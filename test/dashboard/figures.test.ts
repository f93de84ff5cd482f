// The figures the dashboard shows. The server rounds every amount once (src/domain/display.ts);
// the page shows those digits unchanged, only grouped and with at least cents, and where it totals
// itself (across wallets, a month of the chart) it sums exact values and rounds once by the same
// rule. The year report, its CSV and the year choices come from the server's report on the demo
// ledger (with the ECB sample imported, so amounts in EUR too).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { createClient, type IncomeReport } from "../../client/src/index.ts";
import { quantityForPeople, usdForPeople } from "../../src/domain/display.ts";
import { add, formatExact, formatFixed, parseDecimal, rat, sub, ZERO } from "../../src/domain/numbers.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { demoOwners, demoTenant } from "../../src/demo/load.ts";
import { centsText, decimalText, moneyText, percentText, quantityOfExact, sumDecimals, usdOfExact, usdText } from "../../web/src/format.ts";
import { entryYears, monthTotals } from "../../web/src/income-report.ts";
import { reportCsv } from "../../web/src/report-csv.ts";
import { demoDataDir, importEcbSample, removeTempDirs, withLedger } from "../ops/helpers.ts";
import { ledgerFlags } from "../support/engine.ts";

/** An exact decimal string with up to 30 fractional digits, either sign. */
const arbDecimal = fc
  .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 30 }))
  .map(([n, places]) => formatExact(rat(n, 10n ** BigInt(places))));

/** USD as the server sends it: rounded for people by the ledger's rule. */
const arbShownUsd = arbDecimal.map((x) => usdForPeople(parseDecimal(x)));

const same = (a: string, b: string) => sub(parseDecimal(a), parseDecimal(b)).n === 0n;

describe("the page shows the server's digits", () => {
  test("USD: the same value and digits, only grouped and padded to cents; never rounded again", () => {
    fc.assert(fc.property(arbShownUsd, (shown) => {
      const text = usdText(shown);
      const digits = text.replace(/[$,]/g, "");
      expect(same(digits, shown)).toBe(true);
      const [, fraction = ""] = digits.split(".");
      const [, sent = ""] = shown.split(".");
      expect(fraction).toBe(sent.padEnd(2, "0")); // every digit the server sent, zeros only added
      expect(text).toMatch(/^-?\$\d{1,3}(,\d{3})*\.\d{2,6}$/);
    }), { numRuns: 2000 });
  });

  test("examples: cents written, groups of three, a negative zero is zero, unknown is not zero", () => {
    expect(usdText("1234567.125")).toBe("$1,234,567.125");
    expect(usdText("-12.5")).toBe("-$12.50");
    expect(usdText("0")).toBe("$0.00");
    expect(usdText("-0")).toBe("$0.00");
    expect(usdText("0.000253")).toBe("$0.000253");
    expect(usdText(null)).toBe("unknown");
    expect(centsText("9.9")).toBe("9.90");
    expect(moneyText("1234.5", "EUR")).toBe("1,234.50 EUR");
    expect(decimalText("12500")).toBe("12,500");
    expect(decimalText("28.11249389")).toBe("28.11249389");
    expect(decimalText("-27.60645588")).toBe("-27.60645588");
    expect(percentText("0.3")).toBe("30%");
  });

  test("what the page rounds itself (a total, a journal amount) follows the ledger's rule", () => {
    fc.assert(fc.property(fc.array(arbDecimal, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 12 }), (values, decimals) => {
      const total = sumDecimals(values).value!;
      const exact = values.map(parseDecimal).reduce(add, ZERO);
      expect(usdOfExact(total)).toBe(usdForPeople(exact));
      expect(quantityOfExact(total, decimals)).toBe(quantityForPeople(exact, decimals));
      expect(same(quantityOfExact(total, decimals), formatFixed(exact, decimals))).toBe(true);
    }), { numRuns: 500 });
    expect(usdOfExact(null)).toBeNull();
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

type Row = IncomeReport["rows"][number];
const arbRow = fc.record({
  month: fc.integer({ min: 1, max: 12 }).map((m) => `2026-${String(m).padStart(2, "0")}`),
  symbol: fc.constantFrom("SPYx", "NVOx", "=HYPERLINK()"),
  gross: fc.option(arbDecimal, { nil: null }),
  tax: fc.option(arbDecimal, { nil: null }),
  net: fc.option(arbDecimal, { nil: null }),
}).map(({ month, symbol, gross, tax, net }): Row => {
  const shown = (v: string | null) => (v === null ? null : usdForPeople(parseDecimal(v)));
  return {
    month, symbol, events: 1, unvaluedEvents: net === null ? 1 : 0,
    grossUsd: shown(gross), withholdingTaxUsd: shown(tax), retainedUsd: "0", usd: shown(net),
    exact: { grossUsd: gross, withholdingTaxUsd: tax, retainedUsd: "0", usd: net },
  };
});
const reportOf = (rows: Row[]): IncomeReport => ({
  year: 2026, dataset: { kind: "live", description: null } as unknown as IncomeReport["dataset"], owners: ["o"], currency: null, lastEventDate: null, rows,
  totals: { events: rows.length, unvaluedEvents: 0, grossUsd: null, withholdingTaxUsd: null, retainedUsd: null, usd: null, exact: { grossUsd: null, withholdingTaxUsd: null, retainedUsd: null, usd: null } },
});

describe("the chart's months and the report's CSV, from any report", () => {
  test("a month's total is the exact sum of its rows; null only where no row of the month carries the part", () => {
    fc.assert(fc.property(fc.array(arbRow, { maxLength: 40 }), (rows) => {
      const months = monthTotals(reportOf(rows));
      expect(months.map((m) => m.month)).toEqual(Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, "0")}`));
      for (const m of months) {
        const own = rows.filter((r) => r.month === m.month);
        for (const [part, field] of [["grossUsd", "grossUsd"], ["withholdingTaxUsd", "withholdingTaxUsd"], ["usd", "usd"]] as const) {
          const known = own.map((r) => r.exact[field]).filter((v): v is string => v !== null);
          expect(m[part]).toBe(known.length === 0 ? null : formatExact(known.map(parseDecimal).reduce(add)));
        }
      }
    }), { numRuns: 300 });
  });

  test("the CSV: a row per month × symbol, then the total; the server's amounts with cents; unknown is an empty cell; formula text quoted", () => {
    const rows = fc.sample(arbRow, { numRuns: 40, seed: 3 });
    const lines = reportCsv(reportOf(rows)).split("\r\n");
    expect(lines[0]).toBe("year,month,symbol,events,grossUsd,withholdingTaxUsd,retainedUsd,usd,unvaluedEvents");
    expect(lines).toHaveLength(rows.length + 3); // header, rows, total, and the final CRLF
    const parsed = parse(lines.join("\r\n"), { columns: true }) as Record<string, string>[];
    rows.forEach((r, i) => {
      expect(parsed[i]!.usd).toBe(r.usd === null ? "" : centsText(r.usd));
      expect(parsed[i]!.grossUsd).toBe(r.grossUsd === null ? "" : centsText(r.grossUsd));
    });
    expect(lines[lines.length - 2]).toBe(`2026,total,,${rows.length},,,,,0`);
    for (const line of lines.filter((l) => l.includes("HYPERLINK"))) expect(line).toContain("'=HYPERLINK()");
  });
});

describe("on the demo ledger, with the ECB sample imported", () => {
  let server: ServerHandle;
  let key: string;
  const api = () => createClient({ baseUrl: server.url, apiKey: key });
  beforeAll(async () => {
    const dir = await demoDataDir();
    await withLedger(dir, (l) => importEcbSample(l.db));
    server = await startServer({ port: "0", host: "127.0.0.1", ...ledgerFlags(dir) }, { env: { LOG_LEVEL: "error" }, quiet: true, offline: true });
    key = (await createKey(server.ledger.db, { name: "figures", tenant: demoTenant, scopes: ["ledger:read"] })).key;
  });
  afterAll(async () => {
    await server?.stop();
    removeTempDirs();
  });

  test("the years offered cover every entry, in two reads a wallet; their reports add up to each wallet's income total", async () => {
    for (const owner of demoOwners()) {
      let asked = 0;
      const counting = createClient({ baseUrl: server.url, apiKey: key, fetch: (input, init) => { asked++; return fetch(input, init); } });
      const years = await entryYears(counting, owner);
      expect(asked).toBe(2);
      const all = await api().income(owner, { limit: 200 });
      const entryYearsSeen = [...new Set(all.entries.map((e) => Number(e.effectiveAt.slice(0, 4))))];
      for (const y of entryYearsSeen) expect(years).toContain(y);
      expect(years).toEqual([...years].sort((a, b) => b - a));
      const reports = await Promise.all(years.map((y) => api().v2.incomeReport(y, { owners: [owner] })));
      const portfolio = await api().portfolio(owner);
      expect(sumDecimals(reports.map((r) => r.totals.exact.usd)).value).toBe(formatExact(parseDecimal(portfolio.totals.exact.incomeUsd)));
      expect(reports.reduce((n, r) => n + r.totals.unvaluedEvents, 0)).toBe(portfolio.totals.unvaluedIncomeEvents);
    }
  });

  test("the chart's months add up to the report's totals exactly", async () => {
    for (const year of [2025, 2026]) {
      const report = await api().v2.incomeReport(year);
      const months = monthTotals(report);
      expect(sumDecimals(months.map((m) => m.usd)).value).toBe(report.totals.exact.usd);
      expect(sumDecimals(months.map((m) => m.grossUsd)).value).toBe(report.totals.exact.grossUsd);
      expect(sumDecimals(months.map((m) => m.withholdingTaxUsd)).value).toBe(report.totals.exact.withholdingTaxUsd);
    }
  });

  test("the CSV of the report in EUR carries the server's amounts, rate days and reasons, cell for cell", async () => {
    for (const year of [2025, 2026]) {
      const report = await api().v2.incomeReport(year, { currency: "EUR" });
      const rows = parse(reportCsv(report), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(report.rows.length + 1);
      const cell = (v: string | null) => (v === null ? "" : centsText(v));
      report.rows.forEach((r, i) => {
        const c = r.converted!;
        expect(rows[i]).toEqual({
          year: String(year), month: r.month, symbol: r.symbol ?? "", events: String(r.events),
          grossUsd: cell(r.grossUsd), withholdingTaxUsd: cell(r.withholdingTaxUsd), retainedUsd: cell(r.retainedUsd), usd: cell(r.usd), unvaluedEvents: String(r.unvaluedEvents),
          currency: "EUR", gross: cell(c.gross), withholdingTax: cell(c.withholdingTax), retained: cell(c.retained), net: cell(c.net),
          rateDates: [...new Set(c.rates.map((q) => q.rateDate))].sort().join(" "), reason: c.reason ?? "",
        });
      });
      const total = rows[rows.length - 1]!;
      expect({ month: total.month, net: total.net, reason: total.reason }).toEqual({ month: "total", net: cell(report.totals.converted!.net), reason: report.totals.converted!.reason ?? "" });
    }
    // 2025 starts before the sample: the totals say why; 2026 converts throughout.
    expect((await api().v2.incomeReport(2025, { currency: "EUR" })).totals.converted!.reason).toContain("ca-ledger rates import");
    expect((await api().v2.incomeReport(2026, { currency: "EUR" })).totals.converted!.net).not.toBeNull();
  });
});
