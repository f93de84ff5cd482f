// Income by month as grouped bars (gross, withheld, net) with Chart.js on a canvas. Loaded only
// when the Income view first shows (its own file), so sign-in and the other views do not wait
// for it. Bar heights are floats for drawing only; the tooltip shows the month's exact sum
// rounded once by the ledger's rule.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import { usdOfExact, usdText } from "./format.ts";
import type { MonthTotal } from "./income-report.ts";
import type { ChartSeries } from "./chart-series.ts";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Draws the chart; returns the function that removes it. */
export function drawIncomeChart(canvas: HTMLCanvasElement, months: MonthTotal[], shown: ChartSeries[]): () => void {
  const shownAt = (month: number, s: ChartSeries) => usdOfExact(months[month]![s.field]);
  const chart = new Chart(canvas, {
    type: "bar",
    data: {
      labels: monthNames,
      datasets: shown.map((s) => ({
        label: s.label,
        backgroundColor: s.color,
        data: months.map((_, i) => Number(shownAt(i, s) ?? "0")),
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => `$${v}` } } },
      plugins: {
        legend: { position: "bottom" },
        tooltip: { callbacks: { label: (item) => `${shown[item.datasetIndex]!.label}: ${usdText(shownAt(item.dataIndex, shown[item.datasetIndex]!))}` } },
      },
    },
  });
  return () => chart.destroy();
}
