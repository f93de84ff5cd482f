// The current classification of each wallet × chain transition: the engine's record (payload and
// hash), its indexed columns, and the read models projected from it when it was written.
import { inList, jsonText, query, sql, statements, type Params } from "../sql/statement.ts";
import type { ActionType, V1Kind } from "../../domain/types.ts";

export interface ActionRow {
  id: string; owner: string; mint: string; type: ActionType; treatment: string; state: string; effective_at: string; usd: string | null;
  payload: string; summary: string; v1_entry: string | null; v1_kind: V1Kind | null; detail: string | null; payload_sha256: string; evidence_sha256: string;
  first_observed_active_at: string | null; updated_at: string;
}

/** An action's row as booking writes it (writers.ts builds it). */
export type ActionWrite = {
  id: string; owner: string; mint: string; type: string; treatment: string; state: string; effectiveAt: string; usd: string | null; payload: string;
  summary: string; v1Entry: string | null; v1Kind: string | null; payloadSha256: string; evidenceSha256: string; firstObservedActiveAt: string | null; detail: string;
};

/** A wallet's actions effective within [from, before). */
type Period = { owner: string; from: string; before: string };
type PageOf = Period & { limit: number; offset: number };
type Kinds = { kinds: readonly V1Kind[] };

const inPeriod = (p: Params<Period>) => sql`owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before}`;
const newestFirst = sql`ORDER BY effective_at DESC, id DESC`;

export const actionSql = statements("actions", {
  /**
   * Writes one action; a row whose payload did not change is left as it is (a row from before
   * migration 0004 gets its detail).
   */
  upsert: query<ActionWrite & { at: string }>((p) => sql`INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, updated_at, detail)
     VALUES (${p.id}, ${p.owner}, ${p.mint}, ${p.type}, ${p.treatment}, ${p.state}, ${p.effectiveAt}, ${p.usd}, ${p.payload}, ${p.summary}, ${p.v1Entry}, ${p.v1Kind}, ${p.payloadSha256}, ${p.evidenceSha256}, ${p.firstObservedActiveAt}, ${p.at}, ${p.detail})
     ON CONFLICT(id) DO UPDATE SET type = ${p.type}, treatment = ${p.treatment}, state = ${p.state}, effective_at = ${p.effectiveAt}, usd = ${p.usd}, payload = ${p.payload}, summary = ${p.summary}, v1_entry = ${p.v1Entry},
       v1_kind = ${p.v1Kind}, payload_sha256 = ${p.payloadSha256}, evidence_sha256 = ${p.evidenceSha256}, first_observed_active_at = ${p.firstObservedActiveAt}, updated_at = ${p.at}, detail = ${p.detail}
       WHERE actions.payload_sha256 IS DISTINCT FROM ${p.payloadSha256} OR actions.detail IS NULL`),
  delete: query<{ id: string }>((p) => sql`DELETE FROM actions WHERE id = ${p.id}`),
  /** The stored payload hashes of these wallets' actions. */
  hashesOfOwners: query<{ owners: readonly string[] }, Pick<ActionRow, "id" | "owner" | "payload_sha256">>((p) => sql`SELECT id, owner, payload_sha256 FROM actions WHERE owner IN ${inList(p.owners)}`),
  unclassifiedOfOwners: query<{ owners: readonly string[] }, { owner: string; n: number }>((p) =>
    sql`SELECT owner, count(*) AS n FROM actions WHERE owner IN ${inList(p.owners)} AND v1_kind = 'unclassified_adjustment' GROUP BY owner`),

  // ---- the list reads, each off an index on owner × effective_at: the v2 list
  // `actions_owner_effective`, the v1 list and its count the partial `actions_owner_v1` (rows with a
  // v1 entry, which is exactly the rows with a v1_kind; the count reads the index alone)
  count: query<Period, { n: number }>((p) => sql`SELECT count(*) AS n FROM actions WHERE ${inPeriod(p)}`),
  page: query<PageOf, [ActionType, string]>((p) => sql`SELECT type, summary FROM actions WHERE ${inPeriod(p)} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`),
  v1Count: query<Period, { n: number }>((p) => sql`SELECT count(*) AS n FROM actions WHERE owner = ${p.owner} AND v1_kind IS NOT NULL AND effective_at >= ${p.from} AND effective_at < ${p.before}`),
  v1Page: query<PageOf, [string]>((p) =>
    sql`SELECT v1_entry FROM actions WHERE owner = ${p.owner} AND v1_kind IS NOT NULL AND effective_at >= ${p.from} AND effective_at < ${p.before} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`),
  v1CountOfKinds: query<Period & Kinds, { n: number }>((p) =>
    sql`SELECT count(*) AS n FROM actions WHERE owner = ${p.owner} AND v1_kind IS NOT NULL AND effective_at >= ${p.from} AND effective_at < ${p.before} AND v1_kind IN ${inList(p.kinds)}`),
  v1PageOfKinds: query<PageOf & Kinds, [string]>((p) =>
    sql`SELECT v1_entry FROM actions WHERE owner = ${p.owner} AND v1_kind IS NOT NULL AND effective_at >= ${p.from} AND effective_at < ${p.before} AND v1_kind IN ${inList(p.kinds)} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`),
  detail: query<{ owner: string; id: string }, Pick<ActionRow, "type" | "detail" | "payload">>((p) => sql`SELECT type, detail, payload FROM actions WHERE owner = ${p.owner} AND id = ${p.id}`),
  v1Detail: query<{ owner: string; id: string }, { v1_entry: string; payload: string }>((p) =>
    sql`SELECT v1_entry, payload FROM actions WHERE owner = ${p.owner} AND id = ${p.id} AND v1_entry IS NOT NULL`),
  /**
   * A wallet's income events of a period for the tax exports, oldest first, with the ISIN of the
   * instrument held: the matched issuer record's (as stored in issuer_revisions), else the instrument's.
   */
  taxEvents: query<Period & { limit: number }, { detail: string | null; payload: string | null; isin: string | null; recordIsin: string | null }>((p) => {
    const stored = sql`coalesce(a.detail, a.payload)`;
    return sql`SELECT a.detail, CASE WHEN a.detail IS NULL THEN a.payload END AS payload, i.isin,
  (SELECT ${jsonText(sql`r.payload`, "xstockIsin")} FROM issuer_revisions r
    WHERE r.event_id = ${jsonText(stored, "matched.eventId")}
      AND r.version = CAST(${jsonText(stored, "matched.version")} AS INTEGER)
      AND r.payload_sha256 = ${jsonText(stored, "matched.sha256")}) AS "recordIsin"
  FROM actions a LEFT JOIN instruments i ON i.mint = a.mint
  WHERE a.owner = ${p.owner} AND a.v1_kind IS NOT NULL AND a.effective_at >= ${p.from} AND a.effective_at < ${p.before} AND a.treatment = 'income'
  ORDER BY a.effective_at, a.id LIMIT ${p.limit}`;
  }),

  // ---- verify and the gauges
  hashes: query<Record<never, never>, Pick<ActionRow, "id" | "payload" | "payload_sha256" | "evidence_sha256">>(() =>
    sql`SELECT id, payload, payload_sha256, evidence_sha256 FROM actions ORDER BY id`),
  v1Income: query<Record<never, never>, { owner: string; v1_entry: string }>(() => sql`SELECT owner, v1_entry FROM actions WHERE v1_entry IS NOT NULL AND treatment = 'income'`),
  readModels: query<Record<never, never>, Omit<ActionRow, "payload_sha256" | "evidence_sha256" | "updated_at">>(() =>
    sql`SELECT id, owner, mint, type, treatment, state, effective_at, usd, first_observed_active_at, payload, summary, v1_entry, v1_kind, detail FROM actions ORDER BY id`),
  ownerHashes: query<Record<never, never>, Pick<ActionRow, "id" | "owner" | "payload_sha256">>(() => sql`SELECT id, owner, payload_sha256 FROM actions`),
  countByType: query<Record<never, never>, { type: string; n: number }>(() => sql`SELECT type, count(*) AS n FROM actions GROUP BY type`),
  total: query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM actions`),
});
