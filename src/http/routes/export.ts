// The CSV exports (docs/api.md#csv-exports): the journal, the income entries, the tax events, or
// a tax tool's import template.
import * as S from "../../../schemas/index.ts";
import { periodLabel } from "../../domain/date-range.ts";
import { type ExportDataset, isLotDataset, lotExportCsv } from "../exports.ts";
import { DATE_FILTERS, dateRangeOf } from "../params.ts";
import { route, Serialized } from "../route.ts";
import { booksOwner, walletErrors } from "./guard.ts";

const EXPORT_NOTE =
  "tax is one row per income event (date, wallet, symbol, ISIN, type, units, the USD breakdown, signature, evidence hash, reason, warnings). " +
  "koinly, cointracker, coinledger and awaken are each that tool's documented import template, income rows only, with no dataset column (the x-ca-ledger-dataset header still labels the ledger).";

export const exportRoutes = [
  route({
    method: "GET",
    path: "/v1/export",
    scope: "ledger:read",
    query: S.ExportQuery,
    response: { 200: S.CsvText, ...walletErrors, 422: S.errors[422] },
    tag: "ledger",
    summary: "CSV export: the journal, the income entries, the tax events, or a tax tool's import template",
    description: `${EXPORT_NOTE} ${DATE_FILTERS}`,
    handler: async ({ principal, query }, app) => {
      const range = dateRangeOf(query);
      const books = await booksOwner(app, principal, query.owner);
      const dataset = (query.dataset ?? "journal") as ExportDataset;
      const today = new Date().toISOString().slice(0, 10);
      const treatment = query.treatment ?? app.config.taxTreatment;
      const csv = isLotDataset(dataset)
        ? await lotExportCsv(app.ledger.db, {
            tenantId: principal.tenantId,
            owner: books,
            dataset,
            range,
            label: app.dataset.kind,
            today,
            method: query.method ?? app.config.lotMethod,
            treatment,
            stablecoins: app.config.stablecoins,
          })
        : await app.queries.exportCsv(dataset, books, range, app.dataset.kind, treatment);
      // The treatment is named where it shapes the rows (docs/lots.md#exports): the lots' and the tax exports.
      const treated = isLotDataset(dataset) || (dataset !== "journal" && dataset !== "income");
      return new Serialized(csv, "text/csv; charset=utf-8", {
        "content-disposition": `attachment; filename="ca-ledger-${dataset}-${query.owner.slice(0, 8)}-${periodLabel(query, today)}${treated ? `-${treatment}` : ""}.csv"`,
        ...(treated ? { "x-ca-ledger-treatment": treatment } : {}),
      });
    },
  }),
];
