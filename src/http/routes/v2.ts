// v2 routes: taxonomy, actions (list and detail) and instrument lineage.
import { Elysia } from "elysia";
import * as S from "../../../schemas/index.ts";
import { actionQueries } from "../../ledger/queries/actions.ts";
import { mintVisible } from "../../ledger/queries/assets.ts";
import { instrumentQueries } from "../../ledger/queries/instruments.ts";
import type { AppContext } from "../app.ts";
import { ApiFailure } from "../errors.ts";
import { keyed } from "../openapi.ts";
import { jsonPage, jsonWith } from "../json-page.ts";
import { coercedQuery, dateRangeOf } from "../params.ts";
import { booksOwner, paging, principalOf } from "./guard.ts";
import { DATE_FILTERS, keyedResponses } from "./v1.ts";

const pagedQuery = coercedQuery(S.ActionsQuery);

export function v2Routes(ctx: AppContext) {
  const db = ctx.ledger.db;
  const actions = actionQueries(db);
  const instruments = instrumentQueries(db);
  const walletErrors = { 400: S.errors[400], 404: S.errors[404] };

  return new Elysia({ name: "v2", normalize: false })
    .get("/v2/taxonomy", async () => ({ types: await instruments.taxonomy() }), {
      response: keyedResponses(S.TaxonomyResponse),
      detail: keyed("v2", "All 18 action types with treatment and validation computed from this ledger", "assets:read"),
    })
    .get(
      "/v2/actions",
      async ({ query, request }) => {
        const range = dateRangeOf(query);
        const books = await booksOwner(ctx, request, query.owner);
        return jsonPage({ owner: query.owner, dataset: ctx.dataset() }, "actions", await actions.listJson(books, paging(query), range));
      },
      { query: pagedQuery, response: keyedResponses(S.ActionsList, walletErrors), detail: keyed("v2", "Corporate actions of a wallet, newest first", "ledger:read", DATE_FILTERS) },
    )
    .get(
      "/v2/actions/:id",
      async ({ params, query, request }) => {
        const d = await actions.detailJson(await booksOwner(ctx, request, query.owner), params.id);
        if (!d) throw new ApiFailure("not_found", "No action with this id for this owner.");
        const journal = d.journal.map((j) => ({ id: j.id, entryType: j.entryType, reversesId: j.reversesId, unitsDelta: j.unitsDelta, incomeUnits: j.incomeUnits, usd: j.usd, changeReason: j.changeReason, evidenceSha256: j.evidenceSha256, createdAt: j.createdAt }));
        return jsonWith(d.detail, { dataset: ctx.dataset(), journal });
      },
      { params: S.ActionParams, query: S.ActionDetailQuery, response: keyedResponses(S.ActionDetail, walletErrors), detail: keyed("v2", "One action: lifecycle, six timestamps, every issuer revision, chain evidence, journal", "ledger:read") },
    )
    .get(
      "/v2/instruments/:mint/lineage",
      async ({ params, request }) => {
        // A mint no feed lists reads as unknown to a tenant none of whose wallets holds or held it.
        const visible = await mintVisible(db, principalOf(ctx, request).tenantId, params.mint);
        const l = visible ? await instruments.lineage(params.mint) : null;
        if (!l) throw new ApiFailure("not_found", "No instrument with this mint.");
        return { mint: l.mint, symbol: l.symbol, dataset: ctx.dataset(), identities: l.identities, links: l.links, basisNowSits: l.basisNowSits };
      },
      { params: S.MintParams, response: keyedResponses(S.LineageResponse, { 400: S.errors[400], 404: S.errors[404] }), detail: keyed("v2", "Identities of an instrument, links between them, and where the first identity's basis sits", "assets:read", "A mint no issuer feed lists is 404 not_found, like an unknown one, for a tenant none of whose wallets holds or held it.") },
    );
}
