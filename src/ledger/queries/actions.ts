// v2 action reads (and the v1 income reads, which show the same rows as kinds).
import type { Database } from "bun:sqlite";
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { ActionRecord, ActionType } from "../../domain/types.ts";
import { actionDetailBase, type V1Entry } from "../projections.ts";
import { nextOffset, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

/**
 * The list reads, each within a date range on `effective_at` (the whole history by default). Every
 * one reads an index on owner × effective_at: the v2 list `actions_owner_effective`, the v1 list
 * and its count the partial `actions_owner_v1` (rows with a v1 entry, which is exactly the rows
 * with a v1_kind; the count reads the index alone).
 */
export const listSql = {
  count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3",
  page: "SELECT type, summary FROM actions WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5",
  v1Count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3",
  v1Page: "SELECT v1_entry FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3 ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5",
};

export function actionQueries(sqlite: Database) {
  const count = sqlite.query(listSql.count);
  const page = sqlite.query(listSql.page);
  const oneDetail = sqlite.query("SELECT type, detail, payload FROM actions WHERE owner = ? AND id = ?");
  const taxonomy = instrumentQueries(sqlite);
  const v1Count = sqlite.query(listSql.v1Count);
  const v1Page = sqlite.query(listSql.v1Page);
  const v1One = sqlite.query("SELECT v1_entry, payload FROM actions WHERE owner = ? AND id = ? AND v1_entry IS NOT NULL");
  const journal = journalForAction(sqlite);

  return {
    /** The stored detail JSON (computed from the payload for rows written before it existed). */
    detailJson(owner: string, id: string) {
      const row = oneDetail.get(owner, id) as { type: ActionType; detail: string | null; payload: string } | null;
      if (!row) return null;
      const detail = row.detail ?? JSON.stringify(actionDetailBase(JSON.parse(row.payload) as ActionRecord));
      return { detail: withValidation(detail, taxonomy.validations().get(row.type)!), journal: journal(owner, id) };
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    listJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = (count.get(owner, range.from, range.before) as { n: number }).n;
      const validations = taxonomy.validations();
      const rows = (page.values(owner, range.from, range.before, p.limit, p.offset) as [ActionType, string][]).map(([type, summary]) => withValidation(summary, validations.get(type)!));
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeListJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = (v1Count.get(owner, range.from, range.before) as { n: number }).n;
      const rows = (v1Page.values(owner, range.from, range.before, p.limit, p.offset) as [string][]).map((r) => r[0]);
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeList(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = (v1Count.get(owner, range.from, range.before) as { n: number }).n;
      const rows = v1Page.all(owner, range.from, range.before, p.limit, p.offset) as { v1_entry: string }[];
      return { entries: rows.map((r) => JSON.parse(r.v1_entry) as V1Entry), total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeDetail(owner: string, id: string) {
      const row = v1One.get(owner, id) as { v1_entry: string; payload: string } | null;
      if (!row) return null;
      return { entry: JSON.parse(row.v1_entry) as V1Entry, action: JSON.parse(row.payload) as ActionRecord, journal: journal(owner, id) };
    },
  };
}
