// v2 action reads (and the v1 income reads, which show the same rows as kinds).
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { ActionRecord, ActionType } from "../../domain/types.ts";
import { actionDetailBase, type V1Entry } from "../projections.ts";
import { kindList, nextOffset, type KindFilter, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";
import type { Sql } from "../sql/port.ts";

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

/**
 * The list reads, each within a date range on `effective_at` (the whole history by default). Every
 * one reads an index on owner × effective_at: the v2 list `actions_owner_effective`, the v1 list
 * and its count the partial `actions_owner_v1` (rows with a v1 entry, which is exactly the rows
 * with a v1_kind; the count reads the index alone). The `OfKinds` variants keep some v1 kinds (a JSON
 * list, `?6` on a page, `?4` on a count), read off the same index.
 */
export const listSql = {
  count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3",
  page: "SELECT type, summary FROM actions WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5",
  v1Count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3",
  v1Page: "SELECT v1_entry FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3 ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5",
  v1CountOfKinds: `SELECT count(*) AS n FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3 AND v1_kind IN ${kindList(4)}`,
  v1PageOfKinds: `SELECT v1_entry FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3 AND v1_kind IN ${kindList(6)} ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5`,
};

export function actionQueries(db: Sql) {
  const taxonomy = instrumentQueries(db);
  const journal = journalForAction(db);
  const countOf = async (text: string, owner: string, range: DateRange) => (await db.get<{ n: number }>(text, owner, range.from, range.before))!.n;
  const v1Count = async (owner: string, range: DateRange, kinds: KindFilter) =>
    kinds ? (await db.get<{ n: number }>(listSql.v1CountOfKinds, owner, range.from, range.before, JSON.stringify(kinds)))!.n : countOf(listSql.v1Count, owner, range);
  const v1Page = (owner: string, p: Page, range: DateRange, kinds: KindFilter) =>
    kinds ? db.values<[string]>(listSql.v1PageOfKinds, owner, range.from, range.before, p.limit, p.offset, JSON.stringify(kinds))
      : db.values<[string]>(listSql.v1Page, owner, range.from, range.before, p.limit, p.offset);

  return {
    /** The stored detail JSON (computed from the payload for rows written before it existed). */
    async detailJson(owner: string, id: string) {
      const row = await db.get<{ type: ActionType; detail: string | null; payload: string }>("SELECT type, detail, payload FROM actions WHERE owner = ? AND id = ?", owner, id);
      if (!row) return null;
      const detail = row.detail ?? JSON.stringify(actionDetailBase(JSON.parse(row.payload) as ActionRecord));
      return { detail: withValidation(detail, (await taxonomy.validations()).get(row.type)!), journal: await journal(owner, id) };
    },
    /** One action as the v2 list shows it, as JSON text (an event's `data`, docs/events.md#event-types); null when the wallet has no such action. */
    async itemJson(owner: string, id: string): Promise<string | null> {
      const row = await db.get<{ type: ActionType; summary: string }>("SELECT type, summary FROM actions WHERE owner = ? AND id = ?", owner, id);
      return row ? withValidation(row.summary, (await taxonomy.validations()).get(row.type)!) : null;
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    async listJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = await countOf(listSql.count, owner, range);
      const validations = await taxonomy.validations();
      const page = await db.values<[ActionType, string]>(listSql.page, owner, range.from, range.before, p.limit, p.offset);
      const rows = page.map(([type, summary]) => withValidation(summary, validations.get(type)!));
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    async incomeListJson(owner: string, p: Page, range: DateRange = ALL_DATES, kinds?: KindFilter) {
      const total = await v1Count(owner, range, kinds);
      const rows = (await v1Page(owner, p, range, kinds)).map((r) => r[0]);
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    async incomeList(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = await v1Count(owner, range, undefined);
      const rows = await v1Page(owner, p, range, undefined);
      return { entries: rows.map((r) => JSON.parse(r[0]) as V1Entry), total, nextOffset: nextOffset(p, rows.length, total) };
    },
    async incomeDetail(owner: string, id: string) {
      const row = await db.get<{ v1_entry: string; payload: string }>("SELECT v1_entry, payload FROM actions WHERE owner = ? AND id = ? AND v1_entry IS NOT NULL", owner, id);
      if (!row) return null;
      return { entry: JSON.parse(row.v1_entry) as V1Entry, action: JSON.parse(row.payload) as ActionRecord, journal: await journal(owner, id) };
    },
  };
}
