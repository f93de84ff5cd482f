// The server's year report as CSV, written by the same CSV writer as the API's exports (RFC 4180,
// CRLF, formula-looking text quoted): one row per month × symbol, then the totals. Amounts are the
// server's, rounded by it once (at most six decimals), written with at least cents; an unknown
// amount is an empty cell, never 0. Gross, withheld and retained cover the events with a net USD
// value (gross − withheld − retained = net); unvaluedGrossUsd is the gross of the others. With a
// currency, each row adds the amounts in it, the ECB days of the rates used, and why an amount is
// missing.
import { toCsv } from "../../src/http/csv.ts";
import { centsText } from "./format.ts";
import { rateDays, type Converted, type IncomeReport, type RateUsed, type ReportTotals } from "./income-report.ts";

const usdHeader = ["year", "month", "symbol", "events", "grossUsd", "withholdingTaxUsd", "retainedUsd", "usd", "unvaluedEvents", "unvaluedGrossUsd"];
const convertedHeader = ["currency", "gross", "withholdingTax", "retained", "net", "unvaluedGross", "rateDates", "reason"];

const amount = (v: string | null) => (v === null ? null : centsText(v));
const usdCells = (f: ReportTotals) => [f.events, amount(f.grossUsd), amount(f.withholdingTaxUsd), amount(f.retainedUsd), amount(f.usd), f.unvaluedEvents, amount(f.unvaluedGrossUsd)];
const convertedCells = (c: Converted | undefined, rates: RateUsed[]) =>
  c ? [c.currency, amount(c.gross), amount(c.withholdingTax), amount(c.retained), amount(c.net), amount(c.unvaluedGross), rateDays(rates).join(" "), c.reason] : [];

export function reportCsv(report: IncomeReport): string {
  const header = report.currency ? [...usdHeader, ...convertedHeader] : usdHeader;
  const allRates = report.rows.flatMap((r) => r.converted?.rates ?? []);
  const rows = report.rows.map((r) => [report.year, r.month, r.symbol, ...usdCells(r), ...convertedCells(r.converted, r.converted?.rates ?? [])]);
  const total = [report.year, "total", null, ...usdCells(report.totals), ...convertedCells(report.totals.converted, allRates)];
  return toCsv(header, [...rows, total]);
}
