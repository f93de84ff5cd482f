// Property tests over random synthetic histories: v1 and v2 agree on income, replay is
// deterministic (also under shuffled input order), the journal diff of a ledger with itself is
// empty, and every position replays exactly onto raw × multiplier.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { actionEvidencePayload, diffJournal, runEngine } from "../../src/domain/engine";
import { canonicalJson, canonicalSha256 } from "../../src/domain/evidence";
import { add, formatExact, parseDecimal, ZERO } from "../../src/domain/numbers";
import type { IssuerRecord } from "../../src/domain/observations";
import type { EngineInput, JournalBooking } from "../../src/domain/types";
import { randomIssuerRecord } from "../support/random-history.ts";
import { revision } from "./helpers";

const MINT = "MintRandom1111111111111111111111111111111111";
const T0 = 1_750_000_000;
const DAY = 86_400;

interface Step {
  kind: "div" | "split" | "bare";
  bump: number; // relative multiplier increase for dividends (1e-4..1e-2)
  cash: number; // cents per share
  ratio: number; // split ratio
}
const step = fc.record({
  kind: fc.constantFrom<Step["kind"]>("div", "div", "div", "split", "bare"),
  bump: fc.integer({ min: 1, max: 100 }).map((x) => x / 10_000),
  cash: fc.integer({ min: 1, max: 500 }),
  ratio: fc.constantFrom(2, 3, 10),
});
const flow = fc.record({ day: fc.integer({ min: 0, max: 400 }), amount: fc.bigInt({ min: 1n, max: 10n ** 12n }), out: fc.boolean() });
const wallet = fc.array(flow, { minLength: 1, maxLength: 6 });

function build(steps: Step[], wallets: { day: number; amount: bigint; out: boolean }[][]): EngineInput {
  let m = 1;
  const updates = [];
  const revisions = [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const at = T0 + (i + 1) * 30 * DAY;
    const old = m;
    m = s.kind === "split" ? m * s.ratio : m * (1 + s.bump);
    updates.push({ mint: MINT, signature: `u${i}`, ixIndex: 0, slot: 1000 + i, blockTime: at - 600, multiplier: m, effectiveTimestamp: at, authority: "A" });
    if (s.kind === "bare") continue;
    const rec = randomIssuerRecord({ eventId: `ev-${i}`, xstockSymbol: "RNDx", spvSymbol: "RND", kind: s.kind, cents: s.cash, ratio: s.ratio, at, old, m });
    revisions.push(revision(rec));
  }
  return {
    now: T0 + (steps.length + 2) * 30 * DAY,
    instruments: [{ mint: MINT, symbol: "RNDx", name: null, underlying: "RND", isin: null, decimals: 6 }],
    mintStates: [],
    multiplierUpdates: updates,
    issuerRevisions: revisions,
    wallets: wallets.map((flows, w) => {
      const owner = `owner${w}`;
      let bal = 0n;
      const changes = [...flows]
        .sort((a, b) => a.day - b.day)
        .map((f, k) => {
          const pre = bal;
          const delta = f.out ? -(f.amount < bal ? f.amount : bal) : f.amount;
          bal += delta;
          return { owner, tokenAccount: `ta${w}`, mint: MINT, signature: `t${w}-${k}`, slot: 10 + k, blockTime: T0 + f.day * DAY + 17, preRaw: pre, postRaw: bal };
        });
      return { owner, gaps: [], accounts: [{ owner, tokenAccount: `ta${w}`, mint: MINT, rawBalance: bal, slot: 99 }], balanceChanges: changes };
    }),
  };
}

const histories = fc.tuple(fc.array(step, { minLength: 1, maxLength: 8 }), fc.array(wallet, { minLength: 1, maxLength: 3 }));

const total = (xs: (string | null)[]): string => formatExact(xs.reduce((s, x) => (x === null ? s : add(s, parseDecimal(x))), ZERO));

describe("engine over random histories", () => {
  test("v1 income total per wallet == sum of v2 income-treatment USD, and the portfolio says the same", () => {
    fc.assert(
      fc.property(histories, ([steps, ws]) => {
        const out = runEngine(build(steps, ws));
        for (const p of out.positions) {
          const v1 = total(out.bookings.filter((b) => b.owner === p.owner && b.kind === "dividend").map((b) => b.usd));
          const v2 = total(out.actions.filter((a) => a.owner === p.owner && a.treatment === "income" && (a.lifecycle.state === "activated" || a.lifecycle.state === "corrected")).map((a) => a.usd));
          expect(v1).toBe(v2);
          expect(p.incomeUsd).toBe(v2);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("replaying from scratch gives the same bookings; input order does not matter", () => {
    fc.assert(
      fc.property(histories, ([steps, ws]) => {
        const input = build(steps, ws);
        const a = runEngine(input);
        const shuffled: EngineInput = {
          ...input,
          multiplierUpdates: [...input.multiplierUpdates].reverse(),
          issuerRevisions: [...input.issuerRevisions].reverse(),
          wallets: input.wallets.map((w) => ({ ...w, balanceChanges: [...w.balanceChanges].reverse() })),
        };
        const b = runEngine(shuffled);
        expect(canonicalJson(b.bookings)).toBe(canonicalJson(a.bookings));
        expect(canonicalJson(b.positions)).toBe(canonicalJson(a.positions));
        const d = diffJournal(a.bookings, b.bookings);
        expect(d.reversals).toEqual([]);
        expect(d.recognitions).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  test("diffJournal(x, x) is empty; from empty everything is a fresh recognition", () => {
    fc.assert(
      fc.property(histories, ([steps, ws]) => {
        const { bookings } = runEngine(build(steps, ws));
        const same = diffJournal(bookings, bookings);
        expect(same.reversals.length + same.recognitions.length).toBe(0);
        const fresh = diffJournal([], bookings);
        expect(fresh.recognitions.length).toBe(bookings.length);
        expect(fresh.reversals.length).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  test("every position replays exactly onto raw × multiplier (status ok) and principal + convertible = quantity", () => {
    fc.assert(
      fc.property(histories, ([steps, ws]) => {
        const out = runEngine(build(steps, ws));
        for (const p of out.positions) {
          expect(p.statusReason).toBeNull();
          expect(p.status).toBe("ok");
          expect(formatExact(add(parseDecimal(p.principalQuantity), parseDecimal(p.convertibleQuantity)))).toBe(p.quantity);
        }
        for (const a of out.actions) expect(a.evidenceSha256).toBe(canonicalSha256(actionEvidencePayload(a)));
      }),
      { numRuns: 40 },
    );
  });
});

describe("journal changes", () => {
  const b: JournalBooking = {
    owner: "o",
    actionId: "act_1",
    mint: "m",
    symbol: "S",
    type: "cash_dividend",
    treatment: "income",
    kind: "dividend",
    unitsDelta: "0.1",
    principalUnitsDelta: "0",
    incomeUnits: "0.1",
    usd: "1.5",
    grossUsd: "1.5",
    withholdingTaxRate: "0",
    withholdingTaxUsd: "0",
    retentionRate: null,
    retainedUsd: "0",
    factor: null,
    effectiveAt: "2026-01-01T00:00:00.000Z",
    evidenceSha256: "aa",
  };
  test("each change reason is chosen from what changed", () => {
    expect(diffJournal([b], [{ ...b, unitsDelta: "0.2", incomeUnits: "0.2", evidenceSha256: "bb" }]).changeReason).toBe("new balance history");
    expect(diffJournal([b], [{ ...b, evidenceSha256: "cc", usd: null }]).changeReason).toBe("issuer correction");
    expect(diffJournal([b], [{ ...b, usd: null }]).changeReason).toBe("valuation change");
    expect(diffJournal([b], []).changeReason).toBe("no longer applicable");
    const d = diffJournal([b], [{ ...b, usd: "2" }]);
    expect(d.reversals.map((r) => r.booking)).toEqual([b]);
    expect(d.recognitions.map((r) => r.booking.usd)).toEqual(["2"]);
  });

  test("new evidence with the same figures (an issuer edit of a record's notes) appends nothing and is named as restated", () => {
    const d = diffJournal([b], [{ ...b, evidenceSha256: "dd" }]);
    expect({ reversals: d.reversals, recognitions: d.recognitions, changeReason: d.changeReason }).toEqual({ reversals: [], recognitions: [], changeReason: null });
    expect(d.restated).toEqual([{ ...b, evidenceSha256: "dd" }]);
    expect(diffJournal([b], [b]).restated).toEqual([]);
  });
});
