// The journal of a wallet, newest effective time first.
import * as S from "../../../schemas/index.ts";
import { DATE_FILTERS, dateRangeOf } from "../params.ts";
import { route } from "../route.ts";
import { booksOwner, paging, walletErrors } from "./guard.ts";
import { KIND_FILTER } from "./income.ts";

export const journalRoutes = [
  route({
    method: "GET",
    path: "/v1/journal",
    scope: "ledger:read",
    query: S.KindListQuery,
    response: { 200: S.JournalList, ...walletErrors },
    tag: "ledger",
    summary: "Journal entries, newest effective time first (ties by id, newest first)",
    description: `${KIND_FILTER} ${DATE_FILTERS}`,
    handler: async ({ principal, query }, app) => {
      const range = dateRangeOf(query);
      const books = await booksOwner(app, principal, query.owner);
      return { owner: query.owner, dataset: app.dataset, ...(await app.queries.journal.list(books, paging(query), range, query.kind)) };
    },
  }),
];
