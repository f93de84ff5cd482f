// v2 corporate actions of a wallet: the list, and one action with its lifecycle, timestamps,
// issuer revisions, chain evidence and journal.
import * as S from "../../../schemas/index.ts";
import { readTogether } from "../../ledger/sql/port.ts";
import { ApiFailure } from "../errors.ts";
import { jsonPage, jsonWith } from "../json-page.ts";
import { DATE_FILTERS, dateRangeOf } from "../params.ts";
import { route } from "../route.ts";
import { booksOwner, paging, walletErrors } from "./guard.ts";

export const actionRoutes = [
  route({
    method: "GET",
    path: "/v2/actions",
    scope: "ledger:read",
    pinnedRead: true,
    query: S.ActionsQuery,
    response: { 200: S.ActionsList, ...walletErrors },
    tag: "v2",
    summary: "Corporate actions of a wallet, newest first",
    description: DATE_FILTERS,
    tool: { name: "list_actions" },
    handler: async ({ principal, query }, app) => {
      const range = dateRangeOf(query);
      const books = await booksOwner(app, principal, query.owner);
      return jsonPage({ owner: query.owner, dataset: app.dataset }, "actions", await app.queries.actions.listJson(books, paging(query), range));
    },
  }),
  route({
    method: "GET",
    path: "/v2/actions/:id",
    scope: "ledger:read",
    pinnedRead: true,
    params: S.ActionParams,
    query: S.ActionDetailQuery,
    response: { 200: S.ActionDetail, ...walletErrors },
    tag: "v2",
    summary: "One action: lifecycle, six timestamps, every issuer revision, chain evidence, journal",
    tool: {
      name: "get_action",
      summarize: (b) =>
        `${b.type} of ${b.symbol ?? b.mint} (${b.treatment}), ${b.lifecycle.state}, effective ${b.effectiveAt ?? "not yet"}; ${b.journal.length} journal entr${b.journal.length === 1 ? "y" : "ies"}.`,
    },
    handler: async ({ principal, params, query }, app) => {
      // The registration and the detail's reads together (one shared lock on SQLite).
      const d = await readTogether(app.ledger.db, async (on) => app.queries.actions.detailJson(await booksOwner(app, principal, query.owner, on), params.id, on));
      if (!d) throw new ApiFailure("not_found", "No action with this id for this owner.");
      const journal = d.journal.map((j) => ({
        id: j.id,
        entryType: j.entryType,
        reversesId: j.reversesId,
        unitsDelta: j.unitsDelta,
        incomeUnits: j.incomeUnits,
        usd: j.usd,
        changeReason: j.changeReason,
        evidenceSha256: j.evidenceSha256,
        createdAt: j.createdAt,
      }));
      return jsonWith(d.detail, { dataset: app.dataset, journal });
    },
  }),
];
