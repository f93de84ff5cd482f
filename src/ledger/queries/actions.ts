// v2 action reads (and the v1 income reads, which show the same rows as kinds).
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { ActionRecord } from "../../domain/types.ts";
import { actionDetailBase, type V1Entry } from "../projections.ts";
import { nextOffset, type KindFilter, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";
import type { Sql } from "../sql/port.ts";
import { actionSql } from "../tables/actions.ts";

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

export function actionQueries(db: Sql) {
  const taxonomy = instrumentQueries(db);
  const journal = journalForAction(db);
  // Each list read is within a date range on `effective_at` (the whole history by default); the
  // `OfKinds` variants keep some v1 kinds (tables/actions.ts says which index each reads).
  const period = (owner: string, range: DateRange) => ({ owner, from: range.from, before: range.before });
  const v1Count = async (owner: string, range: DateRange, kinds: KindFilter) =>
    (await (kinds ? db.get(actionSql.v1CountOfKinds, { ...period(owner, range), kinds }) : db.get(actionSql.v1Count, period(owner, range))))!.n;
  const v1Page = (owner: string, p: Page, range: DateRange, kinds: KindFilter) => {
    const params = { ...period(owner, range), limit: p.limit, offset: p.offset };
    return kinds ? db.values(actionSql.v1PageOfKinds, { ...params, kinds }) : db.values(actionSql.v1Page, params);
  };

  return {
    /** The stored detail JSON (computed from the payload for rows written before it existed). */
    async detailJson(owner: string, id: string) {
      const row = await db.get(actionSql.detail, { owner, id });
      if (!row) return null;
      const detail = row.detail ?? JSON.stringify(actionDetailBase(JSON.parse(row.payload) as ActionRecord));
      return { detail: withValidation(detail, (await taxonomy.validations()).get(row.type)!), journal: await journal(owner, id) };
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    async listJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = (await db.get(actionSql.count, period(owner, range)))!.n;
      const validations = await taxonomy.validations();
      const page = await db.values(actionSql.page, { ...period(owner, range), limit: p.limit, offset: p.offset });
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
      const row = await db.get(actionSql.v1Detail, { owner, id });
      if (!row) return null;
      return { entry: JSON.parse(row.v1_entry) as V1Entry, action: JSON.parse(row.payload) as ActionRecord, journal: await journal(owner, id) };
    },
  };
}
