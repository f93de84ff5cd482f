// v1 routes (docs/api.md#routes-and-scopes). Each handler validates, checks the tenant, and reads one read model.
import { Elysia, status } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import * as S from "../../../schemas/index.ts";
import { periodLabel } from "../../domain/date-range.ts";
import { actionQueries } from "../../ledger/queries/actions.ts";
import { listAssets } from "../../ledger/queries/assets.ts";
import { journalQueries } from "../../ledger/queries/journal.ts";
import { opsStatus, readGauges } from "../../ledger/queries/ops.ts";
import { issuerFeedOff } from "../../config.ts";
import { portfolioQueries } from "../../ledger/queries/portfolio.ts";
import { listWallets, walletStatus } from "../../ledger/queries/wallets.ts";
import { QuotaExceeded } from "../../sync/queue.ts";
import type { AppContext } from "../app.ts";
import { exporter, type ExportDataset } from "../exports.ts";
import { jsonBefore, jsonPage } from "../json-page.ts";
import { ApiFailure } from "../errors.ts";
import { keyed } from "../openapi.ts";
import { coercedQuery, dateRangeOf } from "../params.ts";
import { booksOwner, checkOwner, paging, principalOf, registeredOwner } from "./guard.ts";
import { incomeDetail } from "./income-detail.ts";

const kindListQuery = coercedQuery(S.KindListQuery);
const exportQuery = coercedQuery(S.ExportQuery);

/** The error responses every keyed route may give, plus the route's own. */
export function keyedResponses<T extends TSchema, E extends Record<number, TSchema> = {}>(ok: T, extra?: E) {
  return { ...keyedErrors, 200: ok, ...(extra as E) };
}
const keyedErrors = { 401: S.errors[401], 403: S.errors[403], 429: S.errors[429], 500: S.errors[500], 503: S.errors[503] };
const walletErrors = { 400: S.errors[400], 404: S.errors[404] };

export function v1Routes(ctx: AppContext) {
  const db = ctx.ledger.db;
  const actions = actionQueries(db);
  const journal = journalQueries(db);
  const portfolio = portfolioQueries(db);
  const exportCsv = exporter(db);

  return new Elysia({ name: "v1", normalize: false })
    .get(
      "/v1/health",
      () => {
        const fault = ctx.health.check();
        if (fault) throw new ApiFailure("unavailable", `The ledger database cannot be trusted: ${fault.message}.`, { "retry-after": "60" });
        return { status: "ok" as const, version: ctx.version, dataset: ctx.dataset() };
      },
      { response: { 200: S.Health, 503: S.errors[503] }, detail: { tags: ["ops"], summary: "Liveness and the dataset label (no key)" } },
    )
    .get("/v1/assets", async ({ request }) => ({ assets: await listAssets(db, principalOf(ctx, request).tenantId) }), {
      response: keyedResponses(S.AssetsResponse),
      detail: keyed("assets", "Instruments the ledger knows, with the multiplier in force", "assets:read", "Every instrument the issuer feed lists; a mint no feed lists only once one of this tenant's wallets holds or held it (after the tenant's own first sync of that wallet)."),
    })
    .post(
      "/v1/wallets/sync",
      async ({ body, request }) => {
        const p = principalOf(ctx, request);
        checkOwner(body.owner);
        if (ctx.demoOwners && !ctx.demoOwners.has(body.owner)) {
          throw new ApiFailure("demo_offline", "This is the offline demo: it holds recorded data for its demo wallets only and cannot sync another wallet. Serve live data without --demo, on another data dir.");
        }
        try {
          const r = await ctx.registerWallet(p.tenantId, ctx.config.maxWallets, body.owner);
          return status(202, { owner: body.owner, ...r });
        } catch (e) {
          if (e instanceof QuotaExceeded) throw new ApiFailure("wallet_quota_exceeded", e.message);
          throw e;
        }
      },
      {
        body: S.SyncRequestBody,
        response: { ...keyedErrors, 202: S.SyncRequestResponse, 400: S.errors[400], 409: S.errors[409], 413: S.errors[413] },
        detail: keyed("wallets", "Register a wallet and queue a sync", "wallets:sync", "Answers 202. A second request while a sync is queued or running answers job `already_pending`. The offline demo answers 409 `demo_offline` for a wallet it has no recording of. The quota is the server's MAX_WALLETS_PER_TENANT, for every tenant."),
      },
    )
    .get(
      "/v1/wallets",
      async ({ request }) => {
        const p = principalOf(ctx, request);
        return { tenant: p.tenant, maxWallets: ctx.config.maxWallets, wallets: await listWallets(db, p.tenantId) };
      },
      { response: keyedResponses(S.WalletsResponse), detail: keyed("wallets", "Wallets this tenant registered", "ledger:read") },
    )
    .get(
      "/v1/wallets/:owner/status",
      async ({ params, request }) => {
        const p = await registeredOwner(ctx, request, params.owner);
        const s = await walletStatus(db, p.tenantId, params.owner);
        if (!s) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant.");
        return s;
      },
      { params: S.OwnerParams, response: keyedResponses(S.SyncStatusResponse, walletErrors), detail: keyed("wallets", "Sync status of a wallet", "ledger:read") },
    )
    .delete(
      "/v1/wallets/:owner",
      async ({ params, request }) => {
        const p = principalOf(ctx, request);
        checkOwner(params.owner);
        if (!(await ctx.removeWallet(p.tenantId, params.owner))) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant.");
        return status(204);
      },
      {
        params: S.OwnerParams,
        response: { ...keyedErrors, 204: S.NoContent, ...walletErrors },
        detail: keyed(
          "wallets",
          "Stop following a wallet",
          "wallets:sync",
          "Answers 204. The tenant stops following the wallet: its reads answer 404 wallet_not_registered for this tenant at once, its place in the quota is free, " +
            "its queued sync is dropped and a run in progress stops. Nothing is erased from the ledger: registering it again (POST /v1/wallets/sync) resumes from where " +
            "its syncs stopped and serves the same books once that sync finished. Another tenant that follows the same wallet is not affected; a wallet no tenant follows is no longer synced. " +
            "404 wallet_not_registered when this tenant did not follow it.",
        ),
      },
    )
    .get(
      "/v1/portfolio",
      async ({ query, request }) => {
        const books = await booksOwner(ctx, request, query.owner);
        // Stored at booking (docs/api.md#portfolio); only asOf and the dataset label are of this request.
        return jsonBefore({ owner: query.owner, dataset: ctx.dataset(), asOf: new Date().toISOString() }, await portfolio.portfolio(books));
      },
      { query: S.OwnerQuery, response: keyedResponses(S.Portfolio, walletErrors), detail: keyed("ledger", "Positions, income totals and unclassified adjustments", "ledger:read") },
    )
    .get(
      "/v1/income",
      async ({ query, request }) => {
        const range = dateRangeOf(query);
        const books = await booksOwner(ctx, request, query.owner);
        return jsonPage({ owner: query.owner, dataset: ctx.dataset() }, "entries", await actions.incomeListJson(books, paging(query), range, query.kind));
      },
      { query: kindListQuery, response: keyedResponses(S.IncomeList, walletErrors), detail: keyed("ledger", "Income entries, newest first (v1 kinds)", "ledger:read", `${KIND_FILTER} ${DATE_FILTERS}`) },
    )
    .get(
      "/v1/income/:id",
      async ({ params, query, request }) => {
        const d = await actions.incomeDetail(await booksOwner(ctx, request, query.owner), params.id);
        if (!d) throw new ApiFailure("not_found", "No income entry with this id for this owner.");
        return incomeDetail(d, ctx.dataset());
      },
      { params: S.IncomeParams, query: S.OwnerQuery, response: keyedResponses(S.IncomeDetail, walletErrors), detail: keyed("ledger", "One income entry with its chain block, evidence and journal", "ledger:read") },
    )
    .get(
      "/v1/journal",
      async ({ query, request }) => {
        const range = dateRangeOf(query);
        const books = await booksOwner(ctx, request, query.owner);
        return { owner: query.owner, dataset: ctx.dataset(), ...(await journal.list(books, paging(query), range, query.kind)) };
      },
      {
        query: kindListQuery,
        response: keyedResponses(S.JournalList, walletErrors),
        detail: keyed("ledger", "Journal entries, newest effective time first (ties by id, newest first)", "ledger:read", `${KIND_FILTER} ${DATE_FILTERS}`),
      },
    )
    .get(
      "/v1/yield",
      async ({ query, request }) => {
        const books = await booksOwner(ctx, request, query.owner);
        return { owner: query.owner, dataset: ctx.dataset(), asOf: new Date().toISOString(), ...(await portfolio.yield(books)) };
      },
      { query: S.OwnerQuery, response: keyedResponses(S.YieldResponse, walletErrors), detail: keyed("ledger", "Yield per position and window", "ledger:read") },
    )
    .get(
      "/v1/export",
      async ({ query, request, set }) => {
        const range = dateRangeOf(query);
        const books = await booksOwner(ctx, request, query.owner);
        const dataset = (query.dataset ?? "journal") as ExportDataset;
        const csv = await exportCsv(dataset, books, range, ctx.dataset().kind);
        set.headers["content-type"] = "text/csv; charset=utf-8";
        set.headers["content-disposition"] = `attachment; filename="ca-ledger-${dataset}-${query.owner.slice(0, 8)}-${periodLabel(query, new Date().toISOString().slice(0, 10))}.csv"`;
        return csv;
      },
      {
        query: exportQuery,
        response: keyedResponses(S.CsvText, { ...walletErrors, 422: S.errors[422] }),
        detail: {
          ...keyed("ledger", "CSV export: the journal, the income entries, the tax events, or a tax tool's import template", "ledger:read", `${EXPORT_NOTE} ${DATE_FILTERS}`),
          responses: { 200: { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } } },
        },
      },
    )
    .get(
      "/v1/ops/status",
      () => opsStatus(db, {
        issuerPollSeconds: ctx.config.issuerPollSeconds, mintPollSeconds: ctx.config.mintPollSeconds, jobDeadlineSeconds: ctx.config.jobDeadlineSeconds,
        rpcErrors: () => ctx.metrics.rpcErrorCounts(), database: ctx.health, issuerFeedOff: issuerFeedOff(ctx.config),
      }),
      { response: keyedResponses(S.OpsStatus), detail: keyed("ops", "Operator status checks (no tenant or wallet data)", "ops:read") },
    )
    .get(
      "/v1/ops/metrics",
      async ({ set }) => {
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        return ctx.metrics.render(await readGauges(db));
      },
      { response: keyedResponses(S.MetricsText), detail: keyed("ops", "Prometheus metrics", "ops:read") },
    );
}

/** What the v1 lists say of their kind filter. */
const KIND_FILTER = "kind (repeatable: kind=dividend&kind=split) keeps only entries of those v1 kinds; an unknown kind is 400 invalid_request.";
/** What every date-filtered route says of its filters. */
export const DATE_FILTERS = "Filter by effectiveAt with from and to (YYYY-MM-DD, UTC, both days included) or year; total and nextOffset count what the filter keeps. year with from or to, an impossible day, or from after to is 400 invalid_request.";
const EXPORT_NOTE =
  "tax is one row per income event (date, wallet, symbol, ISIN, type, units, the USD breakdown, signature, evidence hash, reason, warnings). " +
  "koinly, cointracker, coinledger and awaken are each that tool's documented import template, income rows only, with no dataset column (the x-ca-ledger-dataset header still labels the ledger).";
