// Income of a chosen year across the tenant's wallets: by month as a chart, then by month and
// symbol as a table with gross, withheld, retained and net USD.
import type { ComponentChildren } from "preact";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { cached } from "../src/api.ts";
import { entriesSince, reportFromEntries, yearsOf, type ReportFigures } from "../src/income-report.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { Usd } from "./amounts.tsx";
import { NoWallets } from "./Holdings.tsx";
import { shownSeries } from "../src/chart-series.ts";
import { IncomeChart } from "./IncomeChart.tsx";
import { Await, Empty } from "./states.tsx";

/** Every income entry of every wallet, read once per page life. */
export async function allIncome(ledger: Ledger) {
  const { wallets } = await walletsOf(ledger);
  const owners = wallets.map((w) => w.owner);
  const lists = await Promise.all(owners.map((owner) => cached(ledger.cache, `income:${owner}`, () => entriesSince(ledger.api, owner, 0))));
  return { owners, entries: lists.flat() };
}

/** The year in the URL, else the latest year with income, else this year. */
export function chosenYear(query: URLSearchParams, years: number[]): number {
  const asked = Number(query.get("year"));
  return Number.isInteger(asked) && asked > 1900 ? asked : years[0] ?? new Date().getUTCFullYear();
}

export function YearPicker({ years, year, view }: { years: number[]; year: number; view: "income" | "downloads" }) {
  const choices = [...new Set([...years, year])].sort((a, b) => b - a);
  return (
    <label class="inline">
      Year{" "}
      <select id="year" value={String(year)} onChange={(e) => { location.hash = href(view, null, { year: (e.target as HTMLSelectElement).value }); }}>
        {choices.map((y) => <option key={y} value={String(y)}>{y}</option>)}
      </select>
    </label>
  );
}

export function Income() {
  const ledger = useLedger();
  const route = useRoute();
  const loaded = useLoad("income:all", () => allIncome(ledger));
  return (
    <section>
      <h1>Income</h1>
      <Await loaded={loaded} what="income">
        {({ owners, entries }) => {
          if (owners.length === 0) return <NoWallets />;
          const years = yearsOf(entries);
          const year = chosenYear(route.query, years);
          const report = reportFromEntries(year, owners, entries);
          return (
            <>
              <div class="toolbar">
                <YearPicker years={years} year={year} view="income" />
                <span class="muted">{owners.length} wallet{owners.length === 1 ? "" : "s"} · <a href={href("downloads", null, { year })}>download this report</a></span>
              </div>
              <Totals totals={report.totals} />
              {report.totals.events === 0 ? (
                <Empty title={`No income in ${year}.`}>Choose another year; income appears once an issuer's dividend reaches a wallet.</Empty>
              ) : (
                <>
                  <IncomeChart report={report} />
                  {shownSeries(report).length === 1 && <p class="note">Gross and withheld amounts appear here once the ledger records the issuer's breakdown of each dividend.</p>}
                  <ReportTable rows={report.rows} />
                </>
              )}
            </>
          );
        }}
      </Await>
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
