// The chart's place in the Income view; the drawing code and its library load on first use.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { shownSeries } from "../src/chart-series.ts";
import { monthTotals, type IncomeReport } from "../src/income-report.ts";
import { Failure } from "./states.tsx";

export function IncomeChart({ report }: { report: IncomeReport }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [error, setError] = useState<unknown>(null);
  const months = useMemo(() => monthTotals(report), [report]);
  useEffect(() => {
    let remove: (() => void) | null = null;
    let live = true;
    import("../src/chart.ts").then(({ drawIncomeChart }) => {
      if (live && canvas.current) remove = drawIncomeChart(canvas.current, months, shownSeries(months));
    }, setError);
    return () => {
      live = false;
      remove?.();
    };
  }, [months]);
  if (error) return <Failure error={error} what="the chart" />;
  return (
    <div class="chart-box">
      <canvas ref={canvas} id="income-chart" role="img" aria-label={`Income by month in ${report.year}: gross, withheld and net USD`} />
    </div>
  );
}
