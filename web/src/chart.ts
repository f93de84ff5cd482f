// Income by month as grouped bars (gross, withheld, net) with Chart.js on a canvas. Loaded only
// when the Income view first shows (its own file), so sign-in and the other views do not wait
// for it. Bar heights are floats for drawing only; the tooltip shows the month's exact sums in
// cents by the ledger's rule (its breakdown adds up), and a part that is unknown draws no bar and
// reads "unknown", never $0.00.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import { breakdownCents, dollarsText, type Parts } from "./format.ts";
import type { MonthTotal } from "./income-report.ts";
import type { ChartSeries } from "./chart-series.ts";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const partOf = { grossUsd: "gross", withholdingTaxUsd: "withheld", usd: "net" } as const satisfies Record<ChartSeries["field"], keyof Parts>;

/** Draws the chart; returns the function that removes it. */
export function drawIncomeChart(canvas: HTMLCanvasElement, months: MonthTotal[], shown: ChartSeries[]): () => void {
  const inCents = months.map((m) => breakdownCents({ gross: m.grossUsd, withheld: m.withholdingTaxUsd, retained: m.retainedUsd, net: m.usd }));
  const unknownIn = (month: number) => shown.filter((s) => months[month]![s.field] === null).map((s) => `${s.label}: unknown`);
  const chart = new Chart(canvas, {
    type: "bar",
    data: {
      labels: monthNames,
      datasets: shown.map((s) => ({
        label: s.label,
        backgroundColor: s.color,
        data: months.map((m) => (m[s.field] === null ? null : Number(m[s.field]))),
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => `$${v}` } } },
      plugins: {
        legend: { position: "bottom" },
        tooltip: {
          callbacks: {
            label: (item) => {
              const s = shown[item.datasetIndex]!;
              return `${s.label}: ${dollarsText(inCents[item.dataIndex]![partOf[s.field]])}`;
            },
            footer: (items) => (items[0] ? unknownIn(items[0].dataIndex) : []),
          },
        },
      },
    },
  });
  return () => chart.destroy();
}
