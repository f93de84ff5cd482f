// The lot engine's documented choices, one by one (docs/lots.md): the holding term, the order of
// events, HIFO and unknown basis, declared basis, own transfers that do not add up, disposals
// beyond the open lots, dust, multiplier changes no action explains; and its agreement with the
// booking engine's positions on every recorded symbol.
import { describe, expect, test } from "bun:test";
import { runEngine } from "../../src/domain/engine";
import { actionEventOf, deriveLots, firstAnniversary, gainTotals, LOT_METHODS, type LotInput, type Movement, TAX_TREATMENTS, termOf } from "../../src/domain/lots";
import { formatDecimal, liftF64, type Rat, rat, sum } from "../../src/domain/numbers";
import { buildTransitions, effectiveTransitions, multiplierAt } from "../../src/domain/timeline";
import { NOW, OWNER, scenario } from "./helpers";
import { action, DAY, movement, ms, usd } from "./lots-support";

const x = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r));
const W = { owner: "Wallet1", mint: "Mint1", decimals: 8 };
const E = 100_000_000n; // one unit at multiplier 1
const buy = (at: string, signature: string, units: bigint, cost: string | null, extra: Partial<Parameters<typeof movement>[0]> = {}): Movement =>
  movement({ ...W, at: ms(at), signature, rawDelta: units * E, multiplier: 1, usd: cost === null ? null : usd(cost), ...extra });
const sell = (at: string, signature: string, units: bigint, proceeds: string | null, extra: Partial<Parameters<typeof movement>[0]> = {}): Movement =>
  movement({ ...W, at: ms(at), signature, rawDelta: -units * E, multiplier: 1, usd: proceeds === null ? null : usd(proceeds), ...extra });
const fifo = { method: "fifo", treatment: "income" } as const;

describe("term", () => {
  test("long only when the disposal's UTC date is after the first anniversary of the acquisition's UTC date", () => {
    const acquired = ms("2025-01-10T23:30:00Z");
    expect(termOf(acquired, ms("2026-01-10T23:59:59Z"))).toBe("short");
    expect(termOf(acquired, ms("2026-01-11T00:00:00Z"))).toBe("long");
    // The UTC date counts, not 365 days or 8,760 hours.
    expect(termOf(ms("2025-01-10T00:00:00Z"), ms("2026-01-10T23:59:59Z"))).toBe("short");
  });

  test("a lot acquired on 29 February has its anniversary on 28 February of a common year", () => {
    const leap = ms("2024-02-29T12:00:00Z");
    expect(firstAnniversary(leap)).toBe(20250228);
    expect(termOf(leap, ms("2025-02-28T23:00:00Z"))).toBe("short");
    expect(termOf(leap, ms("2025-03-01T00:00:00Z"))).toBe("long");
    // Into a leap year, the anniversary of 28 February is 28 February.
    expect(firstAnniversary(ms("2027-02-28T00:00:00Z"))).toBe(20280228);
    expect(termOf(ms("2027-02-28T00:00:00Z"), ms("2028-02-29T00:00:00Z"))).toBe("long");
  });

  test("realized rows carry the term, and the totals split by it", () => {
    const r = deriveLots({ movements: [buy("2024-02-29T12:00:00Z", "b1", 1n, "100"), buy("2024-06-01T12:00:00Z", "b2", 1n, "100"), sell("2025-03-01T00:00:00Z", "s", 2n, "260")], actions: [] }, fifo);
    expect(r.realized.map((row) => [row.term, x(row.gainUsd)])).toEqual([
      ["long", "30"],
      ["short", "30"],
    ]);
    const totals = gainTotals(r.realized);
    expect([x(totals.long.gainUsd), totals.long.rows, x(totals.short.proceedsUsd), totals.short.unknownRows]).toEqual(["30", 1, "130", 0]);
  });
});

describe("order of events", () => {
  test("an action at the same millisecond as a movement applies first: the movement already carries the new multiplier", () => {
    const at = ms("2026-01-01T00:00:00Z");
    const input: LotInput = {
      movements: [buy("2025-12-01T00:00:00Z", "b", 10n, "100"), movement({ ...W, at, signature: "s", rawDelta: -5n * E, multiplier: 2, usd: usd("60") })],
      actions: [action({ ...W, actionId: "split", at, type: "forward_split", raw: 10n * E, mOld: 1, mNew: 2 })],
    };
    const r = deriveLots(input, fifo);
    expect(r.problems).toEqual([]);
    expect(r.realized.map((row) => [x(row.units), x(row.basisUsd)])).toEqual([["10", "50"]]);
  });

  test("within one transaction every out comes before any in, however the caller listed them", () => {
    const out = sell("2025-06-01T00:00:00Z", "own", 4n, null, { counterpart: "Wallet2", reason: "transfer" });
    const inn = buy("2025-06-01T00:00:00Z", "own", 4n, null, { owner: "Wallet2", counterpart: "Wallet1", reason: "transfer" });
    const r = deriveLots({ movements: [inn, buy("2025-01-01T00:00:00Z", "b", 4n, "40"), out], actions: [] }, fifo);
    expect(r.problems).toEqual([]);
    expect(r.lots.map((l) => [l.owner, l.source, x(l.basisUsd), new Date(l.acquiredAt).toISOString(), l.origin.signature])).toEqual([
      ["Wallet2", "own_transfer", "40", "2025-01-01T00:00:00.000Z", "b"],
    ]);
  });
});

describe("hifo", () => {
  test("highest basis per unit first; lots of unknown basis only after every known lot, oldest first", () => {
    const movements = [
      buy("2025-01-01T00:00:00Z", "unknown-old", 1n, null),
      buy("2025-01-02T00:00:00Z", "cheap", 1n, "10"),
      buy("2025-01-03T00:00:00Z", "dear", 1n, "30"),
      buy("2025-01-04T00:00:00Z", "unknown-new", 1n, null),
      buy("2025-01-05T00:00:00Z", "mid", 2n, "40"),
      sell("2025-02-01T00:00:00Z", "s", 5n, "100"),
    ];
    const r = deriveLots({ movements, actions: [] }, { method: "hifo", treatment: "income" });
    expect(r.realized.map((row) => [row.lotId?.split(":")[0], x(row.units), x(row.basisUsd), row.reason])).toEqual([
      ["dear", "1", "30", null],
      ["mid", "2", "40", null],
      ["cheap", "1", "10", null],
      ["unknown-old", "1", null, "basis: transfer"],
    ]);
    expect(r.lots.map((l) => l.signature)).toEqual(["unknown-new"]);
    expect(gainTotals(r.realized).short.unknownRows).toBe(1);
  });
});

describe("declared basis", () => {
  test("by signature: the declared cost replaces what the chain showed, and the lot says `declared`", () => {
    const movements = [buy("2025-01-01T00:00:00Z", "swap", 2n, null, { reason: "sol_paid" }), buy("2025-01-02T00:00:00Z", "usdc", 2n, "50")];
    const declaredCosts = [
      { owner: "Wallet1", signature: "swap", costUsd: usd("41") },
      { owner: "Wallet1", signature: "usdc", costUsd: usd("52") },
      { owner: "Wallet1", signature: "missing", costUsd: usd("1") },
    ];
    const r = deriveLots({ movements, actions: [], declaredCosts }, fifo);
    expect(r.lots.map((l) => [l.signature, l.source, x(l.basisUsd)])).toEqual([
      ["swap", "declared", "41"],
      ["usdc", "declared", "52"],
    ]);
    expect(r.problems.map((p) => p.code)).toEqual(["declared_cost_unmatched"]);
    // Without the declaration a SOL-paid swap is a purchase of unknown cost.
    expect(deriveLots({ movements, actions: [] }, fifo).lots.map((l) => [l.source, l.reason])).toEqual([
      ["purchase", "sol_paid"],
      ["purchase", null],
    ]);
  });

  test("a standalone lot dates and values units that arrive later with no cost; the rest stays unknown", () => {
    // Bought 3 units on an exchange on 1 March 2024 at multiplier 1; a 2:1 split on chain before the
    // withdrawal doubled them: 6 units arrive, together with 4 more the declaration does not cover.
    const declaredLots = [{ owner: "Wallet1", mint: "Mint1", acquiredAt: ms("2024-03-01T00:00:00Z"), units: rat(3), multiplier: liftF64(1), decimals: 8, costUsd: usd("300") }];
    const movements = [movement({ ...W, at: ms("2024-09-01T00:00:00Z"), signature: "withdrawal", rawDelta: 5n * E, multiplier: 2, reason: "cex_withdrawal" })];
    const r = deriveLots({ movements, actions: [], declaredLots }, fifo);
    expect(r.lots.map((l) => [new Date(l.acquiredAt).toISOString(), l.source, x(l.units), x(l.basisUsd), l.reason])).toEqual([
      ["2024-03-01T00:00:00.000Z", "declared", "6", "300", null],
      ["2024-09-01T00:00:00.000Z", "transfer_in", "4", null, "cex_withdrawal"],
    ]);
    expect(r.problems).toEqual([]);
  });

  test("a declaration that names several acquisitions, or units that never arrive, is reported and not applied", () => {
    const movements = [buy("2025-01-01T00:00:00Z", "tx", 1n, null), buy("2025-01-01T00:00:00Z", "tx", 2n, null, { mint: "Mint2" })];
    const declaredCosts = [{ owner: "Wallet1", signature: "tx", costUsd: usd("10") }];
    const declaredLots = [{ owner: "Wallet1", mint: "Mint1", acquiredAt: ms("2026-01-01T00:00:00Z"), units: rat(1), multiplier: liftF64(1), decimals: 8, costUsd: usd("1") }];
    const r = deriveLots({ movements, actions: [], declaredCosts, declaredLots }, fifo);
    expect(r.lots.every((l) => !l.basisKnown)).toBe(true);
    expect(r.problems.map((p) => p.code).sort()).toEqual(["declared_cost_ambiguous", "declared_cost_ambiguous", "declared_lot_unmatched"]);
  });
});

describe("own transfers that do not add up", () => {
  const base = buy("2025-01-01T00:00:00Z", "b", 10n, "100");
  test("units that leave and never arrive are disposed of with unknown proceeds", () => {
    const r = deriveLots({ movements: [base, sell("2025-02-01T00:00:00Z", "t", 4n, null, { counterpart: "Wallet2" })], actions: [] }, fifo);
    expect(r.realized.map((row) => [x(row.units), x(row.basisUsd), row.reason])).toEqual([["4", "40", "proceeds: own_transfer_unmatched"]]);
    expect(r.problems.map((p) => p.code)).toEqual(["own_transfer_unmatched"]);
  });
  test("fewer units arriving than left (a fee taken in the token): the difference is disposed of, reason transfer_fee", () => {
    const out = sell("2025-02-01T00:00:00Z", "t", 4n, null, { counterpart: "Wallet2" });
    const inn = movement({ ...W, owner: "Wallet2", at: ms("2025-02-01T00:00:00Z"), signature: "t", rawDelta: 3n * E, multiplier: 1, counterpart: "Wallet1" });
    const r = deriveLots({ movements: [base, out, inn], actions: [] }, fifo);
    expect(r.realized.map((row) => [row.owner, x(row.units), x(row.basisUsd), row.reason])).toEqual([["Wallet1", "1", "10", "proceeds: transfer_fee"]]);
    expect(r.lots.map((l) => [l.owner, x(l.units), x(l.basisUsd)])).toEqual([
      ["Wallet1", "6", "60"],
      ["Wallet2", "3", "30"],
    ]);
  });
  test("units arriving that no wallet sent: a lot of unknown basis", () => {
    const inn = buy("2025-02-01T00:00:00Z", "t", 2n, null, { counterpart: "Wallet9" });
    const r = deriveLots({ movements: [inn], actions: [] }, fifo);
    expect(r.lots.map((l) => [l.source, l.reason])).toEqual([["transfer_in", "own_transfer_unmatched"]]);
    expect(x(r.instruments[0]!.reconciliation.acquiredUnits)).toBe("2");
  });
});

describe("incomplete histories", () => {
  test("a disposal beyond the open lots: a row with no acquisition, reason no_open_lot, counted as uncovered", () => {
    const r = deriveLots({ movements: [buy("2025-01-01T00:00:00Z", "b", 2n, "20"), sell("2025-02-01T00:00:00Z", "s", 3n, "45")], actions: [] }, fifo);
    expect(r.realized.map((row) => [row.acquiredAt === null, x(row.units), x(row.proceedsUsd), x(row.gainUsd), row.term, row.reason])).toEqual([
      [false, "2", "30", "10", "short", null],
      [true, "1", "15", null, "short", "basis: no_open_lot"],
    ]);
    const c = r.instruments[0]!.reconciliation;
    expect([x(c.acquiredUnits), x(c.disposedUnits), x(c.uncoveredUnits), x(c.closingUnits)]).toEqual(["2", "3", "1", "0"]);
    expect(r.problems.map((p) => p.code)).toEqual(["no_open_lot"]);
  });

  test("a multiplier change no action explains still moves the units: lots scaled, basis unchanged, flagged", () => {
    const r = deriveLots(
      { movements: [buy("2025-01-01T00:00:00Z", "b", 2n, "20"), movement({ ...W, at: ms("2025-03-01T00:00:00Z"), signature: "b2", rawDelta: E, multiplier: 1.5, usd: usd("15") })], actions: [] },
      fifo,
    );
    expect(r.lots.map((l) => [x(l.units), x(l.basisUsd)])).toEqual([
      ["3", "20"],
      ["1.5", "15"],
    ]);
    expect(r.actions.map((a) => [a.actionId, a.unbooked, x(a.factor)])).toEqual([[null, true, "1.5"]]);
    expect(r.problems.map((p) => p.code)).toEqual(["multiplier_without_action"]);
  });

  test("tokens that show no units (multiplier 0) are reported, not applied", () => {
    const r = deriveLots({ movements: [movement({ ...W, at: 0, signature: "z", rawDelta: E, multiplier: 0, usd: usd("5") })], actions: [] }, fifo);
    expect(r.lots).toEqual([]);
    expect(r.problems.map((p) => p.code)).toEqual(["zero_units"]);
  });
});

describe("dust, seizures and unknown income", () => {
  test("a raw remainder of 1 keeps its share of the basis (to 10^-18 USD), and the last of it takes the exact rest", () => {
    const movements = [
      movement({ ...W, at: 0, signature: "b", rawDelta: 3n, multiplier: 1, usd: usd("1") }),
      movement({ ...W, at: DAY, signature: "s1", rawDelta: -2n, multiplier: 1, usd: usd("1") }),
    ];
    const r = deriveLots({ movements, actions: [] }, fifo);
    expect(x(r.realized[0]!.basisUsd)).toBe("0.666666666666666667");
    expect(r.lots.map((l) => [x(l.units), x(l.basisUsd)])).toEqual([["0.00000001", "0.333333333333333333"]]);
    const all = deriveLots({ movements: [...movements, movement({ ...W, at: 2 * DAY, signature: "s2", rawDelta: -1n, multiplier: 1, usd: usd("0.5") })], actions: [] }, fifo);
    expect(x(sum(all.realized.map((row) => row.basisUsd!)))).toBe("1");
    expect(all.lots).toEqual([]);
  });

  test("a seizure is a disposal with unknown proceeds and the seizure's reason, never a sale", () => {
    const r = deriveLots({ movements: [buy("2025-01-01T00:00:00Z", "b", 2n, "20"), sell("2025-02-01T00:00:00Z", "seized", 2n, null, { reason: "seizure" })], actions: [] }, fifo);
    expect(r.realized.map((row) => [x(row.basisUsd), row.proceedsUsd, row.reason])).toEqual([["20", null, "proceeds: seizure"]]);
  });

  test("income with unknown USD: the income lot has unknown basis, and its disposal says why", () => {
    const input: LotInput = {
      movements: [buy("2025-01-01T00:00:00Z", "b", 10n, "100"), movement({ ...W, at: ms("2025-03-01T00:00:00Z"), signature: "s", rawDelta: -10n * E, multiplier: 1.01, usd: usd("120") })],
      actions: [action({ ...W, actionId: "div", at: ms("2025-02-01T00:00:00Z"), type: "cash_dividend", raw: 10n * E, mOld: 1, mNew: 1.01, cashPerShare: null })],
    };
    const r = deriveLots(input, { method: "lifo", treatment: "income" });
    expect(r.realized.map((row) => [row.lotSource, row.basisUsd === null, row.reason])).toEqual([
      ["income", true, "basis: income_usd_unknown"],
      ["purchase", false, null],
    ]);
  });
});

describe("actionEventOf", () => {
  test("only actions in force move lots: announced, superseded and seizure records give nothing", () => {
    const out = runEngine(scenario(["SPYx", "HONx"], 1_000_000_000n));
    const events = out.actions.map(actionEventOf);
    expect(events.filter((e) => e !== null).length).toBe(out.bookings.filter((b) => b.type !== "seizure").length);
    for (const a of out.actions) if (a.lifecycle.state !== "activated" && a.lifecycle.state !== "corrected") expect(actionEventOf(a)).toBeNull();
  });
});

describe("agreement with the booking engine", () => {
  const SYMBOLS = ["SPYx", "HONx", "KLACx", "NVOx", "AZNx", "SCCOx", "KRAQx", "STRCx", "KOx", "NVDAx", "NFLXx"];
  test.each(SYMBOLS)("%s: under every method and both treatments the lots hold exactly the position's quantity, with no problem", (symbol) => {
    const raw = 1_000_000_000n;
    const input = scenario([symbol], raw);
    const out = runEngine(input);
    const position = out.positions.find((p) => p.owner === OWNER)!;
    const activated = effectiveTransitions(buildTransitions(input.multiplierUpdates, NOW));
    const change = input.wallets[0]!.balanceChanges[0]!;
    const movements = [
      movement({ owner: OWNER, mint: change.mint, at: change.blockTime * 1000, signature: change.signature, rawDelta: raw, multiplier: multiplierAt(activated, change.blockTime), usd: usd("1000") }),
    ];
    const actions = out.actions.map(actionEventOf).filter((a) => a !== null);
    for (const treatment of TAX_TREATMENTS) {
      for (const method of LOT_METHODS) {
        const r = deriveLots({ movements, actions }, { method, treatment });
        expect(r.problems).toEqual([]);
        expect(x(r.instruments[0]!.units)).toBe(position.quantity);
      }
    }
  });
});

describe("purity", () => {
  test("src/domain/lots imports only the domain, and reads no clock, randomness or environment", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = join(import.meta.dir, "..", "..", "src", "domain", "lots");
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const text = readFileSync(join(dir, f), "utf8");
      for (const [, from] of text.matchAll(/from\s+"([^"]+)"/g)) expect({ f, from, ok: /^\.\.?\//.test(from!) && !/\.\.\/\.\./.test(from!) }).toEqual({ f, from, ok: true });
      expect({ f, impure: /Date\.now|performance\.|Math\.random|process\.|require\(/.test(text) }).toEqual({ f, impure: false });
    }
  });
});
