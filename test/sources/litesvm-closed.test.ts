// A closed token account with the real Token-2022 program (LiteSVM): a holder receives tokens,
// holds them through a multiplier step, sends them all away and closes the account with the
// program's own CloseAccount. The chain no longer lists the account; the sync over JSON-RPC finds
// it in the holder's own history, reads its balances to 0, and the engine keeps the dividend the
// holder received before the close (matched to an operator's record by the mint it names).
import { describe, expect, test } from "bun:test";
import { LiteSVM } from "litesvm";
import { generateKeyPairSigner, lamports } from "@solana/kit";
import { getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstruction, getMintToInstruction, getTransferCheckedInstruction } from "@solana-program/token-2022";
import { canonicalSha256 } from "../../src/domain/evidence";
import { runEngine } from "../../src/domain/engine";
import type { OperatorRecord } from "../../src/domain/observations";
import { ownerTokenAccounts } from "../../src/sources/solana/decode";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline";
import { createRpc } from "../../src/sources/solana/rpc";
import { ata2022, createScaledMintInstructions, reassertThenScheduleInstructions, recordSvm } from "../support/litesvm-chain";
import { untaxedDividendRecord } from "../support/issuer-records";
import { emptyChain, startRpcServer } from "../support/rpc-server";

const T0 = 1_780_000_000n;
const DECIMALS = 6;

async function scenario() {
  const svm = new LiteSVM();
  const [issuer, holder, buyer, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  svm.airdrop(issuer.address, lamports(10_000_000_000n));
  svm.airdrop(holder.address, lamports(1_000_000_000n));
  const [holderAta, buyerAta] = await Promise.all([ata2022(holder.address, mint.address), ata2022(buyer.address, mint.address)]);
  const chain = emptyChain(1000);
  const svmChain = recordSvm(svm, chain);
  svmChain.watch(holderAta, holder.address, mint.address, DECIMALS);
  svmChain.watch(buyerAta, buyer.address, mint.address, DECIMALS);

  svmChain.setClock(T0 - 86_400n);
  await svmChain.send("create", issuer, createScaledMintInstructions(svm, issuer, mint, DECIMALS), [issuer.address]);
  await svmChain.send(
    "mint",
    issuer,
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: holderAta, owner: holder.address, mint: mint.address }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: buyerAta, owner: buyer.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: holderAta, mintAuthority: issuer, amount: 100_000_000n }),
    ],
    [holderAta, buyerAta, issuer.address, holder.address],
  );
  svmChain.setClock(T0);
  await svmChain.send("schedule", issuer, reassertThenScheduleInstructions(issuer, mint.address, T0 - 86_400n, 1.05, T0 + 3600n), [issuer.address]);
  svmChain.setClock(T0 + 8000n);
  await svmChain.send(
    "sell",
    holder,
    [getTransferCheckedInstruction({ source: holderAta, mint: mint.address, destination: buyerAta, authority: holder, amount: 100_000_000n, decimals: DECIMALS })],
    [holderAta, buyerAta, holder.address],
  );
  const close = await svmChain.send("close", holder, [getCloseAccountInstruction({ account: holderAta, destination: holder.address, owner: holder })], [holderAta, holder.address]);

  chain.accounts.set(mint.address, svmChain.account(mint.address));
  chain.accounts.set(buyerAta, svmChain.account(buyerAta));
  return { svm, chain, close, mint: mint.address, holder: holder.address, holderAta, now: Number(T0 + 9000n) };
}

describe("LiteSVM: a token account closed by the real CloseAccount", async () => {
  const s = await scenario();

  test("the program closed it, and the close names it", () => {
    expect(s.svm.getAccount(s.holderAta).exists).toBe(false);
    expect(s.close.meta!.postTokenBalances!.some((b) => b.owner === s.holder)).toBe(false);
    expect(ownerTokenAccounts(s.close, s.holder)).toEqual([{ tokenAccount: s.holderAta, mint: s.mint }]);
  });

  test("the sync finds the closed account; the dividend received before the close stays in the books", async () => {
    const server = startRpcServer(s.chain);
    try {
      const sync = await syncWalletChain(createRpc({ url: server.url }), s.holder, {}, { now: () => s.now });
      expect(sync.gaps).toEqual([]);
      expect(sync.accounts.map((a) => [a.tokenAccount, a.mint, a.rawBalance])).toEqual([[s.holderAta, s.mint, 0n]]);
      expect(sync.balanceChanges.map((b) => [b.preRaw, b.postRaw])).toEqual([
        [0n, 100_000_000n],
        [100_000_000n, 0n],
      ]);

      // An operator's record for this mint (no issuer feed lists it): a cash dividend of 0.5 USD a share.
      const record: OperatorRecord = {
        ...untaxedDividendRecord({
          eventId: "op-div-1",
          xstockSymbol: "TESTx",
          effectiveTimeUtc: new Date(Number(T0 + 3600n) * 1000).toISOString(),
          multiplierNew: "1.05",
          grossCashflowUsd: "0.5",
          netCashflowUsd: "0.5",
        }),
        mint: s.mint,
      };
      const out = runEngine({
        now: s.now,
        instruments: [],
        mintStates: sync.mints,
        multiplierUpdates: sync.multiplierUpdates,
        issuerRevisions: [{ record, sha256: canonicalSha256(record), ingestedAt: "2026-01-01T00:00:00.000Z", edited: false, source: "operator", mint: s.mint }],
        wallets: [{ owner: s.holder, accounts: sync.accounts, balanceChanges: sync.balanceChanges, gaps: [] }],
      });
      const dividend = out.actions.find((a) => a.type === "cash_dividend")!;
      expect(dividend).toMatchObject({ owner: s.holder, rawBalance: "100000000", usd: "50" });
      expect(dividend.revisions.map((r) => r.source)).toEqual(["operator"]);
      expect(out.bookings.filter((b) => b.owner === s.holder).map((b) => b.usd)).toEqual(["50"]);
      expect(out.positions.find((p) => p.owner === s.holder)).toMatchObject({ rawBalance: "0", status: "ok" });
    } finally {
      server.stop();
    }
  });
});
