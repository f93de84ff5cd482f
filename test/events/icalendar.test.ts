// The calendar of pending actions, read back by ical.js (Mozilla's maintained RFC 5545 parser, the
// one Thunderbird uses): every calendar parses, each pending action is one event at its time with
// each wallet's expected income in its description, and any text survives escaping and folding.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import ICAL from "ical.js";
import { calendarUid, describePending, escapeText, foldLine, renderCalendar, type PendingAction } from "../../src/domain/events/icalendar.ts";

const now = new Date("2026-01-10T08:00:00.123Z");

const tsla: PendingAction = {
  key: "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB:391234567",
  mint: "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB",
  symbol: "TSLAx",
  decimals: 8,
  type: "cash_dividend",
  expectedAt: "2026-01-15T14:30:00.000Z",
  state: "confirmed",
  note: "Multiplier 1 → 1.00423 (net cash $0.52 a share, reinvested).",
  wallets: [
    { owner: "9aQ2wYPbS7NMDo4Xb5Jx8xDgCDv8RzHn1aKq3N3v1xyz", quantity: null, usd: null },
    { owner: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", quantity: "0.01234567891", usd: "4.1234565" },
  ],
};

function parse(text: string) {
  return new ICAL.Component(ICAL.parse(text));
}

/** What TEXT can hold, as a parser gives it back: line breaks as LF, other controls gone. */
const normalized = (s: string) => s.replace(/\r\n|\r/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");

describe("the calendar", () => {
  test("one event per pending action, at its time, with each wallet's expected income by the display rule", () => {
    const text = renderCalendar({ name: "ca-ledger: acme", now, version: "0.1.0", actions: [tsla] });
    const cal = parse(text);
    expect(cal.getFirstPropertyValue("version")).toBe("2.0");
    expect(cal.getFirstPropertyValue("prodid")).toBe("-//ca-ledger//ca-ledger 0.1.0//EN");
    expect(cal.getFirstPropertyValue("x-wr-calname")).toBe("ca-ledger: acme");
    const [ev, ...rest] = cal.getAllSubcomponents("vevent");
    expect(rest).toHaveLength(0);
    expect(ev!.getFirstPropertyValue("dtstart")!.toString()).toBe("2026-01-15T14:30:00Z");
    expect(ev!.getFirstPropertyValue("dtstamp")!.toString()).toBe("2026-01-10T08:00:00Z");
    expect(ev!.getFirstPropertyValue("summary")).toBe("TSLAx: cash dividend");
    expect(ev!.getFirstPropertyValue("status")).toBe("CONFIRMED");
    expect(ev!.getFirstPropertyValue("uid")).toBe(calendarUid(tsla.key));
    expect(ev!.getFirstPropertyValue("description")).toBe(
      [
        "Cash dividend of TSLAx (mint XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB), scheduled on chain, expected to take effect 2026-01-15 14:30 UTC.",
        "Multiplier 1 → 1.00423 (net cash $0.52 a share, reinvested).",
        "Expected per wallet:",
        // Half-even at the mint's 8 decimals; USD at 6.
        "- 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU: 0.01234568 TSLAx, about $4.123456",
        "- 9aQ2wYPbS7NMDo4Xb5Jx8xDgCDv8RzHn1aKq3N3v1xyz: amount not known yet",
        "Estimates until the change takes effect: the ledger books what the chain then shows.",
      ].join("\n"),
    );
  });

  test("CRLF line ends everywhere, no line over 75 octets, announced actions tentative", () => {
    const text = renderCalendar({ name: "n", now, version: "0.1.0", actions: [tsla, { ...tsla, key: "k2", state: "announced", expectedAt: "2026-01-12T00:00:00Z" }] });
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of text.split("\r\n")) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(75);
    const events = parse(text).getAllSubcomponents("vevent");
    // In order of expected time.
    expect(events.map((e) => e.getFirstPropertyValue("status"))).toEqual(["TENTATIVE", "CONFIRMED"]);
  });

  test("the UID stays the same from one read to the next, and differs between actions", () => {
    const later = renderCalendar({ name: "n", now: new Date("2026-01-11T00:00:00Z"), version: "0.1.0", actions: [tsla] });
    const earlier = renderCalendar({ name: "n", now, version: "0.1.0", actions: [tsla] });
    const uid = (t: string) => parse(t).getFirstSubcomponent("vevent")!.getFirstPropertyValue("uid");
    expect(uid(later)).toBe(uid(earlier));
    expect(calendarUid("a")).not.toBe(calendarUid("b"));
  });

  test("no pending action: still a calendar RFC 5545's grammar accepts (one component), with no event", () => {
    const cal = parse(renderCalendar({ name: "n", now, version: "0.1.0", actions: [] }));
    expect(cal.getAllSubcomponents("vevent")).toHaveLength(0);
    expect(cal.getAllSubcomponents().map((c) => c.name)).toEqual(["vtimezone"]);
  });
});

describe("escaping and folding (properties)", () => {
  // Text with the characters that need care: the escaped ones, line breaks, controls, wide UTF-8.
  const awkward = fc.string({
    unit: fc.oneof(fc.constantFrom(",", ";", "\\", "\n", "\r\n", "\r", "\t", "\u0001", ":", '"', "é", "→", "😀", "中", " "), fc.string({ unit: "grapheme", maxLength: 1 })),
    maxLength: 400,
  });

  test("folding: every physical line ≤ 75 octets, continuations start with one space, unfolding gives the line back", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 600 }).filter((s) => !/[\r\n]/.test(s)),
        (line) => {
          const physical = foldLine(line).split("\r\n");
          const ok = physical.every((p, i) => Buffer.byteLength(p, "utf8") <= 75 && (i === 0 || p.startsWith(" ")));
          return ok && physical.map((p, i) => (i === 0 ? p : p.slice(1))).join("") === line;
        },
      ),
      { numRuns: 500 },
    );
  });

  test("escaping: no raw line break, and every backslash starts one of \\\\ \\; \\, \\n", () => {
    fc.assert(
      fc.property(awkward, (text) => {
        const e = escapeText(text);
        return !/[\r\n]/.test(e) && /^(?:[^\\,;]|\\[\\;,n])*$/.test(e);
      }),
      { numRuns: 500 },
    );
  });

  test("round trip through ical.js: any name, symbol and note come back as written (line breaks as LF)", () => {
    fc.assert(
      fc.property(awkward, awkward, awkward, (name, symbol, note) => {
        const action = { ...tsla, symbol, note };
        const cal = parse(renderCalendar({ name, now, version: "0.1.0", actions: [action] }));
        const ev = cal.getFirstSubcomponent("vevent")!;
        return (
          cal.getFirstPropertyValue("x-wr-calname") === normalized(name) &&
          ev.getFirstPropertyValue("summary") === normalized(`${symbol}: cash dividend`) &&
          ev.getFirstPropertyValue("description") === normalized(describePending(action))
        );
      }),
      { numRuns: 300 },
    );
  });
});
