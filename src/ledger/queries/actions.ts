// v2 action reads (and the v1 income reads, which show the same rows as kinds).
import type { Database } from "bun:sqlite";
import type { ActionRecord, ActionType } from "../../domain/types.ts";
import { actionDetailBase, type StoredAction, type StoredRevision, type V1Entry } from "../projections.ts";
import { nextOffset, type Page } from "./common.ts";
import { instrumentQueries } from "./instruments.ts";
import { journalForAction } from "./journal.ts";

/** Adds `"validation":…` before the closing brace of a stored action object (see projections.ts). */
function withValidation(stored: string, validation: string): string {
  return `${stored.slice(0, -1)},"validation":${validation}}`;
}

export function actionQueries(sqlite: Database) {
  const count = sqlite.query("SELECT count(*) AS n FROM actions WHERE owner = ?");
  const page = sqlite.query("SELECT type, summary FROM actions WHERE owner = ? ORDER BY effective_at DESC, id DESC LIMIT ? OFFSET ?");
  const oneDetail = sqlite.query("SELECT type, detail, payload FROM actions WHERE owner = ? AND id = ?");
  const taxonomy = instrumentQueries(sqlite);
  const records = sqlite.query("SELECT payload_sha256, payload FROM issuer_revisions WHERE event_id = ?");
  /** The stored revisions with their records put back (each record is stored once, by its hash). */
  const withRecords = (revisions: StoredRevision[]) => {
    const byHash = new Map<string, string>();
    for (const eventId of new Set(revisions.map((r) => r.eventId))) {
      for (const row of records.all(eventId) as { payload_sha256: string; payload: string }[]) byHash.set(row.payload_sha256, row.payload);
    }
    return revisions.map((r) => ({ ...r, record: JSON.parse(byHash.get(r.sha256) ?? "null") as Record<string, unknown> }));
  };
  // v1_kind is set exactly when v1_entry is, and its index answers the count alone.
  const v1Count = sqlite.query("SELECT count(*) AS n FROM actions WHERE owner = ? AND v1_kind IS NOT NULL");
  const v1Page = sqlite.query("SELECT v1_entry FROM actions WHERE owner = ? AND v1_entry IS NOT NULL ORDER BY effective_at DESC, id DESC LIMIT ? OFFSET ?");
  const v1One = sqlite.query("SELECT v1_entry, payload FROM actions WHERE owner = ? AND id = ? AND v1_entry IS NOT NULL");
  const journal = journalForAction(sqlite);

  return {
    /** The stored detail JSON (computed from the payload for rows written before it existed). */
    detailJson(owner: string, id: string) {
      const row = oneDetail.get(owner, id) as { type: ActionType; detail: string | null; payload: string } | null;
      if (!row) return null;
      const detail = JSON.parse(row.detail ?? JSON.stringify(actionDetailBase(JSON.parse(row.payload) as StoredAction))) as { revisions: StoredRevision[] };
      detail.revisions = withRecords(detail.revisions);
      return { detail: withValidation(JSON.stringify(detail), taxonomy.validations().get(row.type)!), journal: journal(owner, id) };
    },
    /** The same pages as stored JSON text, for routes that splice them without re-serialising. */
    listJson(owner: string, p: Page) {
      const total = (count.get(owner) as { n: number }).n;
      const validations = taxonomy.validations();
      const rows = (page.values(owner, p.limit, p.offset) as [ActionType, string][]).map(([type, summary]) => withValidation(summary, validations.get(type)!));
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeListJson(owner: string, p: Page) {
      const total = (v1Count.get(owner) as { n: number }).n;
      const rows = (v1Page.values(owner, p.limit, p.offset) as [string][]).map((r) => r[0]);
      return { rows, total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeList(owner: string, p: Page) {
      const total = (v1Count.get(owner) as { n: number }).n;
      const rows = v1Page.all(owner, p.limit, p.offset) as { v1_entry: string }[];
      return { entries: rows.map((r) => JSON.parse(r.v1_entry) as V1Entry), total, nextOffset: nextOffset(p, rows.length, total) };
    },
    incomeDetail(owner: string, id: string) {
      const row = v1One.get(owner, id) as { v1_entry: string; payload: string } | null;
      if (!row) return null;
      const stored = JSON.parse(row.payload) as StoredAction;
      const action: ActionRecord = { ...stored, revisions: withRecords(stored.revisions) as unknown as ActionRecord["revisions"] };
      return { entry: JSON.parse(row.v1_entry) as V1Entry, action, journal: journal(owner, id) };
    },
  };
}
