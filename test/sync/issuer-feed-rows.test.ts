// Rows of the issuer feed that one engine would store and the other refuse, or that no real
// corporate action has: each is a rejection naming its field, identically on SQLite and
// PostgreSQL, and the good rows of the same poll (a legitimate correction among them) are stored.
// A real ledger, the issuer poll against a loopback server speaking the xStocks wire format.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { MAX_REJECTION_PAYLOAD } from "../../src/ledger/store.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { tempDir } from "../harness/index.ts";
import { ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { loadIssuerFixture, startIssuerServer, type IssuerData } from "../support/issuer-server.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One poll of `data` into a new ledger: what it returned, the revisions and rejections stored. */
async function pollOnce(data: IssuerData) {
  const issuer = startIssuerServer(data);
  const dir = tempDir("cal-feed-rows-");
  dirs.push(dir);
  const ledger = await openLedger(ledgerTarget(dir));
  try {
    const config = loadConfig({ ...ledgerFlags(dir), "xstocks-api-url": issuer.url }, {});
    const result = await pollIssuer({ db: ledger.db, config });
    const revisions = await ledger.db.all(...q<{ event_id: string; version: number; payload: string }>`SELECT event_id, version, payload FROM issuer_revisions ORDER BY id`);
    const rejections = await ledger.db.all(...q<{ payload: string; reason: string }>`SELECT payload, reason FROM issuer_rejections ORDER BY id`);
    return { result, revisions, rejections };
  } finally {
    await ledger.close();
    issuer.stop();
  }
}

/** The first fixture record, as a later version the issuer published to correct it. */
function correctionOf(data: IssuerData) {
  const first = data.history[0];
  return { ...first, version: first.version + 1, status: "Corrected", netCashflowUsd: "0.04", notes: "Corrected net amount" };
}

describe("a row PostgreSQL cannot store, in a poll with a legitimate correction", () => {
  test("a NUL byte and a 4 KB symbol are rejections naming the field; the correction is stored (both engines alike)", async () => {
    const data = loadIssuerFixture();
    const correction = correctionOf(data);
    const nul = { ...data.history[1], eventId: "nul-row", notes: "Cash dividend\u0000" };
    const long = { ...data.history[2], eventId: "long-symbol", xstockSymbol: "X".repeat(4096) };
    const nulAsset = { ...data.assets[0], symbol: "AB\u0000Cx" };
    data.history.push(nul, long, correction);
    data.assets.push(nulAsset);

    const { result, revisions, rejections } = await pollOnce(data);
    expect(result.rejected).toBe(3);
    expect(revisions.map((r) => [r.event_id, r.version])).toContainEqual([correction.eventId, correction.version]);
    expect(JSON.parse(revisions.find((r) => r.version === correction.version && r.event_id === correction.eventId)!.payload).netCashflowUsd).toBe("0.04");
    expect(revisions.map((r) => r.event_id)).not.toContain("nul-row");
    expect(revisions.map((r) => r.event_id)).not.toContain("long-symbol");
    expect(rejections.map((r) => r.reason).sort()).toEqual([
      "notes: holds U+0000, a control character, at position 14",
      "symbol: holds U+0000, a control character, at position 3",
      "xstockSymbol: 4096 characters, at most 32",
    ]);
    // Kept as received (the NUL escaped in the JSON text, which both engines store).
    expect(rejections.map((r) => JSON.parse(r.payload))).toContainEqual(nul);
  });

  test("a refused row padded with a megabyte keeps its start, its length and the hash of the whole, not the megabyte", async () => {
    const data = loadIssuerFixture();
    const padded = { ...data.history[1], eventId: "padded", status: "Pending", padding: "x".repeat(1024 * 1024) };
    data.history.push(padded);
    const { rejections } = await pollOnce(data);
    expect(rejections.map((r) => r.reason)).toEqual(['status: expected one of Initial|Scheduled|Corrected|Cancelled, got "Pending"']);
    const whole = canonicalJson(padded);
    const kept = JSON.parse(rejections[0]!.payload);
    expect(kept).toEqual({ truncated: true, length: whole.length, sha256: sha256Hex(whole), head: whole.slice(0, MAX_REJECTION_PAYLOAD) });
    expect(rejections[0]!.payload.length).toBeLessThan(MAX_REJECTION_PAYLOAD + 1024);
  });
});

describe("rows no real corporate action has", () => {
  test("a day not on the calendar, a zero or negative multiplier, bidi and zero-width characters: each a rejection naming its field", async () => {
    const data = loadIssuerFixture();
    const base = data.history.slice(3, 9);
    const bad = [
      { ...base[0], eventId: "feb-30", effectiveTimeUtc: "2026-02-30T14:30:00.000Z" },
      { ...base[1], eventId: "zero", multiplierNew: "0" },
      { ...base[2], eventId: "negative", multiplierOld: "-1.02" },
      { ...base[3], eventId: "zero-units", fromUnits: "0.000", toUnits: "2" },
      // U+202E RIGHT-TO-LEFT OVERRIDE: "NVDAx" shown reversed; U+200B ZERO WIDTH SPACE: a look-alike.
      { ...base[4], eventId: "bidi", xstockSymbol: "\u202exADVN" },
      { ...base[5], eventId: "zero-width", notes: "Cash\u200b dividend" },
    ];
    data.history.push(...bad);
    const { revisions, rejections } = await pollOnce(data);
    expect(rejections.map((r) => [JSON.parse(r.payload).eventId, r.reason])).toEqual([
      ["feb-30", "effectiveTimeUtc: 2026-02-30 is not a day of the calendar"],
      ["zero", 'multiplierNew: expected a positive decimal or null, got "0"'],
      ["negative", 'multiplierOld: expected a positive decimal or null, got "-1.02"'],
      ["zero-units", 'fromUnits: expected a positive decimal or null, got "0.000"'],
      ["bidi", "xstockSymbol: holds U+202E, an invisible or bidirectional control character, at position 1"],
      ["zero-width", "notes: holds U+200B, an invisible or bidirectional control character, at position 5"],
    ]);
    expect(revisions.map((r) => r.event_id).filter((id) => bad.some((b) => b.eventId === id))).toEqual([]);
    expect(revisions).toHaveLength(data.history.length + data.upcoming.length - bad.length);
  });
});
