// Real Token-2022 bytes from LiteSVM, which runs the actual Token-2022 program: a mint with the
// Scaled UI Amount extension, a holder, a re-assert plus a schedule in one transaction, a
// schedule overwritten before it activates, and a transfer after the activation. The resulting
// account bytes and transactions (rendered as an RPC node's `json` encoding) go through our
// decoders, then through the whole chain sync against the loopback JSON-RPC server, then the
// engine: the overwritten schedule is superseded, the balance at activation is the one before
// the transfer, and nothing is guessed.
import { describe, expect, test } from "bun:test";
import { LiteSVM } from "litesvm";
import { generateKeyPairSigner, lamports, type Instruction } from "@solana/kit";
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintDecoder,
  getMintToInstruction,
  getTransferCheckedInstruction,
  getUpdateMultiplierScaledUiMintInstruction,
} from "@solana-program/token-2022";
import { runEngine } from "../../src/domain/engine";
import { decodeMintAccount, decodeTokenAccountBytes, extractBalanceChanges, findMultiplierUpdates } from "../../src/sources/solana/decode";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline";
import { createRpc } from "../../src/sources/solana/rpc";
import type { WireTransaction } from "../../src/sources/solana/wire";
import { ata2022, createScaledMintInstructions, reassertThenScheduleInstructions, recordSvm } from "../support/litesvm-chain";
import { emptyChain, startRpcServer } from "../support/rpc-server";

const T0 = 1_780_000_000n; // the clock when the issuer acts (LiteSVM starts at 0)
const DECIMALS = 6;

async function scenario() {
  const svm = new LiteSVM();
  const issuer = await generateKeyPairSigner();
  const holder = await generateKeyPairSigner();
  const other = await generateKeyPairSigner();
  const mint = await generateKeyPairSigner();
  svm.airdrop(issuer.address, lamports(10_000_000_000n));
  svm.airdrop(holder.address, lamports(1_000_000_000n));
  const [holderAta, otherAta] = await Promise.all([ata2022(holder.address, mint.address), ata2022(other.address, mint.address)]);
  const chain = emptyChain(1000);
  const txs: Record<string, WireTransaction> = {};
  const svmChain = recordSvm(svm, chain);
  svmChain.watch(holderAta, holder.address, mint.address, DECIMALS);
  svmChain.watch(otherAta, other.address, mint.address, DECIMALS);
  const setClock = svmChain.setClock;
  const send = async (label: string, feePayer: typeof issuer, ixs: Instruction[], listedUnder: string[]) => (txs[label] = await svmChain.send(label, feePayer, ixs, listedUnder));

  setClock(T0 - 86_400n);
  await send("create", issuer, createScaledMintInstructions(svm, issuer, mint, DECIMALS), [issuer.address]);
  await send(
    "mint",
    issuer,
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: holderAta, owner: holder.address, mint: mint.address }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: otherAta, owner: other.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: holderAta, mintAuthority: issuer, amount: 100_000_000n }),
    ],
    [holderAta, issuer.address],
  );
  setClock(T0);
  // The issuer's pattern: re-assert the value in force with a past timestamp, then schedule.
  await send("schedule", issuer, reassertThenScheduleInstructions(issuer, mint.address, T0 - 86_400n, 1.05, T0 + 3600n), [issuer.address]);
  setClock(T0 + 600n);
  // Overwritten before activation: the 1.05 schedule never takes effect.
  await send("overwrite", issuer, [getUpdateMultiplierScaledUiMintInstruction({ mint: mint.address, authority: issuer, multiplier: 1.06, effectiveTimestamp: T0 + 7200n })], [issuer.address]);
  setClock(T0 + 8000n);
  await send(
    "transfer",
    holder,
    [getTransferCheckedInstruction({ source: holderAta, mint: mint.address, destination: otherAta, authority: holder, amount: 10_000_000n, decimals: DECIMALS })],
    [holderAta],
  );

  for (const a of [mint.address, holderAta, otherAta]) chain.accounts.set(a, svmChain.account(a));
  return { svm, chain, txs, mint: mint.address, issuer: issuer.address, holder: holder.address, holderAta, now: Number(T0 + 9000n) };
}

describe("LiteSVM: real Token-2022 program state through our decoders, sync and engine", async () => {
  const s = await scenario();

  test("mint bytes written by the program decode to the program's own view", () => {
    const program = getMintDecoder().decode(s.chain.accounts.get(s.mint)!.data);
    const ext = program.extensions.__option === "Some" ? program.extensions.value.find((e) => e.__kind === "ScaledUiAmountConfig") : undefined;
    const ours = decodeMintAccount(s.mint, { data: Buffer.from(s.chain.accounts.get(s.mint)!.data).toString("base64"), owner: TOKEN_2022_PROGRAM_ADDRESS }, { slot: 1, observedAt: s.now })!;
    expect(ext && ext.__kind === "ScaledUiAmountConfig").toBe(true);
    if (ext?.__kind !== "ScaledUiAmountConfig") return;
    expect(ours.decimals).toBe(DECIMALS);
    expect(ours.multiplierAuthority).toBe(s.issuer);
    expect(ours.multiplier).toBe(ext.multiplier);
    expect(ours.newMultiplier).toBe(1.06);
    expect(ours.newMultiplierEffectiveTimestamp).toBe(Number(T0 + 7200n));
    expect(decodeTokenAccountBytes(s.chain.accounts.get(s.holderAta)!.data)).toMatchObject({ mint: s.mint, owner: s.holder, amount: 90_000_000n });
  });

  test("UpdateMultiplier instructions and raw balances come out of the transactions exactly", () => {
    const schedule = findMultiplierUpdates(s.txs.schedule!);
    expect(schedule.map((u) => [u.multiplier, u.effectiveTimestamp, u.authority])).toEqual([
      [1, Number(T0 - 86_400n), s.issuer],
      [1.05, Number(T0 + 3600n), s.issuer],
    ]);
    expect(findMultiplierUpdates(s.txs.overwrite!).map((u) => u.multiplier)).toEqual([1.06]);
    expect(findMultiplierUpdates(s.txs.transfer!)).toEqual([]);
    expect(extractBalanceChanges(s.txs.transfer!, s.holder).map((b) => [b.preRaw, b.postRaw])).toEqual([[100_000_000n, 90_000_000n]]);
  });

  test("a full sync over JSON-RPC and the engine: superseded schedule, balance at activation, no guess", async () => {
    const server = startRpcServer(s.chain);
    try {
      const sync = await syncWalletChain(createRpc({ url: server.url }), s.holder, {}, { now: () => s.now });
      expect(sync.gaps).toEqual([]);
      expect(sync.balanceChanges.map((b) => b.postRaw)).toEqual([100_000_000n, 90_000_000n]);
      const out = runEngine({
        now: s.now,
        instruments: [{ mint: s.mint, symbol: "TESTx", name: null, underlying: null, isin: null, decimals: DECIMALS }],
        mintStates: sync.mints,
        multiplierUpdates: sync.multiplierUpdates,
        issuerRevisions: [],
        wallets: [{ owner: s.holder, accounts: sync.accounts, balanceChanges: sync.balanceChanges, gaps: [] }],
      });
      const states = out.transitions.map((t) => [t.multiplierNew, t.state]);
      expect(states.some(([m, st]) => m!.startsWith("1.05000000000000004440") && st === "superseded")).toBe(true);
      expect(states.some(([m, st]) => m!.startsWith("1.0600000000000000532") && st === "activated")).toBe(true);
      const live = out.actions.filter((a) => a.lifecycle.state === "activated");
      expect(live).toHaveLength(1);
      expect(live[0]).toMatchObject({ type: "unknown", treatment: "not_booked", rawBalance: "100000000", usd: null });
      expect(live[0]!.reason).toMatch(/no issuer record/);
      // Displayed quantity before and after, as AmountToUiAmount renders them: 100 → 106 units.
      expect(live[0]!.quantityDisplay).toBe("6");
      const position = out.positions.find((p) => p.owner === s.holder)!;
      expect(position.status).toBe("ok");
      expect(position.rawBalance).toBe("90000000");
    } finally {
      server.stop();
    }
  });
});
