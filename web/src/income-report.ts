// The year report as the views read it: the server's answer (GET /v2/reports/income: rows per
// month × symbol, totals, and amounts in another currency with the rates used), the years and
// currencies to choose from (GET /v2/reports/currencies), and the month totals the chart draws.
// Every figure is the server's; the one thing the page adds is a month's total across symbols for
// the chart, the exact sums rounded once when shown (src/domain/display.ts).
import type { Client, IncomeReport, ReportCurrencies } from "@ca-ledger/client";
import { combineShown } from "../../src/domain/income-report.ts";

export type { IncomeReport };
export type ReportRow = IncomeReport["rows"][number];
export type ReportTotals = IncomeReport["totals"];
export type Converted = NonNullable<ReportTotals["converted"]>;
export type RateUsed = NonNullable<ReportRow["converted"]>["rates"][number];

export type ListedCurrency = ReportCurrencies["currencies"][number];

/** The currencies the imported ECB rates convert into, each with its first and last rate day. */
export const listedCurrencies = async (api: Client): Promise<ListedCurrency[]> => (await api.v2.reportCurrencies()).currencies;

/**
 * Whether a currency's rates end before the year's last event: the events after its last ECB day
 * take that day's rate (the report lists it per row) until a newer history is imported.
 */
export const ratesEndBefore = (c: ListedCurrency, lastEventDate: string | null): boolean => lastEventDate !== null && c.lastRateDate < lastEventDate;

/** What the person chose: a year, one wallet or all (null), and a currency besides USD (or none). */
export interface ReportChoice {
  year: number;
  owner: string | null;
  currency: string | null;
}

export const reportKey = (c: ReportChoice): string => `report:${c.year}:${c.owner ?? "*"}:${c.currency ?? "USD"}`;

export function loadReport(api: Client, c: ReportChoice): Promise<IncomeReport> {
  return api.v2.incomeReport(c.year, { owners: c.owner ? [c.owner] : undefined, currency: c.currency ?? undefined });
}

const yearOf = (iso: string): number => Number(iso.slice(0, 4));

/** The years from a wallet's oldest entry to its newest (the list is newest first: two reads of one entry). */
export async function entryYears(api: Client, owner: string): Promise<number[]> {
  const newest = await api.income(owner, { limit: 1 });
  if (newest.total === 0) return [];
  const oldest = newest.total === 1 ? newest : await api.income(owner, { limit: 1, offset: newest.total - 1 });
  const [first, last] = [yearOf(oldest.entries[0]!.effectiveAt), yearOf(newest.entries[0]!.effectiveAt)];
  return Array.from({ length: last - first + 1 }, (_, i) => last - i);
}

/**
 * Gross, withheld, retained and net of one month across symbols, exact, by the report's own rule
 * (src/domain/income-report.ts combineShown): over the events whose net is known, null where a
 * part is unknown (never 0).
 */
export interface MonthTotal {
  month: string;
  grossUsd: string | null;
  withholdingTaxUsd: string | null;
  retainedUsd: string | null;
  usd: string | null;
}

export function monthTotals(report: IncomeReport): MonthTotal[] {
  return Array.from({ length: 12 }, (_, i) => {
    const month = `${report.year}-${String(i + 1).padStart(2, "0")}`;
    const { grossUsd, withholdingTaxUsd, retainedUsd, usd } = combineShown(report.rows.filter((r) => r.month === month));
    return { month, grossUsd, withholdingTaxUsd, retainedUsd, usd };
  });
}

/** The ECB days a row's (or a report's) amounts were converted at, oldest first, once each. */
export function rateDays(rates: RateUsed[]): string[] {
  return [...new Set(rates.map((r) => r.rateDate))].sort();
}
