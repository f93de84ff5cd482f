// Yield per position and window.
import * as S from "../../../schemas/index.ts";
import { route } from "../route.ts";
import { booksOwner, walletErrors } from "./guard.ts";

export const yieldRoutes = [
  route({
    method: "GET",
    path: "/v1/yield",
    scope: "ledger:read",
    query: S.OwnerQuery,
    response: { 200: S.YieldResponse, ...walletErrors },
    tag: "ledger",
    summary: "Yield per position and window",
    handler: async ({ principal, query }, app) => {
      const books = await booksOwner(app, principal, query.owner);
      return { owner: query.owner, dataset: app.dataset, asOf: new Date().toISOString(), ...(await app.queries.portfolio.yield(books)) };
    },
  }),
];
