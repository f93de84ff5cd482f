// A wallet's positions, income totals and unclassified adjustments.
import * as S from "../../../schemas/index.ts";
import { jsonBefore } from "../json-page.ts";
import { route } from "../route.ts";
import { followedWallet, walletErrors } from "./guard.ts";

export const portfolioRoutes = [
  route({
    method: "GET",
    path: "/v1/portfolio",
    scope: "ledger:read",
    pinnedRead: true,
    query: S.OwnerQuery,
    response: { 200: S.Portfolio, ...walletErrors },
    tag: "ledger",
    summary: "Positions, income totals and unclassified adjustments",
    tool: {
      name: "get_portfolio",
      summarize: (b) =>
        `${b.owner} holds ${b.positions.length} position(s) as of ${b.asOf}; income ${b.totals.incomeUsd} USD, with ${b.totals.unvaluedIncomeEvents} income event(s) of unknown value left out.`,
    },
    // The registration and the stored portfolio in one statement (docs/performance.md#the-portfolio-in-one-statement),
    // so nothing to read together: the request's reads already share one snapshot (pinnedRead).
    handler: async ({ principal, query }, app) => {
      const body = await followedWallet(query.owner, () => app.queries.portfolio.ofRegistered(principal.tenantId, query.owner));
      // Stored at booking (docs/api.md#portfolio); only asOf and the dataset label are of this request.
      return jsonBefore({ owner: query.owner, dataset: app.dataset, asOf: new Date().toISOString() }, body);
    },
  }),
];
