// Evidence hashing, census, yield windows, lineage fractions, announced events, seizure and
// partial positions, on the recorded fixtures (chain synthesized as described in helpers.ts).
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { actionEvidencePayload, runEngine } from "../../src/domain/engine";
import { canonicalJson, canonicalSha256 } from "../../src/domain/evidence";
import { fractionsSummingToOne } from "../../src/domain/lineage";
import { add, parseDecimal, rat, ZERO, eq } from "../../src/domain/numbers";
import { ACTION_TYPES, computeCensus } from "../../src/domain/taxonomy";
import { NOW, OWNER, scenario, unix } from "./helpers";

describe("evidence", () => {
  test("RFC 8785: sorted keys, no whitespace, ES number form, escapes", () => {
    expect(canonicalJson({ b: [1, 1e21, 0.1, -0], a: 'é\u0001"', c: null, d: undefined })).toBe('{"a":"é\\u0001\\"","b":[1,1e+21,0.1,0],"c":null}');
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "1": 3 })).toBe('{"\\r":2,"1":3,"€":1}');
  });
  test("evidenceSha256 is SHA-256 of the canonical payload, recomputable from the stored fields only", () => {
    const out = runEngine(scenario(["SPYx"], 1_000_000_000n));
    for (const a of out.actions) {
      const payload = actionEvidencePayload(a);
      expect(a.evidenceSha256).toBe(createHash("sha256").update(canonicalJson(payload)).digest("hex"));
      expect(a.evidence.payloadSha256).toBe(a.evidenceSha256);
      expect(payload.matchedRevisionSha256).toBe(a.matched?.sha256 ?? null);
      expect(a.matched ? canonicalSha256(a.revisions.find((r) => r.version === a.matched!.version)!.record) : null).toBe(a.matched?.sha256 ?? null);
    }
  });
  test("action ids are stable across replays and distinct per owner", () => {
    const a = runEngine(scenario(["HONx"], 5n)).actions.map((x) => x.id);
    const b = runEngine(scenario(["HONx"], 5n)).actions.map((x) => x.id);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(a.length);
    expect(a.every((id) => /^act_[0-9a-f]{24}$/.test(id))).toBe(true);
  });
});

describe("census and taxonomy", () => {
  const out = runEngine(scenario(["SPYx", "HONx", "KLACx", "NVOx", "AZNx", "SCCOx", "KRAQx", "STRCx"], 1_000_000_000n));
  test("all 18 types, computed from data", () => {
    expect(out.census.map((c) => c.type)).toEqual([...ACTION_TYPES]);
    const by = Object.fromEntries(out.census.map((c) => [c.type, c]));
    expect(by.forward_split!.validation).toEqual({ status: "validated", realInstances: 1 });
    expect(by.reverse_split!.validation.realInstances).toBe(1);
    expect(by.spin_off!.validation.realInstances).toBe(2);
    expect(by.withholding_adjustment!.validation.realInstances).toBe(1);
    expect(by.identity_change!.validation.status).toBe("validated");
    expect(by.cash_in_lieu!.validation).toEqual({ status: "unvalidated", realInstances: 0 });
    expect(by.cash_merger!.validation.status).toBe("not_built");
    expect(by.unknown!.validation).toEqual({ status: "not_built", realInstances: 0 });
    // The census the ledger stores per mint sums to the same taxonomy.
    expect(computeCensus(out.censusInstances)).toEqual(out.census);
  });
});

describe("yield", () => {
  test("tracked window over SPYx: income units over time-weighted average quantity", () => {
    const out = runEngine(scenario(["SPYx"], 1_000_000_000n));
    const y = out.yields.find((x) => x.window === "tracked")!;
    // One SPYx dividend in the tracked window has no net cash -> partial with a code, USD null.
    expect(y.status).toBe("partial");
    expect(y.partialCode).toBe("unvalued_income");
    expect(y.incomeUsd).toBeNull();
    expect(y.incomeUnits).toBe(out.positions[0]!.incomeUnits);
    const t30 = out.yields.find((x) => x.window === "trailing_30d")!;
    expect(t30.status).toBe("ok");
    expect(t30.incomeUnits).toBe("0");
    expect(t30.averageQuantity).toBe(out.positions[0]!.quantity);
  });
  test("a window before the recorded history starts mid-way is partial", () => {
    const input = scenario(["KOx"], 100n);
    input.wallets[0]!.balanceChanges[0]!.preRaw = 50n; // history starts with 50 already held
    input.wallets[0]!.accounts[0]!.rawBalance = 150n;
    input.wallets[0]!.balanceChanges[0]!.postRaw = 150n;
    const out = runEngine(input);
    expect(out.positions[0]!.status).toBe("partial");
    expect(out.positions[0]!.statusReason).toContain("history starts mid-way");
    expect(out.yields.every((y) => y.status === "partial")).toBe(true);
  });
});

describe("lineage", () => {
  test("fractions sum to exactly 1", () => {
    const parts = fractionsSummingToOne([rat(1, 3), rat(1, 3), rat(1, 3)]);
    expect(
      eq(
        parts.reduce((s, p) => add(s, parseDecimal(p)), ZERO),
        rat(1),
      ),
    ).toBe(true);
  });
  test("HONx: two spin-offs; the earliest basis sits in the position, partly as reinvested distributions", () => {
    const out = runEngine(scenario(["HONx"], 1_000_000_000n));
    const l = out.lineage[0]!;
    expect(l.links.map((x) => x.type)).toEqual(["spin_off", "spin_off"]);
    for (const link of l.links) expect(eq(add(parseDecimal(link.basisFraction), parseDecimal(link.cashFraction)), rat(1))).toBe(true);
    expect(
      eq(
        l.basisNowSits.reduce((s, b) => add(s, parseDecimal(b.fraction)), ZERO),
        rat(1),
      ),
    ).toBe(true);
  });
});

describe("announced, seizure, partial", () => {
  test("an upcoming issuer event for a held mint is an announced action with no booking", () => {
    const input = scenario(["KOx"], 1_000_000_000n);
    // KOx 75c0c70e v1 Scheduled for 2026-09-15 is in the recorded `upcoming` list.
    const out = runEngine(input);
    const a = out.actions.find((x) => x.matched?.eventId.startsWith("75c0c70e"))!;
    expect(a.lifecycle.state).toBe("announced");
    expect(a.transitionKey).toBeNull();
    expect(a.type).toBe("cash_dividend");
    expect(out.bookings.some((b) => b.actionId === a.id)).toBe(false);
  });
  test("a schedule ahead of now is a confirmed action with no booking", () => {
    const input = scenario(["NVDAx"], 1_000_000_000n, { now: unix("2026-09-10T00:25:00Z") });
    const out = runEngine(input);
    const a = out.actions.find((x) => x.effectiveAt === "2026-09-10T00:30:00.000Z")!;
    expect(a.lifecycle.state).toBe("confirmed");
    expect(out.bookings.some((b) => b.actionId === a.id)).toBe(false);
  });
  test("a permanent-delegate transfer without the owner's signature is a seizure, not a withdrawal", () => {
    const input = scenario(["KOx"], 1_000n);
    const w = input.wallets[0]!;
    w.balanceChanges.push({
      owner: OWNER,
      tokenAccount: "ta-KOx",
      mint: w.accounts[0]!.mint,
      signature: "seize",
      slot: 446_000_001,
      blockTime: NOW - 100,
      preRaw: 1_000n,
      postRaw: 400n,
      ownerSigned: false,
      byPermanentDelegate: true,
    });
    w.accounts[0]!.rawBalance = 400n;
    const out = runEngine(input);
    const s = out.actions.find((a) => a.type === "seizure")!;
    expect(s.category).toBe("custody");
    expect(s.treatment).toBe("not_booked");
    expect(s.v1.kind).toBe("unclassified_adjustment");
    expect(out.positions[0]!.status).toBe("ok");
    expect(out.positions[0]!.rawBalance).toBe("400");
  });
  test("a sync gap makes the position partial and says why", () => {
    const input = scenario(["KOx"], 1_000n);
    input.wallets[0]!.gaps = ["signatures before 2026-01-01 not fetched"];
    const p = runEngine(input).positions[0]!;
    expect(p.status).toBe("partial");
    expect(p.statusReason).toContain("signatures before 2026-01-01 not fetched");
  });
});
