// The chart's series: gross, withheld and net USD by month, from the server's year report. A
// series shows once the report has a value for it in some month.
import type { MonthTotal } from "./income-report.ts";

export interface ChartSeries {
  field: "grossUsd" | "withholdingTaxUsd" | "usd";
  label: string;
  color: string;
}

export const chartSeries: ChartSeries[] = [
  { field: "grossUsd", label: "Gross", color: "#9db4d8" },
  { field: "withholdingTaxUsd", label: "Withheld", color: "#e0a458" },
  { field: "usd", label: "Net", color: "#2f6fb3" },
];

export const shownSeries = (months: MonthTotal[]): ChartSeries[] => chartSeries.filter((s) => months.some((m) => m[s.field] !== null));
