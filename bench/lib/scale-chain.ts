// The chain the scale bench syncs from: the 13 recorded xStocks mints (real addresses, real
// multiplier steps, the issuer records of test/fixtures) under one multiplier authority, and as
// many synthetic wallets as asked, each holding two of those mints from one early deposit, so
// every wallet has real corporate actions to book. Wallets 0–999 all hold HONx: one issuer record
// on HONx re-books exactly 1,000 wallets.
import { createHash } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { TOKEN_2022_PROGRAM_ID } from "../../src/sources/solana/wire.ts";
import { encodeMint, encodeTokenAccount, readFixture, transferTx, updateMultiplierTx, XSTOCKS_AUTHORITY } from "../../test/support/chain.ts";
import { addTransaction, emptyChain, type ChainState } from "../../test/support/rpc-server.ts";

export const HONX_HOLDERS = 1000;

interface Step {
  multiplier: number;
  previousMultiplier: number;
  activationDateTime: string;
}

const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
export function addressFor(label: string): string {
  const b = createHash("sha256").update(label).digest();
  b[0] = b[0]! | 1;
  return base58(b);
}
const signatureFor = (label: string) => base58(new Uint8Array(createHash("sha512").update(label).digest()));

export interface ScaleChain {
  chain: ChainState;
  mints: { symbol: string; mint: string }[];
  /** The wallet at this index (created on the chain the first time it is asked for). */
  wallet(i: number): string;
  /** One wallet holding all 13 mints: its lists fill pages of 50 (bench/http). */
  heavyWallet(): string;
}

export function buildScaleChain(): ScaleChain {
  const fixture = readFixture("xstocks/recorded-20260913-subset.json") as {
    assets: { symbol: string; deployments: { network: string; address: string }[] }[];
    multiplierHistory: Record<string, Step[]>;
  };
  const chain = emptyChain(460_000_000);
  chain.tokenAccountsByOwner = new Map();
  const mints = fixture.assets.map((a) => ({ symbol: a.symbol, mint: a.deployments.find((d) => d.network === "Solana")!.address })).sort((a, b) => a.symbol.localeCompare(b.symbol));

  // The authority's history: every recorded step of every mint, oldest first, each written as the
  // issuer writes it (a re-assert of the value in force, then the new value).
  const steps = mints.flatMap(({ symbol, mint }) =>
    [...(fixture.multiplierHistory[symbol] ?? [])].reverse().map((s, i, all) => ({ mint, step: s, previousTs: i ? Date.parse(all[i - 1]!.activationDateTime) / 1000 : 1_700_000_000 })),
  );
  steps.sort((a, b) => Date.parse(a.step.activationDateTime) - Date.parse(b.step.activationDateTime));
  let slot = 400_000_000;
  for (const { mint, step, previousTs } of steps) {
    slot += 10_000;
    const ts = Date.parse(step.activationDateTime) / 1000;
    const signature = signatureFor(`update:${mint}:${ts}`);
    addTransaction(
      chain,
      signature,
      updateMultiplierTx({
        signature,
        slot,
        blockTime: ts - 6 * 3600,
        authority: XSTOCKS_AUTHORITY,
        updates: [
          { mint, multiplier: step.previousMultiplier, effectiveTimestamp: previousTs },
          { mint, multiplier: step.multiplier, effectiveTimestamp: ts },
        ],
      }),
      [XSTOCKS_AUTHORITY],
    );
  }
  for (const { symbol, mint } of mints) {
    const history = fixture.multiplierHistory[symbol] ?? [];
    const last = history[0];
    chain.accounts.set(mint, {
      data: encodeMint({
        decimals: 8,
        authority: XSTOCKS_AUTHORITY,
        multiplier: last?.previousMultiplier ?? 1,
        newMultiplier: last?.multiplier ?? 1,
        newMultiplierEffectiveTimestamp: last ? Date.parse(last.activationDateTime) / 1000 : 0,
      }),
      owner: TOKEN_2022_PROGRAM_ID,
    });
  }
  chain.slot = slot + 1_000_000;

  const honx = mints.findIndex((m) => m.symbol === "HONx");
  const others = mints.filter((_, i) => i !== honx);
  const created = new Map<number, string>();
  const wallet = (i: number): string => {
    const held = i < HONX_HOLDERS ? [mints[honx]!, others[i % others.length]!] : [others[i % others.length]!, others[(i * 7 + 3) % others.length]!];
    return holder(i, held[0]!.mint === held[1]!.mint ? [held[0]!, others[(i + 1) % others.length]!] : held);
  };
  const holder = (i: number, picked: { mint: string }[]): string => {
    const known = created.get(i);
    if (known) return known;
    const owner = addressFor(`scale-owner-${i}`);
    const accounts: string[] = [];
    for (const { mint } of picked) {
      const tokenAccount = addressFor(`scale-account-${i}-${mint}`);
      const signature = signatureFor(`deposit:${i}:${mint}`);
      const amount = BigInt(1_000_000_000 + (i % 997) * 1_000_000);
      // One deposit in 2025, before every recorded step: the wallet held through all of them.
      addTransaction(chain, signature, transferTx({ signature, slot: 300_000_000 + i, blockTime: 1_735_700_000 + i, owner, tokenAccount, mint, pre: null, post: amount }), [tokenAccount, owner]);
      chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint, owner, amount }), owner: TOKEN_2022_PROGRAM_ID });
      accounts.push(tokenAccount);
    }
    chain.tokenAccountsByOwner!.set(owner, accounts);
    created.set(i, owner);
    return owner;
  };
  return { chain, mints, wallet, heavyWallet: () => holder(-1, mints) };
}
