// Transactions run by LiteSVM (the real Token-2022 and SPL Token programs), recorded on a loopback
// chain as an RPC node renders them for getTransaction with `encoding: "json"`: static account
// keys, outer and inner instructions in base58, the lamports of every key before and after (the
// fee is what they lost together), and pre/post token balances read from the watched token
// accounts before and after (an account the transaction closed has no post balance).
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  extension,
  findAssociatedTokenPda,
  getInitializeMint2Instruction,
  getMintSize,
  getPostInitializeInstructionsForMintExtensions,
  getPreInitializeInstructionsForMintExtensions,
  getTokenDecoder,
  getUpdateMultiplierScaledUiMintInstruction,
} from "@solana-program/token-2022";
import type { WireTokenBalance, WireTransaction } from "../../src/sources/solana/wire";
import { addTransaction, type ChainState } from "./rpc-server";

/** The associated Token-2022 account of `owner` for `mint`. */
export async function ata2022(owner: Address, mint: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }))[0];
}

/**
 * The instructions that create `mint` as a Token-2022 mint with Scaled UI Amount at multiplier 1
 * (nothing scheduled), `issuer` paying and holding every authority. With `metadata`, the mint
 * also carries MetadataPointer (to itself) and TokenMetadata as other issuers deploy them: the
 * account starts at the size of the fixed extensions, funded up front for the metadata the
 * program grows it by.
 */
export function createScaledMintInstructions(
  svm: LiteSVM,
  issuer: TransactionSigner,
  mint: TransactionSigner,
  decimals: number,
  metadata?: { name: string; symbol: string; uri: string },
): Instruction[] {
  const scaled = extension("ScaledUiAmountConfig", { authority: issuer.address, multiplier: 1, newMultiplierEffectiveTimestamp: 0n, newMultiplier: 1 });
  const extensions = metadata ? [extension("MetadataPointer", { authority: issuer.address, metadataAddress: mint.address }), scaled] : [scaled];
  const grown = metadata ? [extension("TokenMetadata", { updateAuthority: issuer.address, mint: mint.address, additionalMetadata: new Map(), ...metadata })] : [];
  const space = getMintSize(extensions);
  return [
    getCreateAccountInstruction({
      payer: issuer,
      newAccount: mint,
      lamports: svm.minimumBalanceForRentExemption(BigInt(getMintSize([...extensions, ...grown]))),
      space,
      programAddress: TOKEN_2022_PROGRAM_ADDRESS,
    }),
    ...getPreInitializeInstructionsForMintExtensions(mint.address, extensions),
    getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: issuer.address, freezeAuthority: null }),
    ...(grown.length > 0 ? getPostInitializeInstructionsForMintExtensions(mint.address, issuer, grown) : []),
  ];
}

/**
 * The issuer's pattern for a multiplier change, in one transaction: re-assert the multiplier in
 * force (1) with the past timestamp `inForceSince`, then schedule `multiplier` at `effectiveTimestamp`.
 */
export function reassertThenScheduleInstructions(issuer: TransactionSigner, mint: Address, inForceSince: bigint, multiplier: number, effectiveTimestamp: bigint): Instruction[] {
  return [
    getUpdateMultiplierScaledUiMintInstruction({ mint, authority: issuer, multiplier: 1, effectiveTimestamp: inForceSince }),
    getUpdateMultiplierScaledUiMintInstruction({ mint, authority: issuer, multiplier, effectiveTimestamp }),
  ];
}

export interface SvmRecorder {
  /** Token accounts whose balances the rendered transactions report (of Token-2022 unless `programId` says otherwise). */
  watch(tokenAccount: Address, owner: Address, mint: Address, decimals: number, programId?: string): void;
  /** Runs the instructions; records the transaction under `listedUnder` (getSignaturesForAddress). */
  send(label: string, feePayer: TransactionSigner, ixs: Instruction[], listedUnder: string[]): Promise<WireTransaction>;
  setClock(unixTimestamp: bigint): void;
  /** The account as the chain holds it now (throws when it does not exist). */
  account(address: Address): { data: Uint8Array; owner: string };
}

export function recordSvm(svm: LiteSVM, chain: ChainState): SvmRecorder {
  const watched: { account: Address; owner: Address; mint: Address; decimals: number; programId: string }[] = [];
  const rawOf = (a: Address): bigint | null => {
    const acc = svm.getAccount(a);
    return acc.exists ? getTokenDecoder().decode(acc.data).amount : null;
  };
  return {
    watch: (account, owner, mint, decimals, programId = TOKEN_2022_PROGRAM_ADDRESS) => void watched.push({ account, owner, mint, decimals, programId }),
    setClock(t) {
      const c = svm.getClock();
      c.unixTimestamp = t;
      svm.setClock(c);
    },
    account(a) {
      const acc = svm.getAccount(a);
      if (!acc.exists) throw new Error(`missing ${a}`);
      return { data: new Uint8Array(acc.data), owner: TOKEN_2022_PROGRAM_ADDRESS as string };
    },
    async send(label, feePayer, ixs, listedUnder) {
      const before = new Map(watched.map((w) => [w.account, rawOf(w.account)]));
      const tx = await pipe(
        createTransactionMessage({ version: "legacy" }),
        (m) => setTransactionMessageFeePayerSigner(feePayer, m),
        (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
        (m) => appendTransactionMessageInstructions(ixs, m),
        (m) => signTransactionMessageWithSigners(m),
      );
      const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
      const keys = message.staticAccounts as string[];
      const lamportsOf = () => keys.map((k) => Number(svm.getBalance(k as Address) ?? 0n));
      const preBalances = lamportsOf();
      const res = svm.sendTransaction(tx);
      if (res instanceof FailedTransactionMetadata) throw new Error(`${label} failed: ${res.toString()}`);
      svm.expireBlockhash();
      const postBalances = lamportsOf();
      const signature = getSignatureFromTransaction(tx);
      const b58 = getBase58Decoder();
      const balances = (when: "pre" | "post") => {
        const out: WireTokenBalance[] = [];
        for (const w of watched) {
          const raw = when === "pre" ? before.get(w.account) : rawOf(w.account);
          const index = keys.indexOf(w.account);
          if (raw === null || raw === undefined || index < 0) continue;
          out.push({ accountIndex: index, mint: w.mint, owner: w.owner, programId: w.programId, uiTokenAmount: { amount: raw.toString(), decimals: w.decimals, uiAmount: null, uiAmountString: "" } });
        }
        return out;
      };
      const wire = {
        slot: chain.slot++,
        blockTime: Number(svm.getClock().unixTimestamp),
        version: "legacy",
        meta: {
          err: null,
          // Lamports are conserved between the keys but for the fee, which is burned or paid out.
          fee: preBalances.reduce((a, b) => a + b, 0) - postBalances.reduce((a, b) => a + b, 0),
          preBalances,
          postBalances,
          innerInstructions: (res as TransactionMetadata)
            .innerInstructions()
            .map((list, index) => ({
              index,
              instructions: list.map((ii) => ({
                programIdIndex: ii.instruction().programIdIndex(),
                accounts: [...ii.instruction().accounts()],
                data: b58.decode(ii.instruction().data()),
                stackHeight: ii.stackHeight(),
              })),
            }))
            .filter((x) => x.instructions.length > 0),
          loadedAddresses: { writable: [], readonly: [] },
          preTokenBalances: balances("pre"),
          postTokenBalances: balances("post"),
          logMessages: (res as TransactionMetadata).logs(),
        },
        transaction: {
          signatures: [signature],
          message: {
            accountKeys: keys,
            // As an RPC node names the header's fields (kit's compiled message names them otherwise).
            header: {
              numRequiredSignatures: message.header.numSignerAccounts,
              numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
              numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
            },
            instructions: (message as unknown as { instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[] }).instructions.map((ix) => ({
              programIdIndex: ix.programAddressIndex,
              accounts: ix.accountIndices ?? [],
              data: b58.decode(ix.data ?? new Uint8Array()),
            })),
            recentBlockhash: message.lifetimeToken,
          },
        },
      } as unknown as WireTransaction;
      addTransaction(chain, signature, wire, listedUnder);
      return wire;
    },
  };
}
