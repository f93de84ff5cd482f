// How an action is stored (docs/storage.md): once per corporate action, what every wallet holding
// it shows alike, in an `action_events` row; per wallet, only the wallet's own values, in its
// `actions` row. The served documents (the v2 list item, the v2 detail, the v1 entry) are kept as
// templates in the event's row: the JSON text the API serves, with a slot where each wallet value
// goes. A read splices the wallet's values into the template (no JSON is parsed); the action
// record behind them is the event's `record` (its canonical JSON, less the wallet's fields) with
// the wallet's exact values put back, so its payload hash is recomputed from stored data.
//
// Event rows are keyed by the SHA-256 of their content: wallets whose actions show the same
// event text share one row, and a wallet booked again after an issuer record gets the event's new
// row, written once by the first wallet that needs it. Nothing relies on which fields are the same
// across wallets: a field that differed would only give a wallet an event row of its own.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { ActionRecord } from "../domain/types.ts";
import { actionDetailBase, actionListedAt, actionSummary, v1Entry } from "./projections.ts";

// JSON.stringify escapes every control character, so none ever appears raw in served JSON: one
// marks a slot (followed by the value's index as a character from FIRST_INDEX) and also separates
// a wallet's values in `wallet_values`.
const MARK = "\u0001";
const FIRST_INDEX = 0x40;

/**
 * The wallet's own values, each stored as its JSON text. The first four are columns of the row
 * itself; the rest are `actions.wallet_values`, in this order. Up to `lineageLink` they are the
 * action record's own fields (exact); `shown.*` are the forms people read, as the documents show
 * them (rounded by the one rule, src/domain/display.ts), stored so no read redoes that math.
 */
export const WALLET_VALUES = [
  "id",
  "owner",
  "evidenceSha256",
  "usd",
  "quantityDisplay",
  "rawBalance",
  "unitsBefore",
  "unitsAfter",
  "incomeUnits",
  "grossUsd",
  "withholdingTaxUsd",
  "retainedUsd",
  "proceedsUsd",
  "warnings",
  "lineageLink",
  "shown.usd",
  "shown.grossUsd",
  "shown.withholdingTaxUsd",
  "shown.retainedUsd",
  "shown.proceedsUsd",
  "shown.unitsBefore",
  "shown.unitsAfter",
  "shown.incomeUnits",
] as const;
type ValueName = (typeof WALLET_VALUES)[number];
const COLUMN_VALUES = 4;
/** The action record's fields that are the wallet's (the first values). */
const RECORD_FIELDS = WALLET_VALUES.slice(0, WALLET_VALUES.indexOf("lineageLink") + 1) as (keyof ActionRecord)[];
const index = new Map(WALLET_VALUES.map((n, i) => [n as string, i]));

// Where each wallet value sits in each served document, by path.
const summaryPaths: Record<string, ValueName> = {
  id: "id",
  owner: "owner",
  quantityDisplay: "quantityDisplay",
  usd: "shown.usd",
  grossUsd: "shown.grossUsd",
  withholdingTaxUsd: "shown.withholdingTaxUsd",
  retainedUsd: "shown.retainedUsd",
  "evidence.rawBalance": "rawBalance",
  "evidence.payloadSha256": "evidenceSha256",
  evidenceSha256: "evidenceSha256",
  proceedsUsd: "shown.proceedsUsd",
  warnings: "warnings",
  "exact.usd": "usd",
  "exact.grossUsd": "grossUsd",
  "exact.withholdingTaxUsd": "withholdingTaxUsd",
  "exact.retainedUsd": "retainedUsd",
  "exact.proceedsUsd": "proceedsUsd",
};
const detailPaths: Record<string, ValueName> = {
  ...summaryPaths,
  unitsBefore: "shown.unitsBefore",
  unitsAfter: "shown.unitsAfter",
  incomeUnits: "shown.incomeUnits",
  rawBalance: "rawBalance",
  lineageLink: "lineageLink",
  "exact.unitsBefore": "unitsBefore",
  "exact.unitsAfter": "unitsAfter",
  "exact.incomeUnits": "incomeUnits",
};
const v1Paths: Record<string, ValueName> = {
  id: "id",
  owner: "owner",
  quantityDisplay: "quantityDisplay",
  incomeUnits: "shown.incomeUnits",
  usd: "shown.usd",
  grossUsd: "shown.grossUsd",
  withholdingTaxUsd: "shown.withholdingTaxUsd",
  retainedUsd: "shown.retainedUsd",
  warnings: "warnings",
  evidenceSha256: "evidenceSha256",
  "exact.incomeUnits": "incomeUnits",
  "exact.usd": "usd",
  "exact.grossUsd": "grossUsd",
  "exact.withholdingTaxUsd": "withholdingTaxUsd",
  "exact.retainedUsd": "retainedUsd",
};

/** A document's slots by path, and the paths of the objects that hold some (to look inside). */
interface Slots {
  at: Map<string, number>;
  within: Set<string>;
}
function slotsOf(paths: Record<string, ValueName>): Slots {
  const at = new Map(Object.entries(paths).map(([path, name]) => [path, index.get(name)!]));
  const within = new Set(
    Object.keys(paths)
      .filter((p) => p.includes("."))
      .map((p) => p.slice(0, p.lastIndexOf("."))),
  );
  return { at, within };
}
const summarySlots = slotsOf(summaryPaths),
  detailSlots = slotsOf(detailPaths),
  v1Slots = slotsOf(v1Paths);

/** The documents an action is served as (what the API shows of it; validation is added per request). */
export interface ActionDocs {
  summary: object;
  detail: object;
  v1: object | null;
}

export function projectedDocs(a: ActionRecord): ActionDocs {
  return { summary: actionSummary(a), detail: actionDetailBase(a), v1: v1Entry(a) };
}

/** One event's row: its content and the SHA-256 it is keyed by. */
export interface EventRow {
  sha256: string;
  mint: string;
  transitionKey: string | null;
  /** The record's, as columns (every action showing the event has them alike). */
  type: string;
  treatment: string;
  state: string;
  firstObservedActiveAt: string | null;
  record: string;
  summary: string;
  detail: string;
  v1: string | null;
}

/** Everything an action's rows hold, serialised (booking builds these outside its transaction). */
export interface ActionRow {
  id: string;
  owner: string;
  payloadSha256: string;
  /** The columns of its `actions` row, but the event it shows (found or written with the event). */
  columns: ActionColumns;
  event: EventRow;
}

/** An `actions` row's own columns, as written (tables/actions.ts). */
export interface ActionColumns {
  id: string;
  owner: string;
  effectiveAt: string;
  usd: string | null;
  v1Kind: string | null;
  payloadSha256: string;
  evidenceSha256: string;
  walletValues: string;
}

/**
 * The rows of an action. `docs` are the documents it is served as: projected from the record, or
 * (a ledger upgraded in place) the documents the ledger served before, so their bytes carry over.
 */
export function actionRow(a: ActionRecord, payload = canonicalJson(a), hash = sha256Hex(payload), docs: ActionDocs = projectedDocs(a)): ActionRow {
  const values = walletValues(a, docs);
  const event = eventRow(a, docs, values);
  const v1 = docs.v1 as { kind?: string } | null;
  return {
    id: a.id,
    owner: a.owner,
    payloadSha256: hash,
    columns: {
      id: a.id,
      owner: a.owner,
      effectiveAt: actionListedAt(a),
      usd: a.usd,
      v1Kind: v1?.kind ?? null,
      payloadSha256: hash,
      evidenceSha256: a.evidenceSha256,
      walletValues: values.slice(COLUMN_VALUES).join(MARK),
    },
    event,
  };
}

function walletValues(a: ActionRecord, docs: ActionDocs): string[] {
  const summary = docs.summary as Record<string, unknown>,
    detail = docs.detail as Record<string, unknown>;
  const shown: Record<string, unknown> = {
    "shown.usd": summary.usd,
    "shown.grossUsd": summary.grossUsd,
    "shown.withholdingTaxUsd": summary.withholdingTaxUsd,
    "shown.retainedUsd": summary.retainedUsd,
    "shown.proceedsUsd": summary.proceedsUsd,
    "shown.unitsBefore": detail.unitsBefore,
    "shown.unitsAfter": detail.unitsAfter,
    "shown.incomeUnits": detail.incomeUnits,
  };
  // The wallet's objects as the detail shows them, keys in the order served, when they are the
  // record's: a record parsed back from its canonical payload (an upgraded ledger) has its keys
  // sorted, and the served text must keep its own order for the slot to take it.
  const served = (name: keyof ActionRecord, v: unknown) => (v !== null && typeof v === "object" && canonicalJson(detail[name]) === canonicalJson(v) ? detail[name] : v);
  return WALLET_VALUES.map((name) => {
    const v = name.startsWith("shown.") ? shown[name] : served(name as keyof ActionRecord, a[name as keyof ActionRecord]);
    if (v === undefined) throw new Error(`action ${a.id}: its ${name} is missing`);
    return JSON.stringify(v);
  });
}

function eventRow(a: ActionRecord, docs: ActionDocs, values: string[]): EventRow {
  const record = canonicalJson(eventPart(a));
  const summary = template(docs.summary, summarySlots, values);
  const detail = template(docs.detail, detailSlots, values);
  const v1 = docs.v1 && template(docs.v1, v1Slots, values);
  return {
    sha256: eventSha256(record, summary, detail, v1),
    mint: a.mint,
    transitionKey: a.transitionKey,
    type: a.type,
    treatment: a.treatment,
    state: a.lifecycle.state,
    firstObservedActiveAt: a.timestamps.firstObservedActiveAt,
    record,
    summary,
    detail,
    v1,
  };
}

/** What an event row is keyed by; verify recomputes it (NUL separates: no part can hold one). */
export const eventSha256 = (record: string, summary: string, detail: string, v1: string | null): string => sha256Hex(`${record}\0${summary}\0${detail}\0${v1 ?? ""}`);

/** The record less the wallet's fields (the evidence summary keeps the rest of its own). */
function eventPart(a: ActionRecord): Record<string, unknown> {
  const part: Record<string, unknown> = { ...a };
  for (const f of RECORD_FIELDS) delete part[f];
  const { rawBalance, payloadSha256, ...evidence } = a.evidence;
  // Kept with the event only if they are not the wallet's own values (never, from the engine).
  part.evidence = { ...evidence, ...(rawBalance === a.rawBalance ? {} : { rawBalance }), ...(payloadSha256 === a.evidenceSha256 ? {} : { payloadSha256 }) };
  return part;
}

/**
 * `JSON.stringify(doc)` with a slot in place of each wallet value: a path of `slots` whose value
 * is the wallet's (by its JSON text) becomes MARK and the value's index. A value that is not the
 * wallet's stays in the text (the event row is then this wallet's alone, and still exact).
 */
function template(doc: object, slots: Slots, values: string[], prefix = ""): string {
  let out = "";
  for (const key in doc) {
    const v = (doc as Record<string, unknown>)[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue; // as JSON.stringify omits them
    const path = prefix + key;
    const i = slots.at.get(path);
    let text: string;
    if (i !== undefined && JSON.stringify(v) === values[i]) text = MARK + String.fromCharCode(FIRST_INDEX + i);
    else if (slots.within.has(path) && v !== null && typeof v === "object" && !Array.isArray(v)) text = template(v, slots, values, path + ".");
    else text = JSON.stringify(v);
    out += (out === "" ? "" : ",") + JSON.stringify(key) + ":" + text;
  }
  return "{" + out + "}";
}

// ---- reading back -------------------------------------------------------------------------

/** The wallet's part of an action's row, as read. */
export interface StoredWallet {
  id: string;
  owner: string;
  evidence_sha256: string;
  usd: string | null;
  wallet_values: string;
}

/** The wallet's values as JSON texts, in WALLET_VALUES order. */
export function storedValues(row: StoredWallet): string[] {
  return [JSON.stringify(row.id), JSON.stringify(row.owner), JSON.stringify(row.evidence_sha256), JSON.stringify(row.usd), ...row.wallet_values.split(MARK)];
}

/**
 * A served document: the event's template with the wallet's values in its slots. Every list read
 * runs this once per row, so it is one scan and one join: splitting the template and growing the
 * result with `+=` (a rope flattened later) cost about twice as much (docs/performance.md#splicing-stored-documents).
 */
export function splice(template: string, values: string[]): string {
  const parts: string[] = [];
  let from = 0;
  for (let at = template.indexOf(MARK); at >= 0; at = template.indexOf(MARK, from)) {
    // String(): a missing value reads "undefined", as concatenation would (join would drop it).
    parts.push(template.slice(from, at), String(values[template.charCodeAt(at + 1) - FIRST_INDEX]));
    from = at + 2;
  }
  parts.push(template.slice(from));
  return parts.join("");
}

/** The wallet's values as one text (each a JSON text, so none holds the mark that joins them), and back: an outbox event stores them so. */
export const joinedValues = (values: string[]): string => values.join(MARK);
export const spliceJoined = (template: string, joined: string): string => splice(template, joined.split(MARK));

/** The action record an action's rows stand for (its canonical JSON hashes to payload_sha256). */
export function storedAction(row: StoredWallet, record: string): ActionRecord {
  const values = storedValues(row);
  const a = JSON.parse(record) as Record<string, unknown>;
  RECORD_FIELDS.forEach((f, i) => (a[f] = JSON.parse(values[i]!)));
  a.evidence = { rawBalance: a.rawBalance, payloadSha256: a.evidenceSha256, ...(a.evidence as object) };
  return a as unknown as ActionRecord;
}

/** Some of the wallet's own record fields, read from its row without building the whole record (the lot engine reads a hundred wallets' actions so). */
export function storedFields<K extends (typeof RECORD_FIELDS)[number]>(row: StoredWallet, names: readonly K[]): Pick<ActionRecord, K> {
  const values = storedValues(row);
  return Object.fromEntries(names.map((n) => [n, JSON.parse(values[index.get(n)!]!)])) as Pick<ActionRecord, K>;
}
