// The year report as CSV, written by the same CSV writer as the API's exports (RFC 4180, CRLF,
// formula-looking text quoted): one row per month × symbol, then the totals. USD cells follow the
// display rule; an unknown amount is an empty cell, never 0.
import { toCsv } from "../../src/http/csv.ts";
import { usdDigits } from "./format.ts";
import type { IncomeReport, ReportFigures } from "./income-report.ts";

const header = ["year", "month", "symbol", "events", "grossUsd", "withholdingTaxUsd", "retainedUsd", "usd", "unvaluedEvents"];

const usdCell = (v: string | null) => (v === null ? null : usdDigits(v));
const amounts = (f: ReportFigures) => [f.events, usdCell(f.grossUsd), usdCell(f.withholdingTaxUsd), usdCell(f.retainedUsd), usdCell(f.usd), f.unvaluedEvents];

export function reportCsv(report: IncomeReport): string {
  return toCsv(header, [...report.rows.map((r) => [report.year, r.month, r.symbol, ...amounts(r)]), [report.year, "total", null, ...amounts(report.totals)]]);
}
