// The quantity a person reads is what the Token-2022 program's AmountToUiAmount returns for a
// Scaled UI Amount mint. LiteSVM runs the real program: for many raw amounts, multipliers (below
// and above 1) and decimals, our renderer must give the program's string exactly (the program
// returns it as the transaction's return data).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import {
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getUtf8Decoder,
  type Instruction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getAmountToUiAmountInstruction, getUpdateMultiplierScaledUiMintInstruction } from "@solana-program/token-2022";
import { uiAmount } from "../../src/domain/display";
import { createScaledMintInstructions } from "../support/litesvm-chain";

/** AmountToUiAmount as the program answers it, one mint per decimals, the multiplier set before each ask. */
async function programRenderer() {
  const svm = new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(1_000_000_000_000n));
  const mints = new Map<number, { address: Address; multiplier: number }>();

  async function send(ixs: Instruction[]): Promise<TransactionMetadata> {
    const tx = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(ixs, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const res = svm.sendTransaction(tx);
    if (res instanceof FailedTransactionMetadata) throw new Error(`transaction failed: ${res.toString()}\n${res.meta().logs().join("\n")}`);
    svm.expireBlockhash();
    return res;
  }

  async function mintFor(decimals: number) {
    let m = mints.get(decimals);
    if (m) return m;
    const mint = await generateKeyPairSigner();
    await send(createScaledMintInstructions(svm, payer, mint, decimals));
    mints.set(decimals, (m = { address: mint.address, multiplier: 1 }));
    return m;
  }

  return async (raw: bigint, multiplier: number, decimals: number): Promise<string> => {
    const mint = await mintFor(decimals);
    if (!Object.is(mint.multiplier, multiplier)) {
      // A timestamp at or before the clock applies at once.
      await send([getUpdateMultiplierScaledUiMintInstruction({ mint: mint.address, authority: payer, multiplier, effectiveTimestamp: 0n })]);
      mint.multiplier = multiplier;
    }
    const res = await send([getAmountToUiAmountInstruction({ mint: mint.address, amount: raw })]);
    return getUtf8Decoder().decode(res.returnData().data());
  };
}

const program = await programRenderer();

describe("uiAmount renders what AmountToUiAmount returns", () => {
  test.each([
    // Recorded xStocks multipliers at 8 decimals, and the cases the program's own tests name.
    [1_000_000_000n, 1.003909240011759, 8],
    [3_000_000_000n, 10.01683308516363, 8],
    [1_000_000_000n, 0.5120473566533945, 8],
    [101n, 0.99, 2],
    [23n, 1, 2],
    [0n, 1.05, 6],
    [18_446_744_073_709_551_615n, 1, 0],
    // 10·2^50 + 2 at 1 decimal: the f64 quotient is exactly …624.25, a tie at one place.
    [11_258_999_068_426_242n, 1, 1],
  ] as const)("%p × %p at %p decimals", async (raw, multiplier, decimals) => {
    expect(uiAmount(raw, multiplier, decimals)).toBe(await program(raw, multiplier, decimals));
  });

  test("property: any raw amount, multiplier and decimals", async () => {
    const raw = fc.oneof(fc.bigInt({ min: 0n, max: 10_000n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 2n ** 49n, max: 2n ** 55n }));
    const multiplier = fc.oneof(
      fc.double({ min: 1e-6, max: 1, noNaN: true, noDefaultInfinity: true, minExcluded: true }),
      fc.double({ min: 1, max: 20, noNaN: true, noDefaultInfinity: true }),
      fc.double({ min: 20, max: 1e9, noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(1, 0.5, 2 ** -10, 10.00892302917, 1.0051095254039053, 0.9990655067370947),
    );
    const decimals = fc.oneof(fc.constantFrom(0, 2, 6, 8, 9), fc.integer({ min: 0, max: 24 }));
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(raw, multiplier, decimals, async (r, m, d) => {
        runs++;
        expect(uiAmount(r, m, d)).toBe(await program(r, m, d));
      }),
      { numRuns: 300 },
    );
    expect(runs).toBe(300);
  }, 60_000);
});
