// v2 action reads (and the v1 income reads, which show the same rows as kinds). Each document is
// its event's stored template with the wallet's values spliced in (tables/actions.ts,
// action-rows.ts): no JSON is parsed to serve a list or a detail.
import { withValidation } from "../action-item.ts";
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { ActionRecord } from "../../domain/types.ts";
import type { V1Entry } from "../projections.ts";
import { nextOffset, type KindFilter, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";
import { readTogether, type Sql } from "../sql/port.ts";
import { actionDocument, actionFromRow, actionSql } from "../tables/actions.ts";

export function actionQueries(db: Sql) {
  const taxonomy = instrumentQueries(db);
  const journal = journalForAction(db);
  // Each list read is within a date range on `effective_at` (the whole history by default); the
  // `OfKinds` variants keep some v1 kinds (tables/actions.ts says which index each reads).
  const period = (owner: string, range: DateRange) => ({ owner, from: range.from, before: range.before });
  const v1Count = async (owner: string, range: DateRange, kinds: KindFilter) =>
    (await (kinds ? db.get(actionSql.v1CountOfKinds, { ...period(owner, range), kinds }) : db.get(actionSql.v1Count, period(owner, range))))!.n;
  /** A page of v1 entries as served (some kinds only, when given). */
  const v1Page = async (owner: string, p: Page, range: DateRange = ALL_DATES, kinds?: KindFilter) => {
    const total = await v1Count(owner, range, kinds);
    const params = { ...period(owner, range), limit: p.limit, offset: p.offset };
    const page = kinds ? await db.all(actionSql.v1PageOfKinds, { ...params, kinds }) : await db.all(actionSql.v1Page, params);
    const rows = page.map(actionDocument);
    return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
  };

  return {
    /** The detail as served, and the action's journal: its three reads together (the row, the census's version, the journal). `on`: a transaction of `db`'s. */
    async detailJson(owner: string, id: string, on: Sql = db) {
      return readTogether(on, async (on) => {
        const row = await on.get(actionSql.detail, { owner, id });
        if (!row) return null;
        return { detail: withValidation(actionDocument(row), (await taxonomy.validations(on)).get(row.type)!), journal: await journal(owner, id, on) };
      });
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    async listJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = (await db.get(actionSql.count, period(owner, range)))!.n;
      const validations = await taxonomy.validations();
      const page = await db.all(actionSql.page, { ...period(owner, range), limit: p.limit, offset: p.offset });
      const rows = page.map((r) => withValidation(actionDocument(r), validations.get(r.type)!));
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeListJson: v1Page,
    async incomeList(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const page = await v1Page(owner, p, range);
      return { entries: page.rows.map((r) => JSON.parse(r) as V1Entry), total: page.total, nextOffset: page.nextOffset };
    },
    async incomeDetail(owner: string, id: string) {
      const row = await db.get(actionSql.v1Detail, { owner, id });
      if (!row) return null;
      return { entry: JSON.parse(actionDocument(row)) as V1Entry, action: actionFromRow(row), journal: await journal(owner, id) };
    },
  };
}

/** The action records behind stored rows (one action's, or some wallets'; all by default), in id order: for checks and tests. */
export async function actionRecords(db: Sql, filter: { id?: string; owners?: readonly string[] } = {}): Promise<ActionRecord[]> {
  const rows = filter.owners ? await db.all(actionSql.recordsOfOwners, { owners: filter.owners }) : await db.all(actionSql.records, { id: filter.id ?? null });
  return rows.map(actionFromRow);
}
