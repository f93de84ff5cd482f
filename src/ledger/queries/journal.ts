import type { Sql } from "../sql/port.ts";
import { ALL_DATES, type DateRange } from "../../domain/date-range.ts";
import type { V1Kind } from "../../domain/types.ts";
import { kindList, nextOffset, type KindFilter, type Page } from "./common.ts";

interface JournalRow {
  id: number; owner: string; action_id: string; entry_type: "recognition" | "reversal"; reverses_id: number | null; mint: string;
  symbol: string | null; kind: V1Kind; units_delta: string; principal_units_delta: string; income_units: string; usd: string | null;
  effective_at: string; change_reason: string | null; evidence_sha256: string; created_at: string;
}

export function journalEntry(r: JournalRow) {
  return {
    id: r.id, owner: r.owner, actionId: r.action_id, entryType: r.entry_type, reversesId: r.reverses_id, mint: r.mint, symbol: r.symbol,
    kind: r.kind, unitsDelta: r.units_delta, principalUnitsDelta: r.principal_units_delta, incomeUnits: r.income_units, usd: r.usd,
    effectiveAt: r.effective_at, changeReason: r.change_reason, evidenceSha256: r.evidence_sha256, createdAt: r.created_at,
  };
}

const columns = "id, owner, action_id, entry_type, reverses_id, mint, symbol, kind, units_delta, principal_units_delta, income_units, usd, effective_at, change_reason, evidence_sha256, created_at";

/**
 * The journal's list reads, within a date range on `effective_at` and optionally of some v1 kinds
 * (a JSON list, `?6` on a page, `?4` on a count): newest effective time first, ties by id, newest
 * first (docs/api.md#paging). Both read the index on owner × effective_at × id.
 */
export const journalSql = {
  count: "SELECT count(*) AS n FROM journal WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3",
  page: `SELECT ${columns} FROM journal WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5`,
  countOfKinds: `SELECT count(*) AS n FROM journal WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 AND kind IN ${kindList(4)}`,
  pageOfKinds: `SELECT ${columns} FROM journal WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 AND kind IN ${kindList(6)} ORDER BY effective_at DESC, id DESC LIMIT ?4 OFFSET ?5`,
};

export function journalQueries(db: Sql) {
  const count = async (owner: string, range: DateRange, kinds: KindFilter) =>
    (await (kinds ? db.get<{ n: number }>(journalSql.countOfKinds, owner, range.from, range.before, JSON.stringify(kinds))
      : db.get<{ n: number }>(journalSql.count, owner, range.from, range.before)))!.n;
  const page = (owner: string, p: Page, range: DateRange, kinds: KindFilter) =>
    kinds ? db.all<JournalRow>(journalSql.pageOfKinds, owner, range.from, range.before, p.limit, p.offset, JSON.stringify(kinds))
      : db.all<JournalRow>(journalSql.page, owner, range.from, range.before, p.limit, p.offset);
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

export function journalForAction(db: Sql) {
  const q = `SELECT ${columns} FROM journal WHERE owner = ? AND action_id = ? ORDER BY id`;
  return async (owner: string, actionId: string) => (await db.all<JournalRow>(q, owner, actionId)).map(journalEntry);
}
