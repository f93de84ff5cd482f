// The CSV exports of /v1/export (docs/api.md#csv-exports): the journal, the v1 income entries, and the
// tax exports (src/domain/tax-exports.ts), each within the request's date range. Every dataset but
// the four tax tools' templates starts with a `dataset` column holding the ledger's label.
import type { DateRange } from "../domain/date-range.ts";
import { isToolTemplate, TAX_FORMATS, type TaxDataset } from "../domain/tax-exports.ts";
import { actionQueries } from "../ledger/queries/actions.ts";
import { journalQueries } from "../ledger/queries/journal.ts";
import { taxEventQueries } from "../ledger/queries/tax-events.ts";
import type { Sql } from "../ledger/sql/port.ts";
import type { exportDatasets } from "../../schemas/v1/ledger.ts";
import { toCsv } from "./csv.ts";
import { ApiFailure } from "./errors.ts";

export const maxExportRows = 100_000;
export type ExportDataset = (typeof exportDatasets)[number];

const journalColumns = ["id", "owner", "actionId", "entryType", "reversesId", "mint", "symbol", "kind", "unitsDelta", "principalUnitsDelta", "incomeUnits", "usd", "effectiveAt", "changeReason", "evidenceSha256", "createdAt"] as const;
// Amounts as the income entries show them (rounded for people); the breakdown follows net `usd`.
const incomeColumns = ["id", "owner", "mint", "symbol", "kind", "splitFactor", "effectiveAt", "quantityDisplay", "incomeUnits", "usd", "grossUsd", "withholdingTaxRate", "withholdingTaxUsd", "retentionRate", "retainedUsd", "headline", "evidenceSha256"] as const;

export function exporter(db: Sql) {
  const actions = actionQueries(db);
  const journal = journalQueries(db);
  const taxEvents = taxEventQueries(db);

  /** The CSV text of one dataset for one wallet; refuses more than maxExportRows rows. */
  return async (dataset: ExportDataset, owner: string, range: DateRange, label: string): Promise<string> => {
    if (dataset === "journal") {
      const rows = await journal.all(owner, maxExportRows, range);
      if (rows.length > maxExportRows) throw tooLarge();
      return toCsv(["dataset", ...journalColumns], rows.map((r) => [label, ...journalColumns.map((c) => r[c])]));
    }
    if (dataset === "income") {
      const page = await actions.incomeList(owner, { limit: maxExportRows + 1, offset: 0 }, range);
      if (page.entries.length > maxExportRows) throw tooLarge();
      return toCsv(["dataset", ...incomeColumns], page.entries.map((e: Record<string, unknown>) => [label, ...incomeColumns.map((c) => e[c])]));
    }
    const events = await taxEvents(owner, range, maxExportRows + 1);
    if (events.length > maxExportRows) throw tooLarge();
    const format = TAX_FORMATS[dataset as TaxDataset];
    const rows = events.map((e) => format.row(e));
    if (isToolTemplate(dataset as TaxDataset)) return toCsv([...format.header], rows);
    return toCsv(["dataset", ...format.header], rows.map((r) => [label, ...r]));
  };
}

function tooLarge() {
  return new ApiFailure("export_too_large", `The export is over ${maxExportRows} rows; page through /v1/journal or /v1/income with limit and offset, or export a shorter period with from and to.`);
}
