// Income of a chosen year, read from the server's year report: the totals (gross, withheld,
// retained, net USD), the months as a chart, each month × symbol as a table, and with a currency
// chosen the same amounts in it with the ECB rate days used, or why a rate is missing.
import type { ComponentChildren } from "preact";
import { rateDays, type Converted, type IncomeReport, type RateUsed, type ReportRow, type ReportTotals } from "../src/income-report.ts";
import { Money, Usd } from "./amounts.tsx";
import { IncomeChart } from "./IncomeChart.tsx";
import { Empty } from "./states.tsx";
import { choiceHref, YearReport } from "./YearReport.tsx";

export function Income() {
  return (
    <section>
      <h1>Income</h1>
      <YearReport view="income" extra={(choice) => <a id="to-downloads" href={choiceHref("downloads", choice)}>Download this report</a>}>
        {(report) => (
          <>
            <Totals totals={report.totals} />
            {report.totals.converted && <ConvertedTotals converted={report.totals.converted} rates={report.rows.flatMap((r) => r.converted?.rates ?? [])} />}
            {report.totals.events === 0 ? (
              <Empty title={`No income in ${report.year}.`}>Choose another year; income appears once an issuer's dividend reaches a wallet.</Empty>
            ) : (
              <>
                <IncomeChart report={report} />
                <ReportTable rows={report.rows} />
                {report.currency && <ConvertedTable report={report} />}
                <p class="muted small">
                  Summed by the ledger from its journal: each figure is the exact sum, rounded once (half-even, at most six decimals), so rows need not add up to the
                  totals to the last digit. Withheld is tax only (a refund counts negative); retained is what the issuer kept back for currency or fees.
                </p>
              </>
            )}
          </>
        )}
      </YearReport>
    </section>
  );
}

const parts = [
  { field: "grossUsd", label: "Gross", converted: "gross" },
  { field: "withholdingTaxUsd", label: "Withheld", converted: "withholdingTax" },
  { field: "retainedUsd", label: "Retained", converted: "retained" },
  { field: "usd", label: "Net", converted: "net" },
] as const;
/** Net first: the figure a person looks for. */
const cardOrder = [parts[3], parts[0], parts[1], parts[2]];

function Card({ label, figure, children }: { label: string; figure: string; children: ComponentChildren }) {
  return <div class="card" data-figure={figure}><div class="card-label">{label}</div><div class="card-value">{children}</div></div>;
}

function Totals({ totals }: { totals: ReportTotals }) {
  return (
    <div class="cards" id="report-totals">
      {cardOrder.map((p) => <Card key={p.field} label={p.field === "usd" ? "Net income" : p.label} figure={p.field}><Usd value={totals[p.field]} exact={totals.exact[p.field]} /></Card>)}
      <Card label="Income events" figure="events">{String(totals.events)}</Card>
      <Card label="Events without a USD value" figure="unvaluedEvents">{String(totals.unvaluedEvents)}</Card>
    </div>
  );
}

/** "2026-01-09", or "2025-12-05 to 2026-01-09 (3 ECB days)". */
function daysText(days: string[]): string {
  if (days.length <= 1) return days[0] ?? "—";
  return `${days[0]} to ${days[days.length - 1]} (${days.length} ECB days)`;
}

function ConvertedTotals({ converted: c, rates }: { converted: Converted; rates: RateUsed[] }) {
  return (
    <>
      <h2>In {c.currency}</h2>
      {c.reason && <p class="note" id="rate-missing">{c.reason}</p>}
      <div class="cards" id="converted-totals">
        {cardOrder.map((p) => (
          <Card key={p.converted} label={`${p.label} in ${c.currency}`} figure={p.converted}>
            <Money value={c[p.converted]} currency={c.currency} exact={c.exact[p.converted]} reason={c.reason} />
          </Card>
        ))}
      </div>
      <p class="muted" id="rate-days">
        Each event at the ECB reference rate of its day, else the latest earlier ECB day. Rates used: {daysText(rateDays(rates))}.
      </p>
    </>
  );
}

function ReportTable({ rows }: { rows: ReportRow[] }) {
  return (
    <table class="data" id="income-report">
      <thead>
        <tr>
          <th>Month</th><th>Symbol</th><th class="r">Events</th>
          {parts.map((p) => <th key={p.field} class="r">{p.label}</th>)}
          <th class="r">Without USD</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.month + r.symbol}>
            <td class="nowrap">{r.month}</td><td>{r.symbol}</td><td class="r">{r.events}</td>
            {parts.map((p) => <td key={p.field} class="r"><Usd value={r[p.field]} exact={r.exact[p.field]} /></td>)}
            <td class="r">{r.unvaluedEvents || ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A row's rate days; where the event's own day had no rate, which earlier day was used. */
function RateDays({ rates }: { rates: RateUsed[] }) {
  if (rates.length === 0) return <span class="muted">—</span>;
  const title = rates.map((q) => `${q.eventDate}: ECB ${q.rateDate}, ${q.usdPerEur} USD per EUR, ${q.rate} per USD`).join("\n");
  return <span title={title}>{rateDays(rates).join(", ")}{rates.some((q) => q.rateDate !== q.eventDate) && <span class="muted"> (latest earlier day)</span>}</span>;
}

function ConvertedTable({ report }: { report: IncomeReport }) {
  const currency = report.currency!;
  return (
    <>
      <h2>By month and symbol in {currency}</h2>
      <table class="data" id="income-report-converted">
        <thead>
          <tr><th>Month</th><th>Symbol</th>{parts.map((p) => <th key={p.field} class="r">{p.label}</th>)}<th>ECB rate day</th></tr>
        </thead>
        <tbody>
          {report.rows.map((r) => (
            <tr key={r.month + r.symbol}>
              <td class="nowrap">{r.month}</td><td>{r.symbol}</td>
              {parts.map((p) => <td key={p.field} class="r"><Money value={r.converted?.[p.converted] ?? null} currency={currency} exact={r.converted?.exact[p.converted]} reason={r.converted?.reason} /></td>)}
              <td>{r.converted?.reason ? <span class="muted small">{r.converted.reason}</span> : <RateDays rates={r.converted?.rates ?? []} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
