// Income of a chosen year, read from the server's year report: the totals (gross, withheld,
// retained, net USD), the months as a chart, each month × symbol as a table, and with a currency
// chosen the same amounts in it with the ECB rate days used, or why a rate is missing.
import type { ComponentChildren } from "preact";
import { breakdownCents, type Parts } from "../src/format.ts";
import { rateDays, type Converted, type IncomeReport, type RateUsed, type ReportRow, type ReportTotals } from "../src/income-report.ts";
import { Money, Usd } from "./amounts.tsx";
import { IncomeChart } from "./IncomeChart.tsx";
import { Empty } from "./states.tsx";
import { choiceHref, YearReport } from "./YearReport.tsx";

export function Income() {
  return (
    <section>
      <h1>Income</h1>
      <YearReport
        view="income"
        extra={(choice) => (
          <a id="to-downloads" href={choiceHref("downloads", choice)}>
            Download this report
          </a>
        )}
      >
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
                  Summed by the ledger from its journal, shown to the cent (hover for the exact sum); rows need not add up to the totals to the cent. Gross, withheld and retained cover the events with
                  a net USD value, so gross − withheld − retained = net; the gross of the others is shown apart. Withheld is tax only (a refund counts negative); retained is what the issuer kept back
                  for currency or fees.
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
  { field: "grossUsd", label: "Gross", converted: "gross", part: "gross" },
  { field: "withholdingTaxUsd", label: "Withheld", converted: "withholdingTax", part: "withheld" },
  { field: "retainedUsd", label: "Retained", converted: "retained", part: "retained" },
  { field: "usd", label: "Net", converted: "net", part: "net" },
] as const;
type Tally = Pick<ReportTotals, "events" | "unvaluedEvents">;

/** A breakdown in cents that adds up as shown (src/domain/display.ts). */
const usdCents = (t: ReportTotals | ReportRow): Parts => breakdownCents({ gross: t.exact.grossUsd, withheld: t.exact.withholdingTaxUsd, retained: t.exact.retainedUsd, net: t.exact.usd });
const convertedCents = (c: Converted): Parts => breakdownCents({ gross: c.exact.gross, withheld: c.exact.withholdingTax, retained: c.exact.retained, net: c.exact.net });

/** Net first: the figure a person looks for. */
const cardOrder = [parts[3], parts[0], parts[1], parts[2]];

/** Why a part of a row or of the totals is unknown: it is never 0. */
function unknownWhy(t: Tally, label: string): string {
  if (t.events - t.unvaluedEvents <= 0) return `Unknown: no event here has a net USD value (their gross is under "Gross without net"); not 0`;
  return `Unknown: an event here with a net USD value has no ${label.toLowerCase()} figure (its action's warnings say why: the issuer did not split what it kept back); not 0`;
}

/**
 * One part of a row: gross, withheld and retained cover the events with a net USD value, so a row
 * with none shows "—" for them (its gross is under "Gross without net") and "unknown" for its net.
 */
function Part({ t, part, children }: { t: Tally; part: (typeof parts)[number]; children: ComponentChildren }) {
  if (t.events - t.unvaluedEvents <= 0 && part.part !== "net") {
    return (
      <span class="muted" title={`No event here has a net USD value: ${part.label.toLowerCase()} covers only those (their gross is under "Gross without net")`}>
        —
      </span>
    );
  }
  return <>{children}</>;
}

function Card({ label, figure, children }: { label: string; figure: string; children: ComponentChildren }) {
  return (
    <div class="card" data-figure={figure}>
      <div class="card-label">{label}</div>
      <div class="card-value">{children}</div>
    </div>
  );
}

function Totals({ totals }: { totals: ReportTotals }) {
  const shown = usdCents(totals);
  return (
    <div class="cards" id="report-totals">
      {cardOrder.map((p) => (
        <Card key={p.field} label={p.field === "usd" ? "Net income" : p.label} figure={p.field}>
          <Usd exact={totals.exact[p.field]} shown={shown[p.part]} why={unknownWhy(totals, p.label)} />
        </Card>
      ))}
      <Card label="Income events" figure="events">
        {String(totals.events)}
      </Card>
      <Card label="Events without a USD value" figure="unvaluedEvents">
        {String(totals.unvaluedEvents)}
      </Card>
      {totals.unvaluedEvents !== 0 && (
        <Card label="Their gross (not in the gross above)" figure="unvaluedGrossUsd">
          <Usd exact={totals.exact.unvaluedGrossUsd} why="Unknown: an event without a net USD value has no gross either; not 0" />
        </Card>
      )}
    </div>
  );
}

/** "2026-01-09", or "2025-12-05 to 2026-01-09 (3 ECB days)". */
function daysText(days: string[]): string {
  if (days.length <= 1) return days[0] ?? "—";
  return `${days[0]} to ${days[days.length - 1]} (${days.length} ECB days)`;
}

function ConvertedTotals({ converted: c, rates }: { converted: Converted; rates: RateUsed[] }) {
  const shown = convertedCents(c);
  return (
    <>
      <h2>In {c.currency}</h2>
      {c.reason && (
        <p class="note" id="rate-missing">
          {c.reason}
        </p>
      )}
      <div class="cards" id="converted-totals">
        {cardOrder.map((p) => (
          <Card key={p.converted} label={`${p.label} in ${c.currency}`} figure={p.converted}>
            <Money value={c[p.converted]} currency={c.currency} exact={c.exact[p.converted]} shown={shown[p.part]} reason={c.reason} />
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
          <th>Month</th>
          <th>Symbol</th>
          <th class="r">Events</th>
          {parts.map((p) => (
            <th key={p.field} class="r">
              {p.label}
            </th>
          ))}
          <th class="r">Without USD</th>
          <th class="r" title="The gross of the events without a net USD value, which the gross beside it leaves out">
            Gross without net
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const shown = usdCents(r);
          return (
            <tr key={r.month + r.symbol}>
              <td class="nowrap">{r.month}</td>
              <td>{r.symbol}</td>
              <td class="r">{r.events}</td>
              {parts.map((p) => (
                <td key={p.field} class="r">
                  <Part t={r} part={p}>
                    <Usd exact={r.exact[p.field]} shown={shown[p.part]} why={unknownWhy(r, p.label)} />
                  </Part>
                </td>
              ))}
              <td class="r">{r.unvaluedEvents || ""}</td>
              <td class="r">{r.unvaluedEvents !== 0 && <Usd exact={r.exact.unvaluedGrossUsd} why="Unknown: an event without a net USD value has no gross either; not 0" />}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A row's rate days; where the event's own day had no rate, which earlier day was used. */
function RateDays({ rates }: { rates: RateUsed[] }) {
  if (rates.length === 0) return <span class="muted">—</span>;
  const title = rates.map((q) => `${q.eventDate}: ECB ${q.rateDate}, ${q.usdPerEur} USD per EUR, ${q.rate} per USD`).join("\n");
  return (
    <span title={title}>
      {rateDays(rates).join(", ")}
      {rates.some((q) => q.rateDate !== q.eventDate) && <span class="muted"> (latest earlier day)</span>}
    </span>
  );
}

function ConvertedTable({ report }: { report: IncomeReport }) {
  const currency = report.currency!;
  return (
    <>
      <h2>By month and symbol in {currency}</h2>
      <table class="data" id="income-report-converted">
        <thead>
          <tr>
            <th>Month</th>
            <th>Symbol</th>
            {parts.map((p) => (
              <th key={p.field} class="r">
                {p.label}
              </th>
            ))}
            <th>ECB rate day</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r) => {
            const shown = r.converted ? convertedCents(r.converted) : null;
            return (
              <tr key={r.month + r.symbol}>
                <td class="nowrap">{r.month}</td>
                <td>{r.symbol}</td>
                {parts.map((p) => (
                  <td key={p.field} class="r">
                    <Part t={r} part={p}>
                      <Money
                        value={r.converted?.[p.converted] ?? null}
                        currency={currency}
                        exact={r.converted?.exact[p.converted]}
                        shown={shown?.[p.part]}
                        reason={r.converted?.reason}
                        why={unknownWhy(r, p.label)}
                      />
                    </Part>
                  </td>
                ))}
                <td>{r.converted?.reason ? <span class="muted small">{r.converted.reason}</span> : <RateDays rates={r.converted?.rates ?? []} />}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
