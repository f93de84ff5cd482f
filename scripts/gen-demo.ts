// Builds src/demo/recording.json: a recorded chain and issuer feed in the real wire formats,
// which the demo replays through the same adapters, store and replay as a live sync. The figures
// are real (xStocks mints, multiplier steps, issuer records of the events listed in `shows`,
// recorded 2026-09-13); the wallets, signatures and slots are synthetic. Only those events'
// records are carried, never the recordings in bulk.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAddressDecoder } from "@solana/kit";
import { recordingFromChain } from "../src/sources/solana/recorded.ts";
import { TOKEN_2022_PROGRAM_ID } from "../src/sources/solana/wire.ts";
import { encodeMint, encodeTokenAccount, transferTx, updateMultiplierTx } from "../test/support/chain.ts";
import { addTransaction, emptyChain } from "../test/support/rpc-server.ts";

const root = join(import.meta.dir, "..");
const subset = JSON.parse(readFileSync(join(root, "test/fixtures/recorded/xstocks/recorded-20260913-subset.json"), "utf8"));

const address = (label: string) => getAddressDecoder().decode(createHash("sha256").update("ca-ledger-demo:" + label).digest());
const signature = (label: string) => {
  const h = createHash("sha512").update("ca-ledger-demo-sig:" + label).digest();
  return getAddressDecoder().decode(h.subarray(0, 32)) + getAddressDecoder().decode(h.subarray(32, 64));
};

// What each symbol shows (docs/demo.md#what-it-shows).
const shows: Record<string, string> = {
  SPYx: "cash dividends; one record without net cash (usd null with a warning)",
  NVOx: "a dividend, then a withholding refund (Corrected follow-on revision)",
  KLACx: "a forward split 1→10 between two dividends whose implied prices agree",
  HONx: "a spin-off without proceeds, a reverse split 2→1 and a spin-off with proceeds",
  SCCOx: "a stock dividend after cancelled and rescheduled records",
  KRAQx: "a rights distribution (warrant proceeds reinvested), after a cancelled revision",
  AZNx: "an identity change (ADR to ordinary share, lineage) and a cancelled and corrected dividend",
  STRCx: "an implausible issuer cash figure (usd null) and multiplier changes with no issuer record",
};
const authority = "S7vYFFWH6BjJyEsdrPQpqpYTqLTrPRK6KW3VwsJuRaS"; // the xStocks multiplier authority

const assets = subset.assets.filter((a: { symbol: string }) => a.symbol in shows);
const mintOf = (s: string): string => assets.find((a: { symbol: string }) => a.symbol === s).deployments.find((d: { network: string }) => d.network === "Solana").address;
const chain = emptyChain(460_000_000);

// The authority's history: each recorded step as the issuer writes it, a re-assert of the value
// in force followed by the schedule of the next one, a few hours before activation.
let slot = 380_000_000;
for (const s of Object.keys(shows)) {
  const steps = [...subset.multiplierHistory[s]].sort((a: { activationDateTime: string }, b: { activationDateTime: string }) => a.activationDateTime.localeCompare(b.activationDateTime));
  let previousTs = 1_700_000_000;
  let last = { multiplier: 1, ts: 0, previous: 1 };
  for (const step of steps) {
    const ts = Date.parse(step.activationDateTime) / 1000;
    const sig = signature(`${s}:${step.id}`);
    slot += 1000;
    const tx = updateMultiplierTx({
      signature: sig, slot, blockTime: ts - 6 * 3600, authority,
      updates: [{ mint: mintOf(s), multiplier: step.previousMultiplier, effectiveTimestamp: previousTs }, { mint: mintOf(s), multiplier: step.multiplier, effectiveTimestamp: ts }],
    });
    addTransaction(chain, sig, tx, [authority]);
    previousTs = ts;
    last = { multiplier: step.multiplier, ts, previous: step.previousMultiplier };
  }
  chain.accounts.set(mintOf(s), { data: encodeMint({ decimals: 8, authority, multiplier: last.previous, newMultiplier: last.multiplier, newMultiplierEffectiveTimestamp: last.ts }), owner: TOKEN_2022_PROGRAM_ID });
}

// Two synthetic wallets, each funded before the first event it should see.
const wallets = [
  { label: "alice", holdings: { SPYx: 12_50000000n, NVOx: 40_00000000n, KLACx: 3_00000000n, HONx: 20_00000000n } },
  { label: "bob", holdings: { AZNx: 55_00000000n, SCCOx: 30_00000000n, KRAQx: 100_00000000n, STRCx: 25_00000000n } },
];
const treasury = { owner: address("issuer-treasury"), tokenAccount: address("issuer-treasury-ata") };
const owners: string[] = [];
let depositSlot = 300_000_000;
for (const w of wallets) {
  const owner = address(`wallet:${w.label}`);
  owners.push(owner);
  for (const [s, raw] of Object.entries(w.holdings)) {
    const tokenAccount = address(`ata:${w.label}:${s}`);
    const sig = signature(`deposit:${w.label}:${s}`);
    depositSlot += 10;
    const tx = transferTx({
      signature: sig, slot: depositSlot, blockTime: Date.parse("2025-08-01T00:00:00Z") / 1000, owner, tokenAccount, mint: mintOf(s),
      pre: null, post: raw, counterparty: { ...treasury, pre: 10n ** 15n, post: 10n ** 15n - raw },
    });
    addTransaction(chain, sig, tx, [tokenAccount, owner]);
    chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint: mintOf(s), owner, amount: raw }), owner: TOKEN_2022_PROGRAM_ID });
  }
}

const recording = {
  _source: "scripts/gen-demo.ts: real xStocks figures (recorded 2026-09-13 from the xStocks public API) for the events in `shows`; synthetic wallets, signatures and slots.",
  shows,
  owners,
  chain: recordingFromChain(chain),
  issuer: {
    assets,
    history: subset.history.filter((r: { xstockSymbol: string }) => r.xstockSymbol in shows),
    upcoming: subset.upcoming.filter((r: { xstockSymbol: string }) => r.xstockSymbol in shows),
  },
};
writeFileSync(join(root, "src/demo/recording.json"), JSON.stringify(recording) + "\n");
console.log(`demo recording: ${assets.length} mints, ${chain.transactions.size} transactions, ${recording.issuer.history.length + recording.issuer.upcoming.length} issuer records, ${owners.length} wallets`);
