// The currencies the year report can be given in agree with what it converts. Generated ECB
// history files (any currencies, days and N/A gaps, the dollar's included) are read by the real
// parser and imported into a real ledger (SQLite, or PostgreSQL with CA_LEDGER_TEST_ENGINE); then:
// - the list is exactly each currency quoted on a day the dollar is, and EUR when the dollar is
//   quoted at all, with the first and last such day (a model computed here from the file);
// - every listed currency converts an event on every day from its first rate day on (after its
//   last, at the last day's rate), and a report of events on those days misses no rate;
// - a currency not listed converts no event on any day, nor does a listed one before its first day.
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dayAfter } from "../../src/domain/date-range.ts";
import { incomeReport, reportForPeople, type IncomeEntry } from "../../src/domain/income-report.ts";
import { parseEcbHistory } from "../../src/domain/reference-rates.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { conversionTo, importRates, reportCurrencies, type ReportCurrency } from "../../src/ledger/reference-rates.ts";
import { ledgerTarget } from "../support/engine.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OTHERS = ["GBP", "CHF", "JPY", "BGN"];
const START = Date.UTC(2026, 0, 1);
const dayOf = (offset: number) => new Date(START + offset * 86_400_000).toISOString().slice(0, 10);

interface File {
  currencies: string[];
  days: { date: string; cells: (string | null)[] }[];
}

/** A history file: USD and some other columns, a few days in any order of offsets, N/A anywhere. */
const files: fc.Arbitrary<File> = fc
  .record({
    others: fc.subarray(OTHERS),
    offsets: fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 10 }),
  })
  .chain(({ others, offsets }) => {
    const currencies = ["USD", ...others];
    const rate = fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 4 })).map(([n, p]) => (n / 10 ** p).toFixed(p));
    const cells = fc.array(fc.option(rate, { nil: null, freq: 3 }), { minLength: currencies.length, maxLength: currencies.length });
    return fc.tuple(...offsets.map(() => cells)).map((rows) => ({
      currencies,
      days: offsets.sort((a, b) => b - a).map((o, i) => ({ date: dayOf(o), cells: rows[i]! })), // newest first, as the ECB writes it
    }));
  });

/** The ECB's own layout: a header `Date,USD,…,` and every line ending with a comma. */
const csvOf = (f: File) => [["Date", ...f.currencies, ""].join(","), ...f.days.map((d) => [d.date, ...d.cells.map((c) => c ?? "N/A"), ""].join(","))].join("\n") + "\n";

/** The model: each currency's days quoted together with the dollar (the dollar's own days are EUR's). */
function expectedList(f: File): ReportCurrency[] {
  const usd = f.currencies.indexOf("USD");
  return f.currencies
    .flatMap((code, col) => {
      const days = f.days
        .filter((d) => d.cells[col] !== null && d.cells[usd] !== null)
        .map((d) => d.date)
        .sort();
      return days.length ? [{ currency: code === "USD" ? "EUR" : code, firstRateDate: days[0]!, lastRateDate: days[days.length - 1]! }] : [];
    })
    .sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

const calendar = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = from; d <= to; d = dayAfter(d)) out.push(d);
  return out;
};
const eventOn = (day: string): IncomeEntry => ({
  entryType: "recognition",
  effectiveAt: `${day}T14:30:00.000Z`,
  symbol: "SPYx",
  usd: "12.5",
  grossUsd: "12.5",
  withholdingTaxUsd: null,
  retainedUsd: null,
});

describe("the listed currencies and the conversions agree", () => {
  test("property: exactly the currencies (and days) a report converts", async () => {
    await fc.assert(
      fc.asyncProperty(files, async (file) => {
        const dir = mkdtempSync(join(tmpdir(), "cal-currencies-"));
        dirs.push(dir);
        const ledger = await openLedger(ledgerTarget(dir));
        try {
          await importRates(ledger.db, parseEcbHistory(csvOf(file), dayOf(30)));
          const listed = await reportCurrencies(ledger.db);
          expect(listed).toEqual(expectedList(file));

          const days = calendar(dayOf(-2), dayOf(33));
          for (const currency of ["EUR", ...OTHERS]) {
            const conversion = await conversionTo(ledger.db, currency, days);
            const entry = listed.find((c) => c.currency === currency);
            for (const day of days) {
              const quote = conversion.quoteOn(day);
              if (!entry || day < entry.firstRateDate) {
                expect({ currency, day, quote }).toEqual({ currency, day, quote: null });
                continue;
              }
              expect({ currency, day, converts: quote !== null }).toEqual({ currency, day, converts: true });
              if (day >= entry.lastRateDate) expect(quote!.rateDate).toBe(entry.lastRateDate);
            }
            if (!entry) continue;
            // A report of an event on each listed day misses no rate.
            const listedDays = calendar(entry.firstRateDate, entry.lastRateDate);
            const converted = reportForPeople(incomeReport(listedDays.map(eventOn), conversion)).totals.converted!;
            expect({ currency, reason: converted.reason, net: converted.net !== null }).toEqual({ currency, reason: null, net: true });
          }
        } finally {
          await ledger.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
