// v2 action reads (and the v1 income reads, which show the same rows as kinds). Each document is
// its event's stored template with the wallet's values spliced in (action-rows.ts): no JSON is
// parsed to serve a list or a detail.
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { ActionRecord, ActionType } from "../../domain/types.ts";
import { splice, storedAction, storedValues, type StoredWallet } from "../action-rows.ts";
import type { V1Entry } from "../projections.ts";
import { kindList, nextOffset, type KindFilter, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";
import type { Sql, SqlValue } from "../sql/port.ts";

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

/** The wallet's columns a document is spliced from, and its event's (`e`). */
const WALLET = "a.id, a.owner, a.evidence_sha256, a.usd, a.wallet_values";
type Row<T> = StoredWallet & T;
const served = <T extends { template: string }>(r: Row<T>) => splice(r.template, storedValues(r));

/**
 * The list reads, each within a date range on `effective_at` (the whole history by default). Every
 * one reads an index on owner × effective_at: the v2 list `actions_owner_effective`, the v1 list
 * and its count the partial `actions_owner_v1` (rows with a v1 entry, which is exactly the rows
 * with a v1_kind; the count reads the index alone). The `OfKinds` variants keep some v1 kinds (a JSON
 * list, `?6` on a page, `?4` on a count), read off the same index. Each row found reads its event by id.
 */
export const listSql = {
  count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3",
  page: `SELECT a.type, e.summary AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id
    WHERE a.owner = ?1 AND a.effective_at >= ?2 AND a.effective_at < ?3 ORDER BY a.effective_at DESC, a.id DESC LIMIT ?4 OFFSET ?5`,
  v1Count: "SELECT count(*) AS n FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3",
  v1Page: `SELECT e.v1_entry AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id
    WHERE a.owner = ?1 AND a.v1_kind IS NOT NULL AND a.effective_at >= ?2 AND a.effective_at < ?3 ORDER BY a.effective_at DESC, a.id DESC LIMIT ?4 OFFSET ?5`,
  v1CountOfKinds: `SELECT count(*) AS n FROM actions WHERE owner = ?1 AND v1_kind IS NOT NULL AND effective_at >= ?2 AND effective_at < ?3 AND v1_kind IN ${kindList(4)}`,
  v1PageOfKinds: `SELECT e.v1_entry AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id
    WHERE a.owner = ?1 AND a.v1_kind IS NOT NULL AND a.effective_at >= ?2 AND a.effective_at < ?3 AND a.v1_kind IN ${kindList(6)}
    ORDER BY a.effective_at DESC, a.id DESC LIMIT ?4 OFFSET ?5`,
};

export function actionQueries(db: Sql) {
  const taxonomy = instrumentQueries(db);
  const journal = journalForAction(db);
  const countOf = async (text: string, owner: string, range: DateRange) => (await db.get<{ n: number }>(text, owner, range.from, range.before))!.n;
  const v1Count = async (owner: string, range: DateRange, kinds: KindFilter) =>
    kinds ? (await db.get<{ n: number }>(listSql.v1CountOfKinds, owner, range.from, range.before, JSON.stringify(kinds)))!.n : countOf(listSql.v1Count, owner, range);
  /** A page of v1 entries as served (some kinds only, when given). */
  const v1Page = async (owner: string, p: Page, range: DateRange = ALL_DATES, kinds?: KindFilter) => {
    const total = await v1Count(owner, range, kinds);
    const page = kinds ? await db.all<Row<{ template: string }>>(listSql.v1PageOfKinds, owner, range.from, range.before, p.limit, p.offset, JSON.stringify(kinds))
      : await db.all<Row<{ template: string }>>(listSql.v1Page, owner, range.from, range.before, p.limit, p.offset);
    const rows = page.map(served);
    return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
  };

  return {
    /** The detail as served, and the action's journal. */
    async detailJson(owner: string, id: string) {
      const row = await db.get<Row<{ type: ActionType; template: string }>>(
        `SELECT a.type, e.detail AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? AND a.id = ?`, owner, id);
      if (!row) return null;
      return { detail: withValidation(served(row), (await taxonomy.validations()).get(row.type)!), journal: await journal(owner, id) };
    },
    /** One action as the v2 list shows it, as JSON text (an event's `data`, docs/events.md#event-types); null when the wallet has no such action. */
    async itemJson(owner: string, id: string): Promise<string | null> {
      const row = await db.get<Row<{ type: ActionType; template: string }>>(
        `SELECT a.type, e.summary AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? AND a.id = ?`, owner, id);
      return row ? withValidation(served(row), (await taxonomy.validations()).get(row.type)!) : null;
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    async listJson(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const total = await countOf(listSql.count, owner, range);
      const validations = await taxonomy.validations();
      const page = await db.all<Row<{ type: ActionType; template: string }>>(listSql.page, owner, range.from, range.before, p.limit, p.offset);
      const rows = page.map((r) => withValidation(served(r), validations.get(r.type)!));
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeListJson: v1Page,
    async incomeList(owner: string, p: Page, range: DateRange = ALL_DATES) {
      const page = await v1Page(owner, p, range);
      return { entries: page.rows.map((r) => JSON.parse(r) as V1Entry), total: page.total, nextOffset: page.nextOffset };
    },
    async incomeDetail(owner: string, id: string) {
      const row = await db.get<Row<{ template: string; record: string }>>(
        `SELECT e.v1_entry AS template, e.record, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? AND a.id = ? AND a.v1_kind IS NOT NULL`, owner, id);
      if (!row) return null;
      return { entry: JSON.parse(served(row)) as V1Entry, action: storedAction(row, row.record) as ActionRecord, journal: await journal(owner, id) };
    },
  };
}

/** The action records behind stored rows (`where` filters the actions row `a`), in id order: for checks and tests. */
export async function actionRecords(db: Sql, where = "1 = 1", ...params: SqlValue[]): Promise<ActionRecord[]> {
  const rows = await db.all<StoredWallet & { record: string }>(`SELECT e.record, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE ${where} ORDER BY a.id`, ...params);
  return rows.map((r) => storedAction(r, r.record));
}
