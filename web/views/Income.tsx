// Income of a chosen year across the tenant's wallets: by month as a chart, then by month and
// symbol as a table with gross, withheld, retained and net USD.
import type { ComponentChildren } from "preact";
import { shownSeries } from "../src/chart-series.ts";
import type { ReportFigures } from "../src/income-report.ts";
import { href } from "../src/route.ts";
import { Usd } from "./amounts.tsx";
import { IncomeChart } from "./IncomeChart.tsx";
import { Empty } from "./states.tsx";
import { YearReport } from "./YearReport.tsx";

export function Income() {
  return (
    <section>
      <h1>Income</h1>
      <YearReport view="income">
        {(report, picker) => (
          <>
            <div class="toolbar">
              {picker}
              <span class="muted">{report.owners.length} wallet{report.owners.length === 1 ? "" : "s"} · <a href={href("downloads", null, { year: report.year })}>download this report</a></span>
            </div>
            <Totals totals={report.totals} />
            {report.totals.events === 0 ? (
              <Empty title={`No income in ${report.year}.`}>Choose another year; income appears once an issuer's dividend reaches a wallet.</Empty>
            ) : (
              <>
                <IncomeChart report={report} />
                {shownSeries(report).length === 1 && <p class="note">Gross and withheld amounts appear here once the ledger records the issuer's breakdown of each dividend.</p>}
                <ReportTable rows={report.rows} />
              </>
            )}
          </>
        )}
      </YearReport>
    </section>
  );
}

/** The breakdown amounts the report has any value for (all three arrive with the issuer's breakdown). */
type Part = "grossUsd" | "withholdingTaxUsd" | "retainedUsd";
const parts: { field: Part; label: string }[] = [
  { field: "grossUsd", label: "Gross" },
  { field: "withholdingTaxUsd", label: "Withheld" },
  { field: "retainedUsd", label: "Retained" },
];
const knownParts = (rows: ReportFigures[]) => parts.filter((p) => rows.some((r) => r[p.field] !== null));

function Totals({ totals }: { totals: ReportFigures }) {
  const item = (label: string, value: ComponentChildren) => <div class="card" key={label}><div class="card-label">{label}</div><div class="card-value">{value}</div></div>;
  return (
    <div class="cards">
      {item("Net income", <Usd value={totals.usd} />)}
      {knownParts([totals]).map((p) => item(p.label, <Usd value={totals[p.field]} />))}
      {item("Income events", String(totals.events))}
      {item("Events without a USD value", String(totals.unvaluedEvents))}
    </div>
  );
}

function ReportTable({ rows }: { rows: ({ month: string; symbol: string } & ReportFigures)[] }) {
  const shown = knownParts(rows);
  return (
    <table class="data" id="income-report">
      <thead>
        <tr>
          <th>Month</th><th>Symbol</th><th class="r">Events</th>
          {shown.map((p) => <th key={p.field} class="r">{p.label}</th>)}
          <th class="r">Net</th><th class="r">Without USD</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.month + r.symbol}>
            <td>{r.month}</td><td>{r.symbol}</td><td class="r">{r.events}</td>
            {shown.map((p) => <td key={p.field} class="r"><Usd value={r[p.field]} /></td>)}
            <td class="r"><Usd value={r.usd} /></td><td class="r">{r.unvaluedEvents || ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
