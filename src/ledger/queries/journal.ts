import type { Sql } from "../sql/port.ts";
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import { journalEntry, journalSql } from "../tables/journal.ts";
import { nextOffset, type KindFilter, type Page } from "./common.ts";

export { journalEntry };

export function journalQueries(db: Sql) {
  const count = async (owner: string, range: DateRange, kinds: KindFilter) => {
    const period = { owner, from: range.from, before: range.before };
    return (await (kinds ? db.get(journalSql.countOfKinds, { ...period, kinds }) : db.get(journalSql.count, period)))!.n;
  };
  const page = (owner: string, p: Page, range: DateRange, kinds: KindFilter) => {
    const params = { owner, from: range.from, before: range.before, limit: p.limit, offset: p.offset };
    return kinds ? db.all(journalSql.pageOfKinds, { ...params, kinds }) : db.all(journalSql.page, params);
  };
  return {
    async list(owner: string, p: Page, range: DateRange = ALL_DATES, kinds?: KindFilter) {
      const total = await count(owner, range, kinds);
      const rows = await page(owner, p, range, kinds);
      return { entries: rows.map(journalEntry), total, nextOffset: nextOffset(p, rows.length, total) };
    },
    /** Whole journal for an export, in the list's order; `max + 1` rows so the caller can refuse an oversize export. */
    async all(owner: string, max: number, range: DateRange = ALL_DATES) {
      return (await page(owner, { limit: max + 1, offset: 0 }, range, undefined)).map(journalEntry);
    },
  };
}

/** An action's journal; `on`: a transaction of `db`'s. */
export function journalForAction(db: Sql) {
  return async (owner: string, actionId: string, on: Sql = db) => (await on.all(journalSql.ofAction, { owner, actionId })).map(journalEntry);
}
