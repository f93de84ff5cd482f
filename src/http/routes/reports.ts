// v2 reports: the year report of income across a tenant's wallets, and the currencies it can be
// given in (docs/income-and-tax.md#year-report).
import * as S from "../../../schemas/index.ts";
import { yearRange } from "../../domain/date-range.ts";
import { deferredEntry, incomeReport, reportForPeople, withholdingInformation } from "../../domain/income-report.ts";
import { conversionTo, reportCurrencies } from "../../ledger/reference-rates.ts";
import { jsonBody } from "../json-page.ts";
import { route } from "../route.ts";
import { tenantOwners } from "./guard.ts";

export const reportRoutes = [
  route({
    method: "GET",
    path: "/v2/reports/income",
    scope: "ledger:read",
    query: S.IncomeReportQuery,
    response: { 200: S.IncomeReport, 400: S.errors[400], 404: S.errors[404] },
    tag: "v2",
    summary: "Income of a year per month × symbol, across the tenant's wallets",
    tool: {
      name: "income_report",
      summarize: (b) =>
        `${b.year}, ${b.owners.length} wallet(s): net ${b.totals.usd ?? "unknown"} USD, withheld ${b.totals.withholdingTaxUsd ?? "unknown"}, retained ${b.totals.retainedUsd ?? "unknown"}, gross ${b.totals.grossUsd ?? "unknown"} over ${b.totals.events} event(s) (${b.totals.unvaluedEvents} without a USD value, left out), in ${b.rows.length} month × symbol row(s).`,
    },
    description:
      "Sums the journal's income entries of the year (reversals carry negated amounts), exactly, and rounds each figure once. " +
      "Gross, withholding and retained cover the events whose net USD is known, so grossUsd − withholdingTaxUsd − retainedUsd = usd in every row and the totals " +
      "(exactly, on the exact values); the gross of the others is unvaluedGrossUsd. An unknown part is null, never 0. " +
      "Repeat owner to name wallets (each must be registered by the tenant: else 404 wallet_not_registered); without owner, every wallet the tenant registered. " +
      "A wallet whose first sync has not finished counts as empty. With currency (any GET /v2/reports/currencies lists), every amount is also " +
      "given in that currency at the reference rate of each event's day, else the latest earlier ECB day, with the rates used; an amount whose event has no " +
      "rate on or before its day is null with a reason (import the history with `ca-ledger rates import`). " +
      "treatment (default TAX_TREATMENT): under deferred a reinvested dividend is no income (it is realized at disposal, GET /v2/reports/gains), so every amount is 0 " +
      "and the year's withholding is given apart as withholdingInformation.",
    handler: async ({ principal, query }, app) => {
      const { owners, books } = await tenantOwners(app, principal, query.owner);
      const yearEntries = await app.queries.incomeEntries(books, yearRange(query.year));
      const conversion = query.currency
        ? await conversionTo(
            app.ledger.db,
            query.currency,
            yearEntries.map((e) => e.effectiveAt.slice(0, 10)),
          )
        : null;
      const treatment = query.treatment ?? app.config.taxTreatment;
      const deferred = treatment === "deferred";
      const report = incomeReport(deferred ? yearEntries.map(deferredEntry) : yearEntries, conversion);
      // Built here and serialised once; the tests check the body against S.IncomeReport.
      return jsonBody({
        year: query.year,
        dataset: app.dataset,
        owners,
        ...reportForPeople(report),
        treatment,
        withholdingInformation: deferred ? withholdingInformation(yearEntries) : null,
      });
    },
  }),
  route({
    method: "GET",
    path: "/v2/reports/currencies",
    scope: "ledger:read",
    response: { 200: S.ReportCurrencies },
    tag: "v2",
    summary: "The currencies the year report can be given in, from the ECB reference rates imported",
    description:
      "Each with the first and last ECB day it has a rate for (a day quoting the dollar too): an event before the first has no rate, one after the last " +
      "takes the last day's rate. Empty until `ca-ledger rates import`. The same for every tenant: the rates are the ledger's, not a wallet's.",
    handler: async (_, app) => ({ dataset: app.dataset, currencies: await reportCurrencies(app.ledger.db) }),
  }),
];
