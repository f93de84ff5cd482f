// Chain transitions from UpdateMultiplier observations, using the recorded mainnet transactions
// (tx-update-multiplier-0/1: a re-assert with a past timestamp, then a schedule) and the recorded
// HONx mint state.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine } from "../../src/domain/engine";
import type { MultiplierUpdateObs } from "../../src/domain/observations";
import { mintTransitions } from "../../src/domain/timeline";
import { AUTHORITY, unix } from "./helpers";

const CHAIN = join(import.meta.dir, "..", "fixtures", "recorded", "chain");
const tx = (n: number): any => JSON.parse(readFileSync(join(CHAIN, `tx-update-multiplier-${n}.json`), "utf8"));

function updatesOf(j: any): MultiplierUpdateObs[] {
  // The fixture's decoded instructions, in instruction order (outer index 2 and 3 -> ixIndex 2000, 3000).
  return j.decoded.map((d: any, i: number) => ({
    mint: d.mint,
    signature: j.signature,
    ixIndex: (2 + i) * 1000,
    slot: j.result.slot,
    blockTime: j.result.blockTime,
    multiplier: d.multiplier,
    effectiveTimestamp: unix(d.effective),
    authority: AUTHORITY,
  }));
}

/** The update that put the re-asserted value in force earlier (its recorded activation). */
function prior(u: MultiplierUpdateObs): MultiplierUpdateObs {
  return { ...u, signature: "earlier", ixIndex: 1000, slot: u.slot - 1_000_000, blockTime: u.effectiveTimestamp - 600 };
}

describe("recorded UpdateMultiplier transactions", () => {
  test.each([
    [0, 1.000144451415, 1.000314669728725],
    [1, 1.0229655423325776, 1.0273478685368111],
  ])("tx-update-multiplier-%i: the re-assert is no transition; the schedule is one", (n, current, next) => {
    const j = tx(n);
    const us = updatesOf(j);
    expect(us[0]!.multiplier).toBe(current);
    expect(us[1]!.multiplier).toBe(next);
    const before = mintTransitions([prior(us[0]!), ...us], j.result.blockTime + 1);
    const fromTx = before.filter((t) => t.signature === j.signature);
    expect(fromTx.length).toBe(1);
    expect(fromTx[0]!.key).toBe(`${us[1]!.mint}:${j.signature}:3000`);
    expect(fromTx[0]!.multiplierOldF64).toBe(current);
    expect(fromTx[0]!.multiplierNewF64).toBe(next);
    expect(fromTx[0]!.scheduledAt).toBe("2026-09-12T00:30:00.000Z");
    expect(fromTx[0]!.state).toBe("confirmed"); // before 2026-09-12T00:30
    const after = mintTransitions([prior(us[0]!), ...us], unix("2026-09-13T00:00:00Z"));
    expect(after.find((t) => t.signature === j.signature)!.state).toBe("activated");
  });

  test("a schedule overwritten before activation is superseded; the overwrite takes its place", () => {
    const base = { mint: "M", ixIndex: 0, authority: AUTHORITY };
    const us: MultiplierUpdateObs[] = [
      { ...base, signature: "a", slot: 1, blockTime: 1000, multiplier: 1.01, effectiveTimestamp: 5000 },
      { ...base, signature: "b", slot: 2, blockTime: 2000, multiplier: 1.02, effectiveTimestamp: 6000 },
    ];
    const ts = mintTransitions(us, 10_000);
    expect(ts.map((t) => [t.signature, t.state, t.multiplierOldF64])).toEqual([
      ["a", "superseded", 1],
      ["b", "activated", 1],
    ]);
    expect(ts[0]!.supersededBy).toBe("M:b:0");
  });

  test("several updates in one transaction are ordered by ixIndex, whatever the input order", () => {
    const base = { mint: "M", signature: "s", slot: 5, blockTime: 1000, authority: AUTHORITY };
    const us: MultiplierUpdateObs[] = [
      { ...base, ixIndex: 3000, multiplier: 1.5, effectiveTimestamp: 900 },
      { ...base, ixIndex: 2000, multiplier: 1.2, effectiveTimestamp: 900 },
    ];
    const ts = mintTransitions(us, 2000);
    expect(ts.map((t) => [t.ixIndex, t.multiplierOldF64, t.multiplierNewF64])).toEqual([
      [2000, 1, 1.2],
      [3000, 1.2, 1.5],
    ]);
  });

  test("recorded HONx mint state: the multiplier in force after the scheduled time is the new one", () => {
    const j = JSON.parse(readFileSync(join(CHAIN, "mint-HONx.json"), "utf8"));
    const bytes = Buffer.from(j.value.data[0], "base64");
    // Find the Scaled UI Amount extension (type 25) in the TLV area after the 165-byte account + type byte.
    let off = 166;
    let ext: Buffer | null = null;
    while (off + 4 <= bytes.length) {
      const type = bytes.readUInt16LE(off);
      const len = bytes.readUInt16LE(off + 2);
      if (type === 25) ext = bytes.subarray(off + 4, off + 4 + len);
      off += 4 + len;
    }
    expect(ext).not.toBeNull();
    const multiplier = ext!.readDoubleLE(32);
    const ts = Number(ext!.readBigInt64LE(40));
    const next = ext!.readDoubleLE(48);
    expect([multiplier, ts, next]).toEqual([0.9990655067370947, 1786667400, 1.0011576563945983]);
    const mint = j.address;
    const input = {
      now: 1786667400 + 1,
      instruments: [{ mint, symbol: "HONx", name: null, underlying: "HON", isin: null, decimals: 8 }],
      mintStates: [{ mint, slot: j.context.slot, decimals: 8, multiplierAuthority: AUTHORITY, multiplier, newMultiplier: next, newMultiplierEffectiveTimestamp: ts, observedAt: 1786667401 }],
      multiplierUpdates: [],
      issuerRevisions: [],
      wallets: [{ owner: "W", gaps: [], accounts: [{ owner: "W", tokenAccount: "t", mint, rawBalance: 100_000_000n, slot: 1 }], balanceChanges: [] }],
    };
    const p = runEngine(input).positions[0]!;
    expect(p.multiplier).toBe(next.toFixed(60).replace(/0+$/, ""));
    const before = runEngine({ ...input, now: ts - 1 }).positions[0]!;
    expect(before.multiplier).toBe(multiplier.toFixed(60).replace(/0+$/, ""));
  });
});
