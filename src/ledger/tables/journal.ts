// The journal (append-only): each wallet × action's recognitions, and the reversals of those a
// change of evidence replaced, each row sealed in a chain (seals.ts).
import { hashText, hashValue } from "../sql/hash-bytes.ts";
import { ident, inList, jsonText, query, sql, statements, type SqlFragment } from "../sql/statement.ts";
import type { IncomeEntry } from "../../domain/income-report.ts";
import type { V1Kind } from "../../domain/types.ts";

export interface JournalRow {
  id: number;
  owner: string;
  action_id: string;
  entry_type: "recognition" | "reversal";
  reverses_id: number | null;
  mint: string;
  symbol: string | null;
  type: string;
  treatment: string;
  kind: V1Kind;
  units_delta: string;
  principal_units_delta: string;
  income_units: string;
  usd: string | null;
  factor: string | null;
  effective_at: string;
  change_reason: string | null;
  evidence_sha256: string;
  payload: string;
  created_at: string;
  row_sha256: string | null;
}

/** An entry's columns that hold its booking's fields, with its stored payload (src/ledger/journal-payload.ts). */
export type StoredEntry = Pick<
  JournalRow,
  | "owner"
  | "action_id"
  | "mint"
  | "symbol"
  | "type"
  | "treatment"
  | "kind"
  | "units_delta"
  | "principal_units_delta"
  | "income_units"
  | "usd"
  | "factor"
  | "effective_at"
  | "evidence_sha256"
  | "payload"
>;

/** A journal entry as the API shows it. */
export type ListedEntryRow = Omit<JournalRow, "type" | "treatment" | "factor" | "payload" | "row_sha256">;

export function journalEntry(r: ListedEntryRow) {
  return {
    id: r.id,
    owner: r.owner,
    actionId: r.action_id,
    entryType: r.entry_type,
    reversesId: r.reverses_id,
    mint: r.mint,
    symbol: r.symbol,
    kind: r.kind,
    unitsDelta: r.units_delta,
    principalUnitsDelta: r.principal_units_delta,
    incomeUnits: r.income_units,
    usd: r.usd,
    effectiveAt: r.effective_at,
    changeReason: r.change_reason,
    evidenceSha256: r.evidence_sha256,
    createdAt: r.created_at,
  };
}

// ---- the amounts, each stored once (docs/storage.md#amounts-stored-once). Most entries book all
// their units as principal (a split) or all as income (a dividend): an entry written now stores ""
// in `principal_units_delta` or `income_units` when it equals `units_delta`, and every read (the
// lists, bookings, seals) puts the units back. An amount is a decimal, never "", so "" names
// nothing else; entries written before hold each amount whole and read as they are.

/** The amounts that may name the units instead of repeating them. */
type UnitsNamed = "principal_units_delta" | "income_units";
const UNITS_NAMED: readonly UnitsNamed[] = ["principal_units_delta", "income_units"];

/** An entry's amounts as stored: each equal to its units, "". */
export const storedAmounts = <E extends Pick<JournalRow, "units_delta" | UnitsNamed>>(e: E): E => ({
  ...e,
  principal_units_delta: e.principal_units_delta === e.units_delta ? "" : e.principal_units_delta,
  income_units: e.income_units === e.units_delta ? "" : e.income_units,
});

/**
 * The columns read through an expression: each amount (the units where it names them), and the
 * evidence hash as hex (../sql/hash-bytes.ts). The seals read the journal through these too.
 */
export const entryRead: Readonly<Record<UnitsNamed | "evidence_sha256", SqlFragment>> = {
  ...(Object.fromEntries(UNITS_NAMED.map((c) => [c, sql`CASE WHEN ${ident(c)} = '' THEN units_delta ELSE ${ident(c)} END`])) as Record<UnitsNamed, SqlFragment>),
  evidence_sha256: hashText(sql`evidence_sha256`),
};

const amounts = sql`units_delta, ${entryRead.principal_units_delta} AS principal_units_delta, ${entryRead.income_units} AS income_units`;
const evidence = sql`${entryRead.evidence_sha256} AS evidence_sha256`;

const listed = sql`SELECT id, owner, action_id, entry_type, reverses_id, mint, symbol, kind, ${amounts}, usd, effective_at, change_reason, ${evidence}, created_at FROM journal`;

/** A wallet's entries effective within [from, before). */
type Period = { owner: string; from: string; before: string };
type PageOf = Period & { limit: number; offset: number };

/** What an entry's booking is read from (journal-payload.ts). */
const booking = sql`owner, action_id, mint, symbol, type, treatment, kind, ${amounts}, usd, factor, effective_at, ${evidence}, payload`;

/** Not reversed by a later entry. */
const standing = sql`j.entry_type = 'recognition' AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id)`;

export const journalSql = statements("journal", {
  /** Appends an entry, its amounts as `storedAmounts` gives them. */
  insert: query<Omit<StoredEntry, "payload"> & { entry_type: JournalRow["entry_type"]; reverses_id: number | null; change_reason: string | null; payload: string; at: string }, { id: number }>(
    (p) => sql`INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta,
       income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
     VALUES (${p.owner}, ${p.action_id}, ${p.entry_type}, ${p.reverses_id}, ${p.mint}, ${p.symbol}, ${p.type}, ${p.treatment}, ${p.kind}, ${p.units_delta}, ${p.principal_units_delta},
       ${p.income_units}, ${p.usd}, ${p.factor}, ${p.effective_at}, ${p.change_reason}, ${hashValue(p.evidence_sha256)}, ${p.payload}, ${p.at}) RETURNING id`,
  ),
  /** A wallet's standing recognitions (their bookings: journal-payload.ts). */
  standing: query<{ owner: string }, StoredEntry & Pick<JournalRow, "id">>((p) => sql`SELECT j.id, ${booking} FROM journal j WHERE j.owner = ${p.owner} AND ${standing}`),
  /** These wallets' income entries (reversals carry negated amounts). */
  incomeOfOwners: query<{ owners: readonly string[] }, Pick<JournalRow, "owner" | "mint" | "usd">>(
    (p) => sql`SELECT owner, mint, usd FROM journal WHERE owner IN ${inList(p.owners)} AND treatment = 'income'`,
  ),
  /** These wallets' standing income recognitions without USD, per wallet and mint. */
  unvaluedOfOwners: query<{ owners: readonly string[] }, { owner: string; mint: string; n: number }>(
    (p) => sql`SELECT owner, mint, count(*) AS n FROM journal j WHERE owner IN ${inList(p.owners)} AND treatment = 'income' AND usd IS NULL AND ${standing} GROUP BY owner, mint`,
  ),
  /** Every entry, for verify. */
  all: query<Record<never, never>, Omit<JournalRow, "change_reason" | "created_at" | "row_sha256">>(() => sql`SELECT id, entry_type, reverses_id, ${booking} FROM journal ORDER BY id`),

  // ---- the list reads (newest effective time first, ties by id, newest first: docs/api.md#paging),
  // each off the index on owner × effective_at × id
  count: query<Period, { n: number }>((p) => sql`SELECT count(*) AS n FROM journal WHERE owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before}`),
  page: query<PageOf, ListedEntryRow>(
    (p) => sql`${listed} WHERE owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before} ORDER BY effective_at DESC, id DESC LIMIT ${p.limit} OFFSET ${p.offset}`,
  ),
  countOfKinds: query<Period & { kinds: readonly V1Kind[] }, { n: number }>(
    (p) => sql`SELECT count(*) AS n FROM journal WHERE owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before} AND kind IN ${inList(p.kinds)}`,
  ),
  pageOfKinds: query<PageOf & { kinds: readonly V1Kind[] }, ListedEntryRow>(
    (p) =>
      sql`${listed} WHERE owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before} AND kind IN ${inList(p.kinds)} ORDER BY effective_at DESC, id DESC LIMIT ${p.limit} OFFSET ${p.offset}`,
  ),
  /** An action's entries, off `journal_action` (its key: the wallet's first four characters, then the action id). */
  ofAction: query<{ owner: string; actionId: string }, ListedEntryRow>(
    (p) => sql`${listed} WHERE substr(owner, 1, 4) || action_id = substr(${p.owner}, 1, 4) || ${p.actionId} AND owner = ${p.owner} AND action_id = ${p.actionId} ORDER BY id`,
  ),
  /** A wallet's income entries of a period, for the year report; the breakdown parts sit in each entry's payload. */
  incomeEntries: query<Period, IncomeEntry>(
    (p) => sql`SELECT entry_type AS "entryType", effective_at AS "effectiveAt", symbol, usd,
  ${jsonText(sql`payload`, "grossUsd")} AS "grossUsd", ${jsonText(sql`payload`, "withholdingTaxUsd")} AS "withholdingTaxUsd",
  ${jsonText(sql`payload`, "retainedUsd")} AS "retainedUsd"
  FROM journal WHERE owner = ${p.owner} AND effective_at >= ${p.from} AND effective_at < ${p.before} AND treatment = 'income'`,
  ),
  /** The newest entry's id (null on an empty journal): a booking's events read the entries after it. */
  newestId: query<Record<never, never>, { id: number | null }>(() => sql`SELECT max(id) AS id FROM journal`),
  newestIdOfOwner: query<{ owner: string }, { id: number | null }>((p) => sql`SELECT max(id) AS id FROM journal WHERE owner = ${p.owner}`),
  /** Entries after an id, of some wallets, oldest first. */
  afterOfOwners: query<{ after: number; owners: readonly string[] }, Pick<JournalRow, "action_id" | "owner" | "entry_type">>(
    (p) => sql`SELECT action_id, owner, entry_type FROM journal WHERE id > ${p.after} AND owner IN ${inList(p.owners)} ORDER BY id`,
  ),
});
