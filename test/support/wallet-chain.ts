// A synthetic but realistic wallet history for sync tests: one HONx token account with N
// transfers (some failed), the real HONx mint bytes, and the xStocks authority's history holding
// HONx's real multiplier steps (each a re-assert + a schedule, as the issuer writes them) plus
// the two recorded update transactions of other mints.
import { getMintDecoder, getMintEncoder } from "@solana-program/token-2022";
import { TOKEN_2022_PROGRAM_ID, type WireTransaction } from "../../src/sources/solana/wire";
import { XSTOCKS_AUTHORITY, encodeTokenAccount, randomAddress, randomSignature, readFixture, seededRandom, transferTx, updateMultiplierTx } from "./chain";
import { addTransaction, base64ToBytes, emptyChain, type ChainState } from "./rpc-server";

export const HONX_MINT = "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2";

export interface WalletScenario {
  chain: ChainState;
  owner: string;
  tokenAccount: string;
  mint: string;
  authority: string;
  balance: bigint;
  /** Successful transfers that changed the balance, oldest first. */
  transfers: { signature: string; pre: bigint; post: bigint }[];
  /** Signatures of the HONx update transactions, oldest first. */
  updateSignatures: string[];
  /** Append a transfer of `delta` raw units (newest), keeping the account bytes current. */
  addTransfer(delta: bigint): string;
  /** Append an issuer update (re-assert + schedule) and write it into the mint bytes. */
  addUpdate(multiplier: number, effectiveTimestamp: number): string;
}

export function buildWalletScenario(options: { transfers: number; seed?: number; failedEvery?: number }): WalletScenario {
  const random = seededRandom(options.seed ?? 7);
  const chain = emptyChain(450_000_000);
  const owner = randomAddress(random);
  const tokenAccount = randomAddress(random);
  const counterparty = { owner: randomAddress(random), tokenAccount: randomAddress(random) };
  const honx = readFixture("chain/mint-HONx.json");
  chain.accounts.set(HONX_MINT, { data: base64ToBytes(honx.value.data[0]), owner: TOKEN_2022_PROGRAM_ID });

  let slot = 420_000_000;
  let blockTime = 1_789_000_000; // after HONx's last recorded step
  const scenario: WalletScenario = {
    chain,
    owner,
    tokenAccount,
    mint: HONX_MINT,
    authority: XSTOCKS_AUTHORITY,
    balance: 0n,
    transfers: [],
    updateSignatures: [],
    addTransfer(delta) {
      slot += 1000;
      blockTime += 400;
      chain.slot = Math.max(chain.slot, slot) + 10; // the chain moves on with every transaction
      const signature = randomSignature(random);
      const pre = scenario.balance;
      const post = pre + delta;
      const tx = transferTx({
        signature,
        slot,
        blockTime,
        owner,
        tokenAccount,
        mint: HONX_MINT,
        pre: pre === 0n && scenario.transfers.length === 0 ? null : pre, // the first one opens the account
        post,
        counterparty: { ...counterparty, pre: 10n ** 15n, post: 10n ** 15n - delta },
      });
      addTransaction(chain, signature, tx, [tokenAccount, owner]);
      scenario.balance = post;
      scenario.transfers.push({ signature, pre, post });
      writeAccount();
      return signature;
    },
    addUpdate(multiplier, effectiveTimestamp) {
      const current = scaledConfig();
      slot += 1000;
      blockTime += 400;
      chain.slot = Math.max(chain.slot, slot) + 10; // the chain moves on with every transaction
      const signature = randomSignature(random);
      const tx = updateMultiplierTx({
        signature,
        slot,
        blockTime,
        authority: XSTOCKS_AUTHORITY,
        updates: [
          { mint: HONX_MINT, multiplier: current.newMultiplier, effectiveTimestamp: Number(current.newMultiplierEffectiveTimestamp) },
          { mint: HONX_MINT, multiplier, effectiveTimestamp },
        ],
      });
      addTransaction(chain, signature, tx, [XSTOCKS_AUTHORITY]);
      scenario.updateSignatures.push(signature);
      writeMint(current.newMultiplier, multiplier, effectiveTimestamp);
      return signature;
    },
  };

  function scaledConfig() {
    const mint = getMintDecoder().decode(chain.accounts.get(HONX_MINT)!.data);
    const ext = mint.extensions.__option === "Some" ? mint.extensions.value : [];
    return ext.find((e) => e.__kind === "ScaledUiAmountConfig") as { newMultiplier: number; newMultiplierEffectiveTimestamp: bigint; multiplier: number };
  }

  function writeMint(multiplier: number, newMultiplier: number, ts: number) {
    const mint = getMintDecoder().decode(chain.accounts.get(HONX_MINT)!.data);
    const ext = mint.extensions.__option === "Some" ? mint.extensions.value : [];
    const extensions = ext.map((e) => (e.__kind === "ScaledUiAmountConfig" ? { ...e, multiplier, newMultiplier, newMultiplierEffectiveTimestamp: BigInt(ts) } : e));
    chain.accounts.set(HONX_MINT, { data: getMintEncoder().encode({ ...mint, extensions: { __option: "Some", value: extensions } } as any) as Uint8Array, owner: TOKEN_2022_PROGRAM_ID });
  }

  function writeAccount() {
    chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint: HONX_MINT, owner, amount: scenario.balance }), owner: TOKEN_2022_PROGRAM_ID });
  }

  // The authority's history: HONx's real steps (oldest first) and the two recorded transactions
  // of other mints, ordered by slot, all before the wallet's transfers begin.
  const steps = [...readFixture("xstocks/HONx.json").multiplierHistory].reverse();
  const authorityTxs: { signature: string; tx: WireTransaction }[] = [];
  let updateSlot = 400_000_000;
  let previousTs = 1_700_000_000;
  for (const step of steps) {
    updateSlot += 10_000;
    const ts = Date.parse(step.activationDateTime) / 1000;
    const signature = randomSignature(random);
    authorityTxs.push({
      signature,
      tx: updateMultiplierTx({
        signature,
        slot: updateSlot,
        blockTime: ts - 6 * 3600,
        authority: XSTOCKS_AUTHORITY,
        updates: [
          { mint: HONX_MINT, multiplier: step.previousMultiplier, effectiveTimestamp: previousTs },
          { mint: HONX_MINT, multiplier: step.multiplier, effectiveTimestamp: ts },
        ],
      }),
    });
    scenario.updateSignatures.push(signature);
    previousTs = ts;
  }
  for (const file of ["chain/tx-update-multiplier-0.json", "chain/tx-update-multiplier-1.json"]) {
    const f = readFixture(file);
    authorityTxs.push({ signature: f.signature, tx: f.result });
  }
  authorityTxs.sort((a, b) => a.tx.slot - b.tx.slot);
  for (const { signature, tx } of authorityTxs) addTransaction(chain, signature, tx, [XSTOCKS_AUTHORITY]);

  // The wallet's transfers; some fail (listed, but they moved nothing).
  slot = 447_000_000;
  const failedEvery = options.failedEvery ?? 50;
  for (let i = 0; i < options.transfers; i++) {
    if (i > 0 && i % failedEvery === 0) {
      slot += 1000;
      blockTime += 400;
      const signature = randomSignature(random);
      const tx = transferTx({ signature, slot, blockTime, owner, tokenAccount, mint: HONX_MINT, pre: scenario.balance, post: scenario.balance, failed: true });
      addTransaction(chain, signature, tx, [tokenAccount, owner]);
      continue;
    }
    const room = scenario.balance;
    const delta = i % 3 === 2 && room > 0n ? -(room / 3n) - 1n : BigInt(1 + Math.floor(random() * 1e9));
    scenario.addTransfer(delta);
  }
  chain.slot = slot + 10_000;
  return scenario;
}

/** More HONx holders on the scenario's chain, each with a few transfers before any new update. */
export function addHolders(s: WalletScenario, n: number, random: () => number, transfers = 4): { owner: string; tokenAccount: string }[] {
  const holders: { owner: string; tokenAccount: string }[] = [];
  let slot = 448_000_000,
    blockTime = 1_789_100_000;
  for (let w = 0; w < n; w++) {
    const owner = randomAddress(random),
      tokenAccount = randomAddress(random);
    let balance = 0n;
    for (let i = 0; i < transfers; i++) {
      slot += 1000;
      blockTime += 400;
      const signature = randomSignature(random);
      const delta = BigInt(1 + Math.floor(random() * 1e9));
      const tx = transferTx({ signature, slot, blockTime, owner, tokenAccount, mint: HONX_MINT, pre: i === 0 ? null : balance, post: balance + delta });
      addTransaction(s.chain, signature, tx, [tokenAccount, owner]);
      balance += delta;
    }
    s.chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint: HONX_MINT, owner, amount: balance }), owner: TOKEN_2022_PROGRAM_ID });
    holders.push({ owner, tokenAccount });
  }
  s.chain.slot = Math.max(s.chain.slot, slot + 10_000);
  return holders;
}
