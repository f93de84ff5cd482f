// Every export of every wallet, and the year's income report, as files to save. The exports are
// links to the API's own CSV route through the session's path; the report is built from the
// same figures the Income view shows.
import type { ComponentChildren } from "preact";
import type { ExportDataset } from "@ca-ledger/client";
import { schemas } from "@ca-ledger/client";
import { apiBase } from "../src/api.ts";
import { reportCsv } from "../src/report-csv.ts";
import { YearReport } from "./YearReport.tsx";

/** The datasets the export route accepts, read from its schema: a new one appears here by itself. */
const datasets = (schemas.ExportQuery.properties.dataset.anyOf as { const: string }[]).map((l) => l.const as ExportDataset);

/** What each file holds; a dataset added to the route later shows with its name alone until described here. */
const described: Record<string, string> = {
  journal: "every journal entry: recognitions, reversals, units and USD, with evidence hashes",
  income: "every income entry with its quantity, USD and evidence hash",
};

const exportHref = (owner: string, dataset: ExportDataset) => `${apiBase}/v1/export?owner=${encodeURIComponent(owner)}&dataset=${encodeURIComponent(dataset)}`;

export function Downloads() {
  return (
    <section>
      <h1>Downloads</h1>
      <YearReport view="downloads">
        {(report, picker) => (
          <>
            <h2>Income report</h2>
            <div class="toolbar">
              {picker}
              <ObjectLink blob={new Blob([reportCsv(report)], { type: "text/csv" })} name={`ca-ledger-income-report-${report.year}.csv`} id="report-download">
                Income report {report.year} (CSV, all wallets)
              </ObjectLink>
            </div>
            <p class="muted">One row per month and symbol: events, gross, withheld, retained and net USD, events without a USD value; totals last.</p>
            <h2>Exports</h2>
            <ul class="plain">{datasets.map((d) => <li key={d}><strong>{d}</strong>{described[d] ? `: ${described[d]}` : ""}</li>)}</ul>
            <table class="data" id="exports">
              <thead><tr><th>Wallet</th>{datasets.map((d) => <th key={d}>{d}</th>)}</tr></thead>
              <tbody>
                {report.owners.map((owner) => (
                  <tr key={owner}>
                    <td><code>{owner}</code></td>
                    {datasets.map((d) => <td key={d}><a class="download" href={exportHref(owner, d)} download data-dataset={d}>{d}.csv</a></td>)}
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </YearReport>
    </section>
  );
}

/** A link to a file made in the page (an object URL, released when the link goes). */
function ObjectLink({ blob, name, id, children }: { blob: Blob; name: string; id: string; children: ComponentChildren }) {
  const url = URL.createObjectURL(blob);
  return <a class="button" id={id} href={url} download={name} ref={(el) => { if (!el) URL.revokeObjectURL(url); }}>{children}</a>;
}
