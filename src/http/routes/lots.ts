// Lots, realized gains and the holdings statement (docs/lots.md#the-three-routes): each derives the
// tenant's lots under the request's method and treatment (else the server's LOT_METHOD and
// TAX_TREATMENT) and shows the wallets asked for. Every body names the treatment and the method.
import * as S from "../../../schemas/index.ts";
import { isDay } from "../../domain/date-range.ts";
import { gainsBody, gainsRateDays, holdingsBody, lotsBody } from "../../domain/lots/present.ts";
import type { LotMethod, TaxTreatment } from "../../domain/lots/types.ts";
import { tenantLotReport } from "../../ledger/read/lot-report.ts";
import { conversionTo } from "../../ledger/reference-rates.ts";
import { ApiFailure } from "../errors.ts";
import { jsonBody } from "../json-page.ts";
import { route, type RouteContext } from "../route.ts";
import { registeredOwner, tenantOwners, walletErrors } from "./guard.ts";

const CHOICE =
  "method (fifo, lifo, hifo, average) and treatment (income, deferred) default to the server's LOT_METHOD and TAX_TREATMENT; the body names both. " +
  "Derived per request from the chain's movements, the booked corporate actions and the operator's declarations (docs/lots.md); a USD value the ledger cannot know is null with a reason, never 0.";

/** A day parameter that matches YYYY-MM-DD but is no calendar day (2026-02-30) is 400 invalid_request, naming it. */
function calendarDay(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && !isDay(value)) throw new ApiFailure("invalid_request", `Invalid query parameter ${name}: expected a calendar day written YYYY-MM-DD (UTC).`);
  return value;
}

const today = (): string => new Date().toISOString().slice(0, 10);

function choice(app: RouteContext, query: { method?: LotMethod; treatment?: TaxTreatment }) {
  return { method: query.method ?? app.config.lotMethod, treatment: query.treatment ?? app.config.taxTreatment, stablecoins: app.config.stablecoins };
}

export const lotRoutes = [
  route({
    method: "GET",
    path: "/v2/lots",
    scope: "ledger:read",
    query: S.LotsQuery,
    response: { 200: S.LotsResponse, ...walletErrors },
    tag: "v2",
    summary: "A wallet's open lots at the end of a day, with their cost basis",
    tool: {
      name: "list_lots",
      summarize: (b) =>
        `${b.owner} at the end of ${b.asOf} (${b.treatment}, ${b.method}): ${b.lots.length} open lot(s) in ${b.instruments.length} instrument(s); ` +
        `${b.instruments.filter((i) => i.exact.unknownBasisUnits !== "0").length} instrument(s) hold units of unknown basis; ${b.problems.length} problem(s).`,
    },
    description: `Each open lot (units, basis, acquisition date, source, the transaction or action that made it) and each instrument's totals, with the units of unknown basis (declare them with \`ca-ledger import cost-basis\`). asOf defaults to today (UTC). ${CHOICE}`,
    handler: async ({ principal, query }, app) => {
      const asOf = calendarDay("asOf", query.asOf) ?? today();
      await registeredOwner(app, principal, query.owner);
      const { report, names } = await tenantLotReport(app.ledger.db, principal.tenantId, { ...choice(app, query), asOf, wallets: [query.owner] });
      return jsonBody(lotsBody(report, { owner: query.owner, asOf, dataset: app.dataset }, names));
    },
  }),
  route({
    method: "GET",
    path: "/v2/reports/gains",
    scope: "ledger:read",
    query: S.GainsReportQuery,
    response: { 200: S.GainsReport, 400: S.errors[400], 404: S.errors[404] },
    tag: "v2",
    summary: "Realized gains of a year, short and long term, across the tenant's wallets",
    tool: {
      name: "gains_report",
      summarize: (b) =>
        `${b.year} (${b.treatment}, ${b.method}), ${b.owners.length} wallet(s): short-term gain ${b.totals.short.gainUsd} USD over ${b.totals.short.rows} row(s), ` +
        `long-term ${b.totals.long.gainUsd} USD over ${b.totals.long.rows} row(s); ${b.totals.short.unknownRows + b.totals.long.unknownRows} row(s) of unknown value, left out.`,
    },
    description:
      "One row per disposal × lot consumed (proceeds from the stablecoins that arrived in the same transaction, basis from the lot), totals per term (sums of the rows' exact values, rounded once). " +
      "Repeat owner to name wallets (each registered by the tenant, else 404 wallet_not_registered); without owner, every wallet the tenant registered. " +
      `With currency, each amount also at the ECB reference rate of its own day (basis at the acquisition's, proceeds at the disposal's). ${CHOICE}`,
    handler: async ({ principal, query }, app) => {
      const { owners } = await tenantOwners(app, principal, query.owner);
      const year = String(query.year).padStart(4, "0");
      const { report, names } = await tenantLotReport(app.ledger.db, principal.tenantId, { ...choice(app, query), from: `${year}-01-01`, asOf: `${year}-12-31`, wallets: owners });
      const conversion = query.currency ? await conversionTo(app.ledger.db, query.currency, gainsRateDays(report, owners)) : null;
      return jsonBody(gainsBody(report, { year: query.year, owners, dataset: app.dataset, conversion }, names));
    },
  }),
  route({
    method: "GET",
    path: "/v2/reports/holdings",
    scope: "ledger:read",
    query: S.HoldingsQuery,
    response: { 200: S.HoldingsStatement, 400: S.errors[400], 404: S.errors[404] },
    tag: "v2",
    summary: "A holdings statement at the end of a day, reconciled from opening to closing",
    tool: {
      name: "holdings_report",
      summarize: (b) =>
        `${b.from} to ${b.asOf} (${b.treatment}, ${b.method}): ${b.wallets.length} wallet(s), ${b.wallets.reduce((n, w) => n + w.instruments.length, 0)} instrument position(s), each reconciled opening → closing.`,
    },
    description:
      "Per wallet and instrument: units, multiplier, basis, and the reconciliation over from (default 1 January of asOf's year) to asOf: opening + acquired − disposed + own transfers + corporate-action units = closing, exactly on the exact values. " +
      `from after asOf is 400 invalid_request. Repeat owner to name wallets; without owner, every wallet the tenant registered. ${CHOICE}`,
    handler: async ({ principal, query }, app) => {
      const asOf = calendarDay("asOf", query.asOf)!;
      const from = calendarDay("from", query.from) ?? `${asOf.slice(0, 4)}-01-01`;
      if (from > asOf) throw new ApiFailure("invalid_request", "Query parameter from is after asOf: from must be on or before asOf.");
      const { owners } = await tenantOwners(app, principal, query.owner);
      const { report, names } = await tenantLotReport(app.ledger.db, principal.tenantId, { ...choice(app, query), from, asOf, wallets: owners });
      return jsonBody(holdingsBody(report, { asOf, from, owners, dataset: app.dataset }, names));
    },
  }),
];
