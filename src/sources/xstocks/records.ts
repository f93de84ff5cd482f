// Issuer rows → typed observations, one row at a time: a bad row becomes a rejection kept with
// its payload and the reason, and never stops the good ones. Hand-written checks rather than a
// schema library so each reason names the field and what was wrong with it.
import { isAddress } from "@solana/kit";
import { isDay } from "../../domain/date-range";
import { canonicalJson, canonicalSha256 } from "../../domain/evidence";
import { textProblem, type TextRules } from "../../domain/text";
import type { InstrumentObs, IssuerRecord, IssuerRevisionObs } from "../../domain/observations";

/** A row the adapter refused, kept as received. */
export interface SourceRejection {
  /** Which feed: e.g. "xstocks:/public/corporate-actions/history". */
  source: string;
  payload: unknown;
  reason: string;
}

/**
 * One step of the issuer's multiplier history. Not evidence of an action's type (its `reason`
 * labels spin-offs "Dividend", docs/sources.md#issuer-multiplier-history): kept for display and cross-checks only.
 */
export interface IssuerMultiplierPoint {
  symbol: string;
  id: string;
  reason: string | null;
  multiplier: number;
  previousMultiplier: number | null;
  activationTime: string;
}

export const ISSUER_STATUSES = ["Initial", "Scheduled", "Corrected", "Cancelled"] as const;

const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?Z$/;
const CA_TYPE = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * The longest text each field may hold, and which may hold line breaks (docs/sources.md#text-fields):
 * far above what the real feed sends (a symbol of 6 characters, notes of 247), low enough that a
 * hostile row cannot fill the ledger or pass an index's row limit (PostgreSQL refuses an index
 * entry over about 2.7 KB).
 */
export const TEXT_FIELDS = {
  eventId: { max: 200 },
  xstockSymbol: { max: 32 },
  spvSymbol: { max: 32 },
  caType: { max: 64 },
  notes: { max: 4000, multiline: true },
  xstockIsin: { max: 32 },
  spvIsin: { max: 32 },
} as const satisfies Record<string, TextRules>;
/** Digits and signs a decimal field may hold: the real feed's longest is 20 (a float's shortest form). */
export const MAX_DECIMAL_LENGTH = 64;

const NULLABLE_TEXT = ["spvSymbol", "notes", "xstockIsin", "spvIsin"] as const;
const NULLABLE_DECIMAL = ["multiplierOld", "multiplierNew", "grossCashflowUsd", "netCashflowUsd", "withholdingTaxRate", "fromUnits", "toUnits", "redemptionPriceUsd"] as const;
/** A multiplier or a unit count of zero or less describes no corporate action (and a zero would be divided by). */
const POSITIVE_DECIMAL = new Set<string>(["multiplierOld", "multiplierNew", "fromUnits", "toUnits"]);
const NULLABLE_TIME = ["effectiveTimeUtc", "createdTimeUtc"] as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * A corporate-action row → IssuerRecord with exactly the 19 wire keys. Keys the issuer may add
 * later are not stored (so they cannot change a stored hash); a missing key is a rejection,
 * because "absent" and "null" are not the same statement.
 */
export function parseIssuerRecord(row: unknown): Parsed<IssuerRecord> {
  if (!isPlainObject(row)) return fail(`not an object (${describe(row)})`);
  const missing = ["eventId", "version", "xstockSymbol", "caType", "status", ...NULLABLE_TEXT, ...NULLABLE_DECIMAL, ...NULLABLE_TIME].filter((k) => !(k in row));
  if (missing.length > 0) return fail(`missing field(s): ${missing.join(", ")}`);

  const { eventId, version, xstockSymbol, caType, status } = row;
  if (typeof eventId !== "string" || eventId.trim() === "") return fail(`eventId: expected a non-empty string, got ${describe(eventId)}`);
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) return fail(`version: expected an integer >= 1, got ${describe(version)}`);
  if (typeof xstockSymbol !== "string" || xstockSymbol.trim() === "") return fail(`xstockSymbol: expected a non-empty string, got ${describe(xstockSymbol)}`);
  if (typeof caType !== "string" || !CA_TYPE.test(caType)) return fail(`caType: expected a type name, got ${describe(caType)}`);
  if (typeof status !== "string" || !(ISSUER_STATUSES as readonly string[]).includes(status)) {
    return fail(`status: expected one of ${ISSUER_STATUSES.join("|")}, got ${describe(status)}`);
  }
  for (const k of NULLABLE_TEXT) {
    if (row[k] !== null && typeof row[k] !== "string") return fail(`${k}: expected a string or null, got ${describe(row[k])}`);
  }
  const text = textFieldsProblem(row, TEXT_FIELDS);
  if (text) return fail(text);
  for (const k of NULLABLE_DECIMAL) {
    const v = row[k];
    // A JSON number here may already have lost digits on the way: refuse rather than guess.
    if (v !== null && (typeof v !== "string" || !DECIMAL.test(v))) return fail(`${k}: expected a decimal string or null, got ${describe(v)}`);
    if (v !== null && v.length > MAX_DECIMAL_LENGTH) return fail(`${k}: ${v.length} characters, at most ${MAX_DECIMAL_LENGTH}`);
    if (v !== null && POSITIVE_DECIMAL.has(k) && (v.startsWith("-") || !/[1-9]/.test(v))) return fail(`${k}: expected a positive decimal or null, got ${describe(v)}`);
  }
  for (const k of NULLABLE_TIME) {
    const v = row[k];
    if (v !== null && !isIsoUtc(v)) return fail(`${k}: expected an ISO-8601 UTC time or null, got ${describe(v)}`);
    if (v !== null && !isDay(v.slice(0, 10))) return fail(`${k}: ${v.slice(0, 10)} is not a day of the calendar`);
  }
  return {
    ok: true,
    value: {
      eventId,
      version,
      xstockSymbol,
      spvSymbol: row.spvSymbol as string | null,
      caType,
      effectiveTimeUtc: row.effectiveTimeUtc as string | null,
      multiplierOld: row.multiplierOld as string | null,
      multiplierNew: row.multiplierNew as string | null,
      grossCashflowUsd: row.grossCashflowUsd as string | null,
      netCashflowUsd: row.netCashflowUsd as string | null,
      withholdingTaxRate: row.withholdingTaxRate as string | null,
      fromUnits: row.fromUnits as string | null,
      toUnits: row.toUnits as string | null,
      redemptionPriceUsd: row.redemptionPriceUsd as string | null,
      notes: row.notes as string | null,
      createdTimeUtc: row.createdTimeUtc as string | null,
      status,
      xstockIsin: row.xstockIsin as string | null,
      spvIsin: row.spvIsin as string | null,
    },
  };
}

export function parseIssuerRecords(rows: unknown[], source: string): { records: IssuerRecord[]; rejections: SourceRejection[] } {
  const records: IssuerRecord[] = [];
  const rejections: SourceRejection[] = [];
  for (const row of rows) {
    const parsed = parseIssuerRecord(row);
    if (parsed.ok) records.push(parsed.value);
    else rejections.push({ source, payload: row, reason: parsed.reason });
  }
  return { records, rejections };
}

/**
 * `/public/assets` rows → one InstrumentObs per Solana deployment. Assets without a Solana
 * deployment are not ours and are skipped silently; malformed rows are rejections. The asset
 * list carries no ISIN and no decimals: `attachIsins` fills the ISIN from issuer records,
 * decimals come from the chain.
 */
export function parseAssets(rows: unknown[], source: string): { instruments: InstrumentObs[]; rejections: SourceRejection[] } {
  const instruments: InstrumentObs[] = [];
  const rejections: SourceRejection[] = [];
  for (const row of rows) {
    const reason = assetProblem(row);
    if (reason) {
      rejections.push({ source, payload: row, reason });
      continue;
    }
    const asset = row as { symbol: string; name?: string | null; underlyingSymbol?: string | null; deployments: { address: string; network: string }[] };
    for (const d of asset.deployments) {
      if (d.network !== "Solana") continue;
      instruments.push({ mint: d.address, symbol: asset.symbol, name: asset.name ?? null, underlying: asset.underlyingSymbol ?? null, isin: null, decimals: null });
    }
  }
  return { instruments, rejections };
}

/** The asset list's text, bounded like the records' (TEXT_FIELDS). */
const ASSET_TEXT = { symbol: { max: 32 }, name: { max: 200 }, underlyingSymbol: { max: 32 } } as const satisfies Record<string, TextRules>;
/** Networks one asset is deployed on (a handful in the real list). */
const MAX_DEPLOYMENTS = 100;

function assetProblem(row: unknown): string | null {
  if (!isPlainObject(row)) return `not an object (${describe(row)})`;
  if (typeof row.symbol !== "string" || row.symbol.trim() === "") return `symbol: expected a non-empty string, got ${describe(row.symbol)}`;
  if (row.name !== undefined && row.name !== null && typeof row.name !== "string") return `name: expected a string or null, got ${describe(row.name)}`;
  if (row.underlyingSymbol !== undefined && row.underlyingSymbol !== null && typeof row.underlyingSymbol !== "string") {
    return `underlyingSymbol: expected a string or null, got ${describe(row.underlyingSymbol)}`;
  }
  const text = textFieldsProblem(row, ASSET_TEXT);
  if (text) return text;
  if (!Array.isArray(row.deployments)) return `deployments: expected an array, got ${describe(row.deployments)}`;
  if (row.deployments.length > MAX_DEPLOYMENTS) return `deployments: ${row.deployments.length} entries, at most ${MAX_DEPLOYMENTS}`;
  for (const [i, d] of row.deployments.entries()) {
    if (!isPlainObject(d) || typeof d.network !== "string" || typeof d.address !== "string") return `deployments[${i}]: expected {address, network} strings`;
    if (d.network === "Solana" && !isAddress(d.address)) return `deployments[${i}].address: not a base58 Solana address (${describe(d.address)})`;
  }
  return null;
}

/** Fill each instrument's ISIN from the newest issuer record of its symbol that names one. */
export function attachIsins(instruments: InstrumentObs[], records: IssuerRecord[]): InstrumentObs[] {
  const newest = new Map<string, { isin: string; at: string }>();
  for (const r of records) {
    if (!r.xstockIsin) continue;
    const at = r.createdTimeUtc ?? "";
    const seen = newest.get(r.xstockSymbol);
    if (!seen || at > seen.at) newest.set(r.xstockSymbol, { isin: r.xstockIsin, at });
  }
  return instruments.map((i) => (i.isin === null && newest.has(i.symbol) ? { ...i, isin: newest.get(i.symbol)!.isin } : i));
}

export function parseMultiplierHistory(symbol: string, rows: unknown[], source: string): { points: IssuerMultiplierPoint[]; rejections: SourceRejection[] } {
  const points: IssuerMultiplierPoint[] = [];
  const rejections: SourceRejection[] = [];
  for (const row of rows) {
    const reject = (reason: string) => rejections.push({ source, payload: row, reason });
    if (!isPlainObject(row)) {
      reject(`not an object (${describe(row)})`);
      continue;
    }
    const { id, reason, multiplier, previousMultiplier, activationDateTime } = row;
    if (typeof id !== "string" || id === "") reject(`id: expected a non-empty string, got ${describe(id)}`);
    else if (reason !== undefined && reason !== null && typeof reason !== "string") reject(`reason: expected a string or null, got ${describe(reason)}`);
    else if (!isPositiveFinite(multiplier)) reject(`multiplier: expected a positive number, got ${describe(multiplier)}`);
    else if (previousMultiplier !== undefined && previousMultiplier !== null && !isPositiveFinite(previousMultiplier)) {
      reject(`previousMultiplier: expected a positive number or null, got ${describe(previousMultiplier)}`);
    } else if (!isIsoUtc(activationDateTime)) reject(`activationDateTime: expected an ISO-8601 UTC time, got ${describe(activationDateTime)}`);
    else {
      points.push({
        symbol,
        id,
        reason: (reason as string | null | undefined) ?? null,
        multiplier: multiplier as number,
        previousMultiplier: (previousMultiplier as number | null | undefined) ?? null,
        activationTime: activationDateTime as string,
      });
    }
  }
  return { points, rejections };
}

// ---- evidence: canonical form, hash, edited-record detection ----

export function issuerRecordKey(record: Pick<IssuerRecord, "eventId" | "version">): string {
  return `${record.eventId}#${record.version}`;
}

/** SHA-256 (hex) of the record's RFC 8785 canonical JSON. */
export function hashIssuerRecord(record: IssuerRecord): string {
  return canonicalSha256(record);
}

export { canonicalJson };

/**
 * Records as fetched → the revisions to store. A record whose (eventId, version) and hash are
 * already known is not new. A known (eventId, version) with a different hash is an edit made
 * without a new version: stored as a new observation with `edited: true`, never dropped.
 * `knownHashes` maps issuerRecordKey → hashes stored so far.
 */
export function toIssuerRevisions(
  records: IssuerRecord[],
  options: { ingestedAt: string; knownHashes?: ReadonlyMap<string, ReadonlySet<string>> },
): { revisions: IssuerRevisionObs[]; unchanged: number } {
  const seen = new Map<string, Set<string>>();
  for (const [k, hashes] of options.knownHashes ?? []) seen.set(k, new Set(hashes));
  const revisions: IssuerRevisionObs[] = [];
  let unchanged = 0;
  for (const record of records) {
    const key = issuerRecordKey(record);
    const sha256 = hashIssuerRecord(record);
    const hashes = seen.get(key);
    if (hashes?.has(sha256)) {
      unchanged++;
      continue;
    }
    revisions.push({ record, sha256, ingestedAt: options.ingestedAt, edited: hashes !== undefined && hashes.size > 0 });
    seen.set(key, new Set([...(hashes ?? []), sha256]));
  }
  return { revisions, unchanged };
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

/** The first string field of `row` that breaks its rules, named with the reason. */
function textFieldsProblem(row: Record<string, unknown>, fields: Record<string, TextRules>): string | null {
  for (const [k, rules] of Object.entries(fields)) {
    const value = row[k];
    const problem = typeof value === "string" ? textProblem(value, rules) : null;
    if (problem) return `${k}: ${problem}`;
  }
  return null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isPositiveFinite(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v > 0;
}

/** The form only: `2026-02-30T00:00:00Z` passes here (and Date.parse reads it as 2 March); the calendar is checked apart. */
function isIsoUtc(v: unknown): v is string {
  return typeof v === "string" && ISO_UTC.test(v) && !Number.isNaN(Date.parse(v));
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}
