// Random histories for the ledger's property tests: up to three mints, each with up to six
// multiplier steps (cash dividends and splits the issuer announced, and bare changes it did not)
// and, for each of two wallets, a few transfers in and out. `observations` gives one run's
// observations in two rounds, split at a cut in time, so a test books a ledger twice.
import fc from "fast-check";
import type { IssuerRecord } from "../../src/domain/observations.ts";
import { issuerRecord } from "./issuer-records.ts";
import type { ObservationBatch } from "../../src/ledger/store.ts";

export const T0 = 1_750_000_000;
export const DAY = 86_400;

interface Step {
  kind: "div" | "split" | "bare";
  bump: number;
  cents: number;
  ratio: number;
}
const step = fc.record({
  kind: fc.constantFrom<Step["kind"]>("div", "div", "split", "bare"),
  bump: fc.integer({ min: 1, max: 100 }).map((x) => x / 10_000),
  cents: fc.integer({ min: 1, max: 500 }),
  ratio: fc.constantFrom(2, 3, 10),
});
const flow = fc.record({ day: fc.integer({ min: 0, max: 400 }), amount: fc.bigInt({ min: 1n, max: 10n ** 12n }), out: fc.boolean() });
const mintHistory = fc.record({
  decimals: fc.integer({ min: 0, max: 9 }),
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
  // Per wallet, its flows of this mint (an empty list: the wallet never held it).
  flows: fc.array(fc.array(flow, { maxLength: 4 }), { minLength: 2, maxLength: 2 }),
});
export const history = fc.array(mintHistory, { minLength: 1, maxLength: 3 });

/** One run's observations in two rounds: what happened before `cut` (unix seconds), and the rest. */
export function observations(mints: { decimals: number; steps: Step[]; flows: { day: number; amount: bigint; out: boolean }[][] }[], run: number) {
  const owners = [0, 1].map((w) => `Owner${run}w${w}`.padEnd(44, "1"));
  const rounds: [ObservationBatch, ObservationBatch] = [
    { instruments: [], multiplierUpdates: [], issuerRecords: [], tokenAccounts: [], balanceChanges: [] },
    { multiplierUpdates: [], issuerRecords: [], tokenAccounts: [], balanceChanges: [] },
  ];
  const cut = T0 + 200 * DAY;
  const round = (at: number) => rounds[at < cut ? 0 : 1];
  mints.forEach((h, k) => {
    const mint = `Mint${run}m${k}`.padEnd(44, "1");
    const symbol = `R${run}M${k}x`;
    rounds[0].instruments!.push({ mint, symbol, name: null, underlying: `R${run}M${k}`, isin: null, decimals: h.decimals });
    let m = 1;
    h.steps.forEach((s, i) => {
      const at = T0 + (i + 1) * 60 * DAY;
      const old = m;
      m = s.kind === "split" ? m * s.ratio : m * (1 + s.bump);
      round(at).multiplierUpdates!.push({
        mint,
        signature: `${mint}u${i}`,
        ixIndex: 0,
        slot: 1000 + i,
        blockTime: at - 600,
        multiplier: m,
        effectiveTimestamp: at,
        authority: "Auth1111111111111111111111111111111111111111",
      });
      if (s.kind === "bare") return; // no issuer record: an unclassified adjustment
      const record = randomIssuerRecord({ eventId: `${symbol}-${i}`, xstockSymbol: symbol, spvSymbol: `R${run}M${k}`, kind: s.kind, cents: s.cents, ratio: s.ratio, at, old, m });
      round(at).issuerRecords!.push(record);
    });
    h.flows.forEach((flows, w) => {
      if (!flows.length) return;
      const owner = owners[w]!,
        tokenAccount = `Acct${run}m${k}w${w}`.padEnd(44, "1");
      let bal = 0n;
      [...flows]
        .sort((a, b) => a.day - b.day)
        .forEach((f, j) => {
          const pre = bal;
          bal += f.out ? -(f.amount < bal ? f.amount : bal) : f.amount;
          const at = T0 + f.day * DAY + 17;
          round(at).balanceChanges!.push({ owner, tokenAccount, mint, signature: `${tokenAccount}t${j}`, slot: 10 + j, blockTime: at, preRaw: pre, postRaw: bal });
          round(at).tokenAccounts!.push({ owner, tokenAccount, mint, rawBalance: bal, slot: 10 + j });
        });
    });
  });
  return { owners, rounds, cut };
}

/** The issuer's record of a random step (a dividend at 30 % withholding, or a 1 → ratio split), as the engine's property tests and this history build it. */
export function randomIssuerRecord(p: {
  eventId: string;
  xstockSymbol: string;
  spvSymbol: string;
  kind: "div" | "split";
  cents: number;
  ratio: number;
  at: number;
  old: number;
  m: number;
}): IssuerRecord {
  const div = p.kind === "div";
  return issuerRecord({
    eventId: p.eventId,
    xstockSymbol: p.xstockSymbol,
    spvSymbol: p.spvSymbol,
    caType: p.kind === "split" ? "ForwardSplit" : "CashDividend",
    at: p.at,
    multiplierOld: p.old,
    multiplierNew: p.m,
    grossCashflowUsd: div ? (p.cents / 100).toString() : null,
    netCashflowUsd: div ? ((p.cents * 0.7) / 100).toFixed(4) : null,
    withholdingTaxRate: div ? "0.3" : null,
    fromUnits: div ? null : "1",
    toUnits: div ? null : String(p.ratio),
  });
}
