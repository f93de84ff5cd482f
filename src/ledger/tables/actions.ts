// The current classification of each wallet × chain transition: the wallet's own values and the
// event it shows (action-events.ts). Each served document is the event's template with the
// wallet's values spliced in, and the action record is the event's record with them put back
// (action-rows.ts): `actionDocument` and `actionFromRow` below are the one mapping of these rows.
import { actionRowid, placedColumn, placedValue } from "../sql/placement.ts";
import { hashColumn, hashText, hashValue } from "../sql/hash-bytes.ts";
import { inList, jsonText, query, sql, statements, type Params } from "../sql/statement.ts";
import { splice, storedAction, storedValues, type ActionColumns, type StoredWallet } from "../action-rows.ts";
import type { ActionRecord, ActionType, V1Kind } from "../../domain/types.ts";

/** An `actions` row as stored. */
export interface ActionsTableRow extends StoredWallet {
  effective_at: string;
  v1_kind: V1Kind | null;
  payload_sha256: string;
  event_id: number;
}

/**
 * An action's row with the event row it shows and the event's columns (null event columns: the
 * event row is missing).
 */
export type ActionWithEventRow = ActionsTableRow & {
  mint: string | null;
  type: ActionType | null;
  treatment: string | null;
  state: string | null;
  first_observed_active_at: string | null;
  record: string | null;
  summary: string | null;
  detail: string | null;
  v1_entry: string | null;
};

/** A served document's row: the event's template and the wallet's values. */
export type DocumentRow = StoredWallet & { template: string };

/** A served document (the v2 list item, the v2 detail, the v1 entry) as JSON text. */
export const actionDocument = (r: DocumentRow): string => splice(r.template, storedValues(r));

/** The action record a row and its event's record stand for. */
export const actionFromRow = (r: StoredWallet & { record: string }): ActionRecord => storedAction(r, r.record);

/** A wallet's actions effective within [from, before). */
type Period = { owner: string; from: string; before: string };
type PageOf = Period & { limit: number; offset: number };
type Kinds = { kinds: readonly V1Kind[] };

// The wallet's columns a document is spliced from; `e` is its event.
// The hashes are read as hex (../sql/hash-bytes.ts).
const wallet = sql`a.id, a.owner, ${hashColumn("evidence_sha256", "a")}, a.usd, a.wallet_values`;
const payloadHash = hashText(sql`actions.payload_sha256`);
const withEvent = sql`actions a JOIN action_events e ON e.id = a.event_id`;
const inPeriod = (p: Params<Period>) => sql`a.owner = ${p.owner} AND a.effective_at >= ${p.from} AND a.effective_at < ${p.before}`;
const v1InPeriod = (p: Params<Period>) => sql`a.owner = ${p.owner} AND a.v1_kind IS NOT NULL AND a.effective_at >= ${p.from} AND a.effective_at < ${p.before}`;
const newestFirst = sql`ORDER BY a.effective_at DESC, a.id DESC`;

export const actionSql = statements("actions", {
  /**
   * Writes one action; a row whose payload did not change is left as it is (its event row with it).
   * A new row is placed beside its event's other actions (../sql/placement.ts).
   */
  upsert: query<ActionColumns & { eventId: number }>(
    (p) => sql`INSERT INTO actions (${placedColumn}id, owner, effective_at, usd, v1_kind, payload_sha256, evidence_sha256, wallet_values, event_id)
     VALUES (${placedValue(actionRowid(p.eventId, p.owner))}${p.id}, ${p.owner}, ${p.effectiveAt}, ${p.usd}, ${p.v1Kind}, ${hashValue(p.payloadSha256)}, ${hashValue(p.evidenceSha256)}, ${p.walletValues}, ${p.eventId})
     ON CONFLICT(id) DO UPDATE SET effective_at = ${p.effectiveAt}, usd = ${p.usd}, v1_kind = ${p.v1Kind}, payload_sha256 = ${hashValue(p.payloadSha256)}, evidence_sha256 = ${hashValue(p.evidenceSha256)},
       wallet_values = ${p.walletValues}, event_id = ${p.eventId}
       WHERE ${payloadHash} IS DISTINCT FROM ${p.payloadSha256}`,
  ),
  /**
   * Rewrites a stored action in place when it keeps its place in the index (the same effective
   * time and v1 kind), which is then left untouched: SQLite rewrites an index an UPDATE sets a
   * column of, whatever the value (docs/storage.md#writing-only-what-changed). No row changes
   * when it moved, or when its payload did not change.
   */
  updateInPlace: query<ActionColumns & { eventId: number }>(
    (
      p,
    ) => sql`UPDATE actions SET usd = ${p.usd}, payload_sha256 = ${hashValue(p.payloadSha256)}, evidence_sha256 = ${hashValue(p.evidenceSha256)}, wallet_values = ${p.walletValues}, event_id = ${p.eventId}
     WHERE id = ${p.id} AND effective_at = ${p.effectiveAt} AND v1_kind IS NOT DISTINCT FROM ${p.v1Kind} AND ${payloadHash} IS DISTINCT FROM ${p.payloadSha256}`,
  ),
  delete: query<{ id: string }>((p) => sql`DELETE FROM actions WHERE id = ${p.id}`),
  eventOf: query<{ id: string }, { event_id: number }>((p) => sql`SELECT event_id FROM actions WHERE id = ${p.id}`),
  /** The stored payload hashes of these wallets' actions, and the events they show. */
  hashesOfOwners: query<{ owners: readonly string[] }, Pick<ActionsTableRow, "id" | "owner" | "payload_sha256" | "event_id">>(
    (p) => sql`SELECT id, owner, ${hashColumn("payload_sha256")}, event_id FROM actions WHERE owner IN ${inList(p.owners)}`,
  ),
  unclassifiedOfOwners: query<{ owners: readonly string[] }, { owner: string; n: number }>(
    (p) => sql`SELECT owner, count(*) AS n FROM actions WHERE owner IN ${inList(p.owners)} AND v1_kind = 'unclassified_adjustment' GROUP BY owner`,
  ),

  // ---- the list reads, each off the index on owner × effective_at × id × v1_kind,
  // `actions_owner_effective`: the v1 lists keep the rows with a v1_kind (exactly the rows with a v1
  // entry) as they read the index, so the counts read the index alone. Each row found reads its
  // event by id.
  count: query<Period, { n: number }>((p) => sql`SELECT count(*) AS n FROM actions a WHERE ${inPeriod(p)}`),
  page: query<PageOf, DocumentRow & { type: ActionType }>(
    (p) => sql`SELECT e.type, e.summary AS template, ${wallet} FROM ${withEvent} WHERE ${inPeriod(p)} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`,
  ),
  v1Count: query<Period, { n: number }>((p) => sql`SELECT count(*) AS n FROM actions a WHERE ${v1InPeriod(p)}`),
  v1Page: query<PageOf, DocumentRow>((p) => sql`SELECT e.v1_entry AS template, ${wallet} FROM ${withEvent} WHERE ${v1InPeriod(p)} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`),
  v1CountOfKinds: query<Period & Kinds, { n: number }>((p) => sql`SELECT count(*) AS n FROM actions a WHERE ${v1InPeriod(p)} AND a.v1_kind IN ${inList(p.kinds)}`),
  v1PageOfKinds: query<PageOf & Kinds, DocumentRow>(
    (p) => sql`SELECT e.v1_entry AS template, ${wallet} FROM ${withEvent} WHERE ${v1InPeriod(p)} AND a.v1_kind IN ${inList(p.kinds)} ${newestFirst} LIMIT ${p.limit} OFFSET ${p.offset}`,
  ),
  detail: query<{ owner: string; id: string }, DocumentRow & { type: ActionType }>(
    (p) => sql`SELECT e.type, e.detail AS template, ${wallet} FROM ${withEvent} WHERE a.owner = ${p.owner} AND a.id = ${p.id}`,
  ),
  v1Detail: query<{ owner: string; id: string }, DocumentRow & { record: string }>(
    (p) => sql`SELECT e.v1_entry AS template, e.record, ${wallet} FROM ${withEvent} WHERE a.owner = ${p.owner} AND a.id = ${p.id} AND a.v1_kind IS NOT NULL`,
  ),
  /**
   * A wallet's income events of a period for the tax exports, oldest first, with the ISIN of the
   * instrument held: the matched issuer record's (as stored in issuer_revisions; the event's record
   * names it), else the instrument's.
   */
  taxEvents: query<Period & { limit: number }, DocumentRow & { isin: string | null; recordIsin: string | null }>(
    (p) => sql`SELECT e.detail AS template, ${wallet}, i.isin,
  (SELECT ${jsonText(sql`r.payload`, "xstockIsin")} FROM issuer_revisions r
    WHERE r.event_id = ${jsonText(sql`e.record`, "matched.eventId")}
      AND r.version = CAST(${jsonText(sql`e.record`, "matched.version")} AS INTEGER)
      AND r.payload_sha256 = ${jsonText(sql`e.record`, "matched.sha256")}) AS "recordIsin"
  FROM ${withEvent} LEFT JOIN instruments i ON i.mint = e.mint
  WHERE ${v1InPeriod(p)} AND e.treatment = 'income'
  ORDER BY a.effective_at, a.id LIMIT ${p.limit}`,
  ),

  // ---- the records behind the rows (checks and tests), in id order
  records: query<{ id: string | null }, StoredWallet & { record: string }>(
    (p) => sql`SELECT e.record, ${wallet} FROM ${withEvent} WHERE CAST(${p.id} AS TEXT) IS NULL OR a.id = ${p.id} ORDER BY a.id`,
  ),
  /** These wallets' rows with the key of the event each shows (the lot engine parses each event once). */
  walletsOfOwners: query<{ owners: readonly string[] }, StoredWallet & { event_sha256: string }>(
    (p) => sql`SELECT ${wallet}, e.sha256 AS event_sha256 FROM ${withEvent} WHERE a.owner IN ${inList(p.owners)} ORDER BY a.id`,
  ),
  recordsOfOwners: query<{ owners: readonly string[] }, StoredWallet & { record: string }>((p) => sql`SELECT e.record, ${wallet} FROM ${withEvent} WHERE a.owner IN ${inList(p.owners)} ORDER BY a.id`),

  // ---- the upgrade to rows placed in key order (../upgrades.ts; SQLite's alone)
  /** Every action's key, in the order of their places. */
  placeKeys: query<Record<never, never>, Pick<ActionsTableRow, "id" | "event_id" | "owner">>(() => sql`SELECT id, event_id, owner FROM actions ORDER BY event_id, owner`, {
    engines: ["sqlite"],
  }),
  /** Moves one action to its place (it stays where it is when no rowid is free there). */
  place: query<{ id: string; eventId: number; owner: string }>((p) => sql`UPDATE actions SET rowid = coalesce(${actionRowid(p.eventId, p.owner)}, rowid) WHERE id = ${p.id}`, {
    engines: ["sqlite"],
  }),

  // ---- verify and the gauges
  /** Each action's row and the event row it shows (null event columns: the event row is missing). */
  withEvents: query<Record<never, never>, ActionWithEventRow>(
    () =>
      sql`SELECT a.id, a.owner, e.mint, e.type, e.treatment, e.state, a.effective_at, a.usd, a.v1_kind, ${hashColumn("payload_sha256", "a")},
     ${hashColumn("evidence_sha256", "a")}, e.first_observed_active_at,
     a.wallet_values, a.event_id, e.record, e.summary, e.detail, e.v1_entry
   FROM actions a LEFT JOIN action_events e ON e.id = a.event_id ORDER BY a.id`,
  ),
  v1Income: query<Record<never, never>, DocumentRow>(() => sql`SELECT e.v1_entry AS template, ${wallet} FROM ${withEvent} WHERE a.v1_kind IS NOT NULL AND e.treatment = 'income'`),
  ownerHashes: query<Record<never, never>, Pick<ActionsTableRow, "id" | "owner" | "payload_sha256">>(() => sql`SELECT id, owner, ${hashColumn("payload_sha256")} FROM actions`),
  countByType: query<Record<never, never>, { type: string; n: number }>(() => sql`SELECT e.type, count(*) AS n FROM ${withEvent} GROUP BY e.type`),
  total: query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM actions`),
  /** Stored lifecycle states of some actions (the events a booking writes compare them). */
  statesOf: query<{ ids: readonly string[] }, { id: string; state: string }>((p) => sql`SELECT a.id, e.state FROM ${withEvent} WHERE a.id IN ${inList(p.ids)}`),
  /** One action as the v2 list shows it (an event's `data`). */
  item: query<{ owner: string; id: string }, DocumentRow & { type: ActionType }>(
    (p) => sql`SELECT e.type, e.summary AS template, ${wallet} FROM ${withEvent} WHERE a.owner = ${p.owner} AND a.id = ${p.id}`,
  ),
  /**
   * The calendar (calendar.ts): actions known before they take effect (announced, confirmed) of
   * the tenant's wallets whose books it sees, or of one of them; their v2 detail, in time order.
   */
  pendingOfTenant: query<{ tenantId: number; owner: string | null }, DocumentRow & { mint: string; transition_key: string | null; effective_at: string }>(
    (p) =>
      sql`SELECT e.detail AS template, e.mint, e.transition_key, a.effective_at, ${wallet}
      FROM tenant_wallets w JOIN actions a ON a.owner = w.owner JOIN action_events e ON e.id = a.event_id
     WHERE w.tenant_id = ${p.tenantId} AND w.first_synced_at IS NOT NULL AND (CAST(${p.owner} AS TEXT) IS NULL OR w.owner = ${p.owner})
       AND e.state IN ('announced', 'confirmed')
     ORDER BY a.effective_at, e.mint, a.owner`,
  ),
});
