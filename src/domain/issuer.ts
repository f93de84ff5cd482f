// Reading the issuer's corporate-action records: exact figures from their decimal strings, the
// unit ratio, the merger note, and how a record is named in sentences people read.
import type { IssuerRecord, IssuerRevisionObs } from "./observations";
import { cmp, div, type Rat, tryParseDecimal, ZERO } from "./numbers";

// Issuer records repeat the same few figures ("0.3", "0.5") on every event: parse each distinct
// string once. Rats are immutable, so sharing them is safe; bounded, cleared when full.
const parsed = new Map<string, Rat | null>();

/** An issuer decimal string as an exact rational; null when absent or not a number. */
export function figure(s: string | null | undefined): Rat | null {
  if (s === null || s === undefined) return null;
  let r = parsed.get(s);
  if (r === undefined) {
    r = tryParseDecimal(s);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(s, r);
  }
  return r;
}

export const positive = (r: Rat | null): r is Rat => r !== null && cmp(r, ZERO) > 0;

/** The record's caType folded to one spelling: "Cash Dividend", "cash_dividend" -> "cashdividend". */
export const caTypeKey = (caType: string): string => caType.replace(/[\s_-]/g, "").toLowerCase();

/** toUnits ÷ fromUnits when both are published and positive. */
export function unitsRatio(record: IssuerRecord): Rat | null {
  const from = figure(record.fromUnits);
  const to = figure(record.toUnits);
  return positive(from) && positive(to) ? div(to, from) : null;
}

/** "Stock Merger 0.5 NYSE:AZN for 1 NASDAQ:AZN (ADR)" -> from "NASDAQ:AZN (ADR)", to "NYSE:AZN". */
export function parseMergerNote(notes: string | null): { from: string; to: string } | null {
  const m = /([\d.]+)\s+(\S+(?:\s*\([^)]*\))?)\s+for\s+([\d.]+)\s+(.+?)\s*$/i.exec(notes ?? "");
  return m ? { to: m[2]!.trim(), from: m[4]!.trim() } : null;
}

/** "NASDAQ:AZN (ADR)" -> "AZN": the ticker a merger note names, without venue or share class. */
export const ticker = (s: string): string =>
  s
    .replace(/\([^)]*\)/g, "")
    .replace(/^.*:/, "")
    .trim()
    .toUpperCase();

/** How a person recognises an issuer event: its type, its effective date and the version, e.g. "CashDividend of 2026-06-18, v3". */
export function describeRevision(rev: IssuerRevisionObs): string {
  const r = rev.record;
  const day = (r.effectiveTimeUtc ?? r.createdTimeUtc)?.slice(0, 10);
  return `${r.caType}${day ? ` of ${day}` : ""}, v${r.version}`;
}
