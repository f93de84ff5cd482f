// The CSV exports of /v1/export (docs/api.md#csv-exports): the journal, the v1 income entries, and the
// tax exports (src/domain/tax-exports.ts), each within the request's date range. Every dataset but
// the four tax tools' templates starts with a `dataset` column holding the ledger's label.
import { ALL_DATES, type DateRange } from "../domain/date-range.ts";
import { GAINS_COLUMNS, gainsExportRows, LOTS_COLUMNS, lotsExportRows } from "../domain/lots/exports.ts";
import { type LotReportRequest, tenantLotReport } from "../ledger/read/lot-report.ts";
import type { TaxTreatment } from "../domain/lots/types.ts";
import { deferredTaxEvent, isToolTemplate, TAX_FORMATS, type TaxDataset } from "../domain/tax-exports.ts";
import { actionQueries } from "../ledger/queries/actions.ts";
import { journalQueries } from "../ledger/queries/journal.ts";
import { taxEventQueries } from "../ledger/queries/tax-events.ts";
import type { Sql } from "../ledger/sql/port.ts";
import type { exportDatasets } from "../../schemas/v1/ledger.ts";
import { toCsv } from "./csv.ts";
import { ApiFailure } from "./errors.ts";

export const maxExportRows = 100_000;
export type ExportDataset = (typeof exportDatasets)[number];

const journalColumns = [
  "id",
  "owner",
  "actionId",
  "entryType",
  "reversesId",
  "mint",
  "symbol",
  "kind",
  "unitsDelta",
  "principalUnitsDelta",
  "incomeUnits",
  "usd",
  "effectiveAt",
  "changeReason",
  "evidenceSha256",
  "createdAt",
] as const;
// Amounts as the income entries show them (rounded for people); the breakdown follows net `usd`.
const incomeColumns = [
  "id",
  "owner",
  "mint",
  "symbol",
  "kind",
  "splitFactor",
  "effectiveAt",
  "quantityDisplay",
  "incomeUnits",
  "usd",
  "grossUsd",
  "withholdingTaxRate",
  "withholdingTaxUsd",
  "retentionRate",
  "retainedUsd",
  "headline",
  "evidenceSha256",
] as const;

export function exporter(db: Sql) {
  const actions = actionQueries(db);
  const journal = journalQueries(db);
  const taxEvents = taxEventQueries(db);

  /** The CSV text of one dataset for one wallet; refuses more than maxExportRows rows. */
  return async (dataset: ExportDataset, owner: string, range: DateRange, label: string, treatment: TaxTreatment = "income"): Promise<string> => {
    if (dataset === "journal") {
      const rows = await journal.all(owner, maxExportRows, range);
      if (rows.length > maxExportRows) throw tooLarge();
      return toCsv(
        ["dataset", ...journalColumns],
        rows.map((r) => [label, ...journalColumns.map((c) => r[c])]),
      );
    }
    if (dataset === "income") {
      const page = await actions.incomeList(owner, { limit: maxExportRows + 1, offset: 0 }, range);
      if (page.entries.length > maxExportRows) throw tooLarge();
      return toCsv(
        ["dataset", ...incomeColumns],
        page.entries.map((e: Record<string, unknown>) => [label, ...incomeColumns.map((c) => e[c])]),
      );
    }
    const format = TAX_FORMATS[dataset as TaxDataset];
    // Under `deferred` nothing is income: the tools' templates (income rows only) are empty, `tax` keeps the withholding as information.
    if (treatment === "deferred" && isToolTemplate(dataset as TaxDataset)) return toCsv([...format.header], []);
    const events = await taxEvents(owner, range, maxExportRows + 1);
    if (events.length > maxExportRows) throw tooLarge();
    const rows = events.map((e) => format.row(treatment === "deferred" ? deferredTaxEvent(e) : e));
    if (isToolTemplate(dataset as TaxDataset)) return toCsv([...format.header], rows);
    return toCsv(
      ["dataset", ...format.header],
      rows.map((r) => [label, ...r]),
    );
  };
}

function tooLarge() {
  return new ApiFailure("export_too_large", `The export is over ${maxExportRows} rows; page through /v1/journal or /v1/income with limit and offset, or export a shorter period with from and to.`);
}

/** The two exports of the lots (docs/lots.md#exports): `gains` and `lots`. */
export const LOT_DATASETS = ["gains", "lots"] as const;
export const isLotDataset = (d: ExportDataset): d is (typeof LOT_DATASETS)[number] => (LOT_DATASETS as readonly string[]).includes(d);

/**
 * The CSV of `gains` (the disposals inside the range, Form 8949's columns) or `lots` (open at the
 * end of the range's last day, else today) for one wallet, the tenant derived under the choice
 * given: the JSON routes' figures, to the digit.
 */
export async function lotExportCsv(
  db: Sql,
  q: { tenantId: number; owner: string; dataset: (typeof LOT_DATASETS)[number]; range: DateRange; label: string; today: string } & Omit<LotReportRequest, "from" | "asOf">,
): Promise<string> {
  const to = q.range.before === ALL_DATES.before ? undefined : dayBefore(q.range.before);
  const from = q.range.from === ALL_DATES.from ? undefined : q.range.from;
  const mine = (x: { owner: string }) => x.owner === q.owner;
  if (q.dataset === "gains") {
    const { report, names } = await tenantLotReport(db, q.tenantId, { ...q, from, asOf: to, wallets: [q.owner] });
    const rows = gainsExportRows(report.realized.filter(mine), names);
    if (rows.length > maxExportRows) throw tooLarge();
    return toCsv(
      ["dataset", ...GAINS_COLUMNS],
      rows.map((r) => [q.label, ...r]),
    );
  }
  const { report, names } = await tenantLotReport(db, q.tenantId, { ...q, asOf: to ?? q.today, wallets: [q.owner] });
  const rows = lotsExportRows(report.lots.filter(mine), names);
  if (rows.length > maxExportRows) throw tooLarge();
  return toCsv(
    ["dataset", ...LOTS_COLUMNS],
    rows.map((r) => [q.label, ...r]),
  );
}

function dayBefore(day: string): string {
  const [y, mo, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d - 1)).toISOString().slice(0, 10);
}
