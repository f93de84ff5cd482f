// Files to save for the chosen year: the year report from the server (as the server's JSON, or
// as CSV written from that answer), and every export of every wallet, each a link to the API's
// own CSV route through the session's path, filtered to the year.
import { Fragment, type ComponentChildren } from "preact";
import type { ExportDataset } from "@ca-ledger/client";
import { schemas } from "@ca-ledger/client";
import { apiBase } from "../src/api.ts";
import { useLedger } from "../src/context.ts";
import type { IncomeReport, ReportChoice } from "../src/income-report.ts";
import { reportCsv } from "../src/report-csv.ts";
import { YearReport } from "./YearReport.tsx";

/** The datasets the export route accepts, read from its schema. */
const datasets = schemas.exportDatasets;

/** What each file is for, and which tool imports it; the type makes a new dataset fail the type check until described. */
const described: Record<ExportDataset, string> = {
  journal: "The append-only journal: every recognition and reversal with units, USD and evidence hashes. For an accountant or an audit trail.",
  income: "Every entry (dividends, splits, other changes) with quantity and the income breakdown: gross, withholding tax, retention, net USD.",
  tax: "One row per income event with every figure, the ISIN, the transaction signature and evidence hash, and why a value is missing. For your own return or an adviser.",
  koinly: "Income rows in Koinly's universal import template (label income, net worth in USD). Import it into Koinly.",
  cointracker: "Income rows in CoinTracker's CSV import format (tag interest; CoinTracker prices each receipt). Import it into CoinTracker.",
  coinledger: "Income rows in CoinLedger's universal manual import template (type Income). Import it into CoinLedger.",
  awaken: "Income rows in Awaken Tax's standard CSV (tag rewards_income, fiat amount in USD). Import it into Awaken.",
  gains: "Realized gains in IRS Form 8949's columns (description, dates acquired and sold, proceeds, basis, gain or loss, term), one row per sale × lot.",
  lots: "The lots open at the end of the year: units, cost basis, acquisition date and where each came from.",
};

/** The report's own answer from the server, as a link the browser saves (the server's JSON, byte for byte). */
function reportJsonHref(c: ReportChoice): string {
  const q = new URLSearchParams({ year: String(c.year) });
  if (c.owner) q.set("owner", c.owner);
  if (c.currency) q.set("currency", c.currency);
  return `${apiBase}/v2/reports/income?${q}`;
}

const reportName = (report: IncomeReport, c: ReportChoice, ext: string) =>
  `ca-ledger-income-report-${report.year}${c.owner ? "-" + c.owner.slice(0, 8) : ""}${c.currency ? "-" + c.currency : ""}.${ext}`;

export function Downloads() {
  return (
    <section>
      <h1>Downloads</h1>
      <YearReport view="downloads">
        {(report, choice, owners) => (
          <>
            <h2>Year report {report.year}</h2>
            <div class="toolbar">
              <ObjectLink blob={new Blob([reportCsv(report)], { type: "text/csv" })} name={reportName(report, choice, "csv")} id="report-download">
                Income report {report.year} (CSV, {choice.owner ? "one wallet" : "all wallets"}
                {report.currency ? `, USD and ${report.currency}` : ""})
              </ObjectLink>
              <a class="button secondary" id="report-json-download" href={reportJsonHref(choice)} download={reportName(report, choice, "json")}>
                The same as JSON
              </a>
            </div>
            <p class="muted">
              The ledger's year report: one row per month and symbol with events, gross, withheld, retained and net USD of the events with a net USD value (gross − withheld − retained = net), then the
              events without one and their gross, then the totals{report.currency ? `; with each amount in ${report.currency}, the ECB rate days used and why an amount is missing` : ""}. The CSV is
              written from the server's answer (amounts as the server rounded them); the JSON is that answer, with the exact sums.
            </p>
            <Exports year={report.year} owners={choice.owner ? [choice.owner] : owners} />
          </>
        )}
      </YearReport>
    </section>
  );
}

function Exports({ year, owners }: { year: number; owners: string[] }) {
  const ledger = useLedger();
  return (
    <>
      <h2>Exports for {year}, per wallet</h2>
      <dl class="facts datasets" id="datasets">
        {datasets.map((d) => (
          <Fragment key={d}>
            <dt>
              <strong>{d}</strong>
            </dt>
            <dd>{described[d]}</dd>
          </Fragment>
        ))}
      </dl>
      <table class="data" id="exports">
        <thead>
          <tr>
            <th>Wallet</th>
            {datasets.map((d) => (
              <th key={d}>{d}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {owners.map((owner) => (
            <tr key={owner}>
              <td>
                <code title={owner}>{owner}</code>
              </td>
              {datasets.map((d) => (
                <td key={d}>
                  <a class="download" href={ledger.api.exportUrl(owner, d, { year })} download data-dataset={d} title={described[d]}>
                    {d}.csv
                  </a>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">Each file covers effective dates in {year} (UTC). The tax tools' files hold income rows only: a split or spin-off would import as a trade.</p>
    </>
  );
}

/** A link to a file made in the page (an object URL, released when the link goes). */
function ObjectLink({ blob, name, id, children }: { blob: Blob; name: string; id: string; children: ComponentChildren }) {
  const url = URL.createObjectURL(blob);
  return (
    <a
      class="button"
      id={id}
      href={url}
      download={name}
      ref={(el) => {
        if (!el) URL.revokeObjectURL(url);
      }}
    >
      {children}
    </a>
  );
}
