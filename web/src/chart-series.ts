// The chart's series: gross, withheld and net USD by month. A series shows once the report has
// a value for it (gross and withheld come with the issuer's breakdown of each dividend).
import type { IncomeReport } from "./income-report.ts";

export interface ChartSeries { field: "grossUsd" | "withholdingTaxUsd" | "usd"; label: string; color: string }

const series: ChartSeries[] = [
  { field: "grossUsd", label: "Gross", color: "#9db4d8" },
  { field: "withholdingTaxUsd", label: "Withheld", color: "#e0a458" },
  { field: "usd", label: "Net", color: "#2f6fb3" },
];

export const shownSeries = (report: IncomeReport): ChartSeries[] => series.filter((s) => report.months.some((m) => m[s.field] !== null));
