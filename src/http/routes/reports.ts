// v2 reports: the year report of income across a tenant's wallets, and the currencies it can be
// given in (docs/income-and-tax.md#year-report).
import { Elysia } from "elysia";
import * as S from "../../../schemas/index.ts";
import { yearRange } from "../../domain/date-range.ts";
import { incomeReport, reportForPeople } from "../../domain/income-report.ts";
import { incomeEntries } from "../../ledger/queries/income-report.ts";
import { conversionTo, reportCurrencies } from "../../ledger/reference-rates.ts";
import type { AppContext } from "../app.ts";
import { jsonBody } from "../json-page.ts";
import { keyed } from "../openapi.ts";
import { coercedQuery } from "../params.ts";
import { tenantOwners } from "./guard.ts";
import { keyedResponses } from "./v1.ts";

const reportQuery = coercedQuery(S.IncomeReportQuery);

export function reportRoutes(ctx: AppContext) {
  const db = ctx.ledger.db;
  const entries = incomeEntries(db);

  return new Elysia({ name: "reports", normalize: false })
    .get("/v2/reports/currencies", async () => ({ dataset: ctx.dataset(), currencies: await reportCurrencies(db) }), {
      response: keyedResponses(S.ReportCurrencies),
      detail: keyed(
        "v2",
        "The currencies the year report can be given in, from the ECB reference rates imported",
        "ledger:read",
        "Each with the first and last ECB day it has a rate for (a day quoting the dollar too): an event before the first has no rate, one after the last " +
          "takes the last day's rate. Empty until `ca-ledger rates import`. The same for every tenant: the rates are the ledger's, not a wallet's.",
      ),
    })
    .get(
      "/v2/reports/income",
      async ({ query, request }) => {
        const { owners, books } = await tenantOwners(ctx, request, query.owner);
        const yearEntries = await entries(books, yearRange(query.year));
        const conversion = query.currency ? await conversionTo(db, query.currency, yearEntries.map((e) => e.effectiveAt.slice(0, 10))) : null;
        const report = incomeReport(yearEntries, conversion);
        // Built here and serialised once; the tests check the body against S.IncomeReport.
        return jsonBody({ year: query.year, dataset: ctx.dataset(), owners, ...reportForPeople(report) });
      },
      {
        query: reportQuery,
        response: keyedResponses(S.IncomeReport, { 400: S.errors[400], 404: S.errors[404] }),
        detail: keyed(
          "v2",
          "Income of a year per month × symbol, across the tenant's wallets",
          "ledger:read",
          "Sums the journal's income entries of the year (reversals carry negated amounts), exactly, and rounds each figure once. " +
            "Gross, withholding and retained cover the events whose net USD is known, so grossUsd − withholdingTaxUsd − retainedUsd = usd in every row and the totals " +
            "(exactly, on the exact values); the gross of the others is unvaluedGrossUsd. An unknown part is null, never 0. " +
            "Repeat owner to name wallets (each must be registered by the tenant: else 404 wallet_not_registered); without owner, every wallet the tenant registered. " +
            "A wallet whose first sync has not finished counts as empty. With currency (any GET /v2/reports/currencies lists), every amount is also " +
            "given in that currency at the reference rate of each event's day, else the latest earlier ECB day, with the rates used; an amount whose event has no " +
            "rate on or before its day is null with a reason (import the history with `ca-ledger rates import`).",
        ),
      },
    );
}
