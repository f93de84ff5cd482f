// The calendar of pending actions as iCalendar (RFC 5545; docs/events.md#the-calendar): one
// VEVENT per pending action (a multiplier change scheduled on chain, or announced by the issuer,
// and not yet in force) at its expected effective time, with the income each of the tenant's
// wallets can expect in its description. Times are UTC, so no VTIMEZONE is needed. The UID is
// derived from the action's key, so a calendar app that reads the feed again updates the event
// instead of adding a second one. Pure: the stamp time and the version are arguments.
import { createHash } from "node:crypto";
import { quantityTextForPeople, usdTextForPeople } from "../display";

export interface CalendarWallet {
  owner: string;
  /** Units of the token the wallet can expect, exact decimal; null when it cannot be told yet. */
  quantity: string | null;
  /** Their USD value, exact decimal; null when unknown. */
  usd: string | null;
}

export interface PendingAction {
  /** What identifies the pending action across reads (e.g. the mint and the slot of the scheduled change). */
  key: string;
  mint: string;
  symbol: string;
  /** The mint's decimals: quantities are shown by the display rule at them. */
  decimals: number;
  /** The v2 action type (cash_dividend, forward_split, …), or unknown. */
  type: string;
  /** When the change is expected to take effect (ISO-8601 UTC). */
  expectedAt: string;
  /** confirmed: written on chain, waiting for its time; announced: an issuer record, nothing on chain yet. */
  state: "announced" | "confirmed";
  /** One more sentence for the description (e.g. the multiplier before and after); null for none. */
  note: string | null;
  wallets: CalendarWallet[];
}

export interface CalendarInput {
  /** The calendar's name as apps show it. */
  name: string;
  /** DTSTAMP of every event: when this calendar was rendered. */
  now: Date;
  /** ca-ledger's version, for PRODID. */
  version: string;
  actions: PendingAction[];
}

const CRLF = "\r\n";
const MAX_OCTETS = 75;

/**
 * A TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped, every line break
 * (CRLF, CR or LF) written `\n`; other control characters, which TEXT cannot hold, dropped.
 */
export function escapeText(text: string): string {
  return text
    .replace(/\r\n|\r/g, "\n")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
    .replace(/[\\;,\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/**
 * A content line folded as RFC 5545 §3.1 asks: no physical line longer than 75 octets (CRLF not
 * counted), each continuation starting with one space, never splitting a UTF-8 character.
 */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = "";
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, "utf8");
    if (octets + size > MAX_OCTETS) {
      out.push(current);
      current = " ";
      octets = 1;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join(CRLF);
}

/** 2026-01-15T14:30:00.000Z → 20260115T143000Z (fractions of a second dropped). */
export function utcDateTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO-8601 time: ${JSON.stringify(iso)}`);
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}

/** A UID that stays the same for the same key, whatever characters the key holds. */
export function calendarUid(key: string): string {
  return `${createHash("sha256").update(key, "utf8").digest("hex").slice(0, 32)}@ca-ledger`;
}

const typeLabel = (type: string): string => type.replace(/_/g, " ");
const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const whenText = (iso: string): string => new Date(Date.parse(iso)).toISOString().slice(0, 16).replace("T", " ") + " UTC";

function walletLine(w: CalendarWallet, a: PendingAction): string {
  const quantity = quantityTextForPeople(w.quantity, a.decimals);
  const usd = usdTextForPeople(w.usd);
  if (quantity === null && usd === null) return `- ${w.owner}: amount not known yet`;
  const parts = [quantity === null ? null : `${quantity} ${a.symbol}`, usd === null ? null : `about $${usd}`].filter((p) => p !== null);
  return `- ${w.owner}: ${parts.join(", ")}`;
}

/** What a person reads in the event: what, when, and each wallet's expected income. */
export function describePending(a: PendingAction): string {
  const how = a.state === "confirmed" ? "scheduled on chain" : "announced by the issuer (not yet on chain)";
  const lines = [`${capitalized(typeLabel(a.type))} of ${a.symbol} (mint ${a.mint}), ${how}, expected to take effect ${whenText(a.expectedAt)}.`];
  if (a.note) lines.push(a.note);
  lines.push("Expected per wallet:");
  for (const w of [...a.wallets].sort((x, y) => (x.owner < y.owner ? -1 : x.owner > y.owner ? 1 : 0))) lines.push(walletLine(w, a));
  lines.push("Estimates until the change takes effect: the ledger books what the chain then shows.");
  return lines.join("\n");
}

function property(name: string, value: string): string {
  return foldLine(`${name}:${value}`);
}

function event(a: PendingAction, stamp: string): string[] {
  return [
    "BEGIN:VEVENT",
    property("UID", calendarUid(a.key)),
    property("DTSTAMP", stamp),
    property("DTSTART", utcDateTime(a.expectedAt)),
    property("SUMMARY", escapeText(`${a.symbol}: ${typeLabel(a.type)}`)),
    property("DESCRIPTION", escapeText(describePending(a))),
    property("STATUS", a.state === "confirmed" ? "CONFIRMED" : "TENTATIVE"),
    "TRANSP:TRANSPARENT",
    "END:VEVENT",
  ];
}

// RFC 5545's grammar wants at least one component in a calendar; with no pending action the
// calendar carries the UTC zone, which apps show as nothing.
const EMPTY_FILLER = ["BEGIN:VTIMEZONE", "TZID:UTC", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0000", "TZNAME:UTC", "END:STANDARD", "END:VTIMEZONE"];

/** The whole calendar: CRLF line ends, folded lines, events in order of their expected time. */
export function renderCalendar(input: CalendarInput): string {
  const stamp = utcDateTime(input.now.toISOString());
  const actions = [...input.actions].sort((x, y) => Date.parse(x.expectedAt) - Date.parse(y.expectedAt) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    property("PRODID", `-//ca-ledger//ca-ledger ${escapeText(input.version)}//EN`),
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    // An X- property's value is TEXT by default (RFC 5545 §3.8.8.2); said outright, because
    // parsers that do not know the property otherwise keep its escapes.
    property("X-WR-CALNAME;VALUE=TEXT", escapeText(input.name)),
    // RFC 7986, and the older name most apps read: how often to read the feed again.
    "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
    "X-PUBLISHED-TTL:PT1H",
    ...(actions.length ? actions.flatMap((a) => event(a, stamp)) : EMPTY_FILLER),
    "END:VCALENDAR",
  ];
  return lines.join(CRLF) + CRLF;
}
