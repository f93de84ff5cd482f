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
import { USDC_MINT } from "../src/domain/lots/stablecoins.ts";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../src/sources/solana/wire.ts";
import { encodeMint, encodeTokenAccount, swapTx, transferTx, updateMultiplierTx } from "../test/support/chain.ts";
import { addTransaction, emptyChain } from "../test/support/rpc-server.ts";

const root = join(import.meta.dir, "..");
const subset = JSON.parse(readFileSync(join(root, "test/fixtures/recorded/xstocks/recorded-20260913-subset.json"), "utf8"));

const address = (label: string) =>
  getAddressDecoder().decode(
    createHash("sha256")
      .update("ca-ledger-demo:" + label)
      .digest(),
  );
const signature = (label: string) => {
  const h = createHash("sha512")
    .update("ca-ledger-demo-sig:" + label)
    .digest();
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
      signature: sig,
      slot,
      blockTime: ts - 6 * 3600,
      authority,
      updates: [
        { mint: mintOf(s), multiplier: step.previousMultiplier, effectiveTimestamp: previousTs },
        { mint: mintOf(s), multiplier: step.multiplier, effectiveTimestamp: ts },
      ],
    });
    addTransaction(chain, sig, tx, [authority]);
    previousTs = ts;
    last = { multiplier: step.multiplier, ts, previous: step.previousMultiplier };
  }
  chain.accounts.set(mintOf(s), {
    data: encodeMint({ decimals: 8, authority, multiplier: last.previous, newMultiplier: last.multiplier, newMultiplierEffectiveTimestamp: last.ts }),
    owner: TOKEN_2022_PROGRAM_ID,
  });
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
      signature: sig,
      slot: depositSlot,
      blockTime: Date.parse("2025-08-01T00:00:00Z") / 1000,
      owner,
      tokenAccount,
      mint: mintOf(s),
      pre: null,
      post: raw,
      counterparty: { ...treasury, pre: 10n ** 15n, post: 10n ** 15n - raw },
    });
    addTransaction(chain, sig, tx, [tokenAccount, owner]);
    chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint: mintOf(s), owner, amount: raw }), owner: TOKEN_2022_PROGRAM_ID });
  }
}

// Lots (docs/lots.md#the-demos-gains): bob trades KLACx and HONx for USDC through a pool, living
// through KLACx's forward split and HONx's reverse split and spin-off, moves HONx to alice, and
// sells some of each. Prices are synthetic round figures; the mints and multipliers
// are the recorded ones. In time order, as each account lists them.
const [alice, bob] = owners as [string, string];
const held = new Map<string, bigint>(); // token account → raw balance now
const pool = { authority: address("pool-authority"), program: address("pool-program") };
const usdc = (owner: string) => ({ owner, tokenAccount: address(`usdc:${owner === pool.authority ? "pool" : owner}`), mint: USDC_MINT, decimals: 6, programId: TOKEN_PROGRAM_ID });
const stock = (owner: string, s: string) => ({
  owner,
  tokenAccount: address(owner === pool.authority ? `pool:${s}` : `ata:${owner === alice ? "alice" : "bob"}:${s}`),
  mint: mintOf(s),
  decimals: 8,
  programId: TOKEN_2022_PROGRAM_ID,
});
held.set(usdc(bob).tokenAccount, 20_000_000000n);
held.set(usdc(pool.authority).tokenAccount, 5_000_000_000000n);
for (const s of ["KLACx", "HONx"]) held.set(stock(pool.authority, s).tokenAccount, 10_000_00000000n);
for (const w of wallets) for (const [s, raw] of Object.entries(w.holdings)) held.set(stock(w.label === "alice" ? alice : bob, s).tokenAccount, raw);
let tradeSlot = 420_000_000;
/** Moves `raw` from one account to another; the two legs with their balances before and after (null: not yet opened). */
const move = <T extends { tokenAccount: string }>(from: T, to: T, raw: bigint): [T & { pre: bigint; post: bigint }, T & { pre: bigint | null; post: bigint }] => {
  const out = held.get(from.tokenAccount)!;
  const into = held.get(to.tokenAccount) ?? null;
  held.set(from.tokenAccount, out - raw);
  held.set(to.tokenAccount, (into ?? 0n) + raw);
  return [
    { ...from, pre: out, post: out - raw },
    { ...to, pre: into, post: (into ?? 0n) + raw },
  ];
};
/** The owner buys (`raw` > 0) or sells stock for `usdcRaw` of USDC, in one pool transaction. */
function trade(label: string, owner: string, s: string, raw: bigint, usdcRaw: bigint, at: string) {
  const legs =
    raw > 0n
      ? [...move(usdc(owner), usdc(pool.authority), usdcRaw), ...move(stock(pool.authority, s), stock(owner, s), raw)]
      : [...move(usdc(pool.authority), usdc(owner), usdcRaw), ...move(stock(owner, s), stock(pool.authority, s), -raw)];
  const sig = signature(`trade:${label}`);
  tradeSlot += 1000;
  const tx = swapTx({ signature: sig, slot: tradeSlot, blockTime: Date.parse(at) / 1000, owner, legs, poolAuthority: pool.authority, poolProgram: pool.program });
  addTransaction(chain, sig, tx, [owner, usdc(owner).tokenAccount, stock(owner, s).tokenAccount]);
}
/** `from` sends `raw` of a stock to `to` (a transfer the sender signs). */
function send(label: string, from: string, to: string, s: string, raw: bigint, at: string) {
  const [out, into] = move(stock(from, s), stock(to, s), raw);
  if (into.pre === null) throw new Error(`${label}: the receiver's account must exist`);
  const sig = signature(`send:${label}`);
  tradeSlot += 1000;
  const tx = transferTx({
    signature: sig,
    slot: tradeSlot,
    blockTime: Date.parse(at) / 1000,
    owner: from,
    tokenAccount: out.tokenAccount,
    mint: mintOf(s),
    pre: out.pre,
    post: out.post,
    counterparty: { owner: to, tokenAccount: into.tokenAccount, pre: into.pre, post: into.post },
  });
  addTransaction(chain, sig, tx, [out.tokenAccount, from, into.tokenAccount]);
}
trade("bob:KLACx:buy1", bob, "KLACx", 3_00000000n, 5_400_000000n, "2026-05-20T15:00:00Z"); // before the 1 → 10 split
trade("bob:HONx:buy", bob, "HONx", 4_00000000n, 920_000000n, "2026-06-01T15:00:00Z"); // before the reverse split and the spin-off
trade("bob:KLACx:buy2", bob, "KLACx", 50000000n, 1_050_000000n, "2026-06-20T15:00:00Z"); // after the split, dearer
trade("bob:KLACx:sell", bob, "KLACx", -1_00000000n, 2_000_000000n, "2026-07-01T15:00:00Z");
send("bob:alice:HONx", bob, alice, "HONx", 1_00000000n, "2026-07-10T15:00:00Z");
trade("bob:HONx:sell", bob, "HONx", -2_00000000n, 470_000000n, "2026-07-15T15:00:00Z");
for (const s of ["KLACx", "HONx"])
  for (const owner of [alice, bob]) {
    const account = stock(owner, s);
    chain.accounts.set(account.tokenAccount, { data: encodeTokenAccount({ mint: account.mint, owner, amount: held.get(account.tokenAccount)! }), owner: TOKEN_2022_PROGRAM_ID });
  }

const recording = {
  _source: "scripts/gen-demo.ts: real xStocks figures (recorded 2026-09-13 from the xStocks public API) for the events in `shows`; synthetic wallets, signatures, slots and trade prices.",
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
console.log(
  `demo recording: ${assets.length} mints, ${chain.transactions.size} transactions, ${recording.issuer.history.length + recording.issuer.upcoming.length} issuer records, ${owners.length} wallets`,
);
