// The v1 income entries: the list, and one entry with its chain block, the classification
// evidence (which reads `unclassified` for types v1 does not book) and the entry's journal.
import * as S from "../../../schemas/index.ts";
import type { DatasetLabel } from "../../../schemas/common.ts";
import type { ActionRecord } from "../../domain/types.ts";
import type { V1Entry } from "../../ledger/projections.ts";
import type { journalEntry } from "../../ledger/queries/journal.ts";
import { ApiFailure } from "../errors.ts";
import { jsonPage } from "../json-page.ts";
import { DATE_FILTERS, dateRangeOf } from "../params.ts";
import { route } from "../route.ts";
import { booksOwner, paging, walletErrors } from "./guard.ts";

/** What the v1 lists say of their kind filter. */
export const KIND_FILTER = "kind (repeatable: kind=dividend&kind=split) keeps only entries of those v1 kinds; an unknown kind is 400 invalid_request.";

export const incomeRoutes = [
  route({
    method: "GET",
    path: "/v1/income",
    scope: "ledger:read",
    pinnedRead: true,
    query: S.KindListQuery,
    response: { 200: S.IncomeList, ...walletErrors },
    tag: "ledger",
    summary: "Income entries, newest first (v1 kinds)",
    tool: { name: "list_income" },
    description: `${KIND_FILTER} ${DATE_FILTERS}`,
    handler: async ({ principal, query }, app) => {
      const range = dateRangeOf(query);
      const books = await booksOwner(app, principal, query.owner);
      return jsonPage({ owner: query.owner, dataset: app.dataset }, "entries", await app.queries.actions.incomeListJson(books, paging(query), range, query.kind));
    },
  }),
  route({
    method: "GET",
    path: "/v1/income/:id",
    scope: "ledger:read",
    params: S.IncomeParams,
    query: S.OwnerQuery,
    response: { 200: S.IncomeDetail, ...walletErrors },
    tag: "ledger",
    summary: "One income entry with its chain block, evidence and journal",
    handler: async ({ principal, params, query }, app) => {
      const d = await app.queries.actions.incomeDetail(await booksOwner(app, principal, query.owner), params.id);
      if (!d) throw new ApiFailure("not_found", "No income entry with this id for this owner.");
      return incomeDetail(d, app.dataset);
    },
  }),
];

function incomeDetail(d: { entry: V1Entry; action: ActionRecord; journal: ReturnType<typeof journalEntry>[] }, dataset: DatasetLabel) {
  const a = d.action;
  const matched = a.matched ? a.revisions.find((r) => r.eventId === a.matched!.eventId && r.version === a.matched!.version) : undefined;
  return {
    ...d.entry,
    dataset,
    chain: {
      signature: a.chain.signature ?? "",
      scheduledAt: a.chain.scheduledAt,
      effectiveAt: a.chain.effectiveAt ?? a.effectiveAt!,
      multiplierOld: a.chain.multiplierOld ?? "0",
      multiplierNew: a.chain.multiplierNew ?? "0",
    },
    evidence: {
      sha256: a.evidenceSha256,
      classification: { result: a.v1.classificationResult, reason: a.reason },
      issuerRecord: matched ? { eventId: matched.eventId, version: matched.version, sha256: matched.sha256, record: matched.record as unknown as Record<string, unknown> } : null,
    },
    journal: d.journal,
  };
}
