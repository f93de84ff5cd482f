// Chain data for tests, built with the same token-2022 codecs the service decodes with: mint and
// token account bytes, and getTransaction results in the real `encoding: "json"` wire shape.
import {
  AccountState,
  AuthorityType,
  extension,
  getCloseAccountInstructionDataEncoder,
  getMintEncoder,
  getSetAuthorityInstructionDataEncoder,
  getTokenEncoder,
  getUpdateMultiplierScaledUiMintInstructionDataEncoder,
} from "@solana-program/token-2022";
import { address, getBase58Decoder, getBase64Decoder, none, some } from "@solana/kit";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { WireSignatureInfo, WireTokenBalance, WireTransaction } from "../../src/sources/solana/wire";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../src/sources/solana/wire";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "recorded");
export const XSTOCKS_AUTHORITY = "S7vYFFWH6BjJyEsdrPQpqpYTqLTrPRK6KW3VwsJuRaS";

export function readFixture<T = any>(relative: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, relative), "utf8"));
}

/** A small deterministic PRNG (mulberry32) so synthetic chains are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBytes(random: () => number, n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = Math.floor(random() * 256);
  bytes[0] = bytes[0] || 1; // keep a leading non-zero byte so the base58 length stays typical
  return bytes;
}

export function randomAddress(random: () => number): string {
  return getBase58Decoder().decode(randomBytes(random, 32));
}

export function randomSignature(random: () => number): string {
  return getBase58Decoder().decode(randomBytes(random, 64));
}

export function toBase64(bytes: Uint8Array): string {
  return getBase64Decoder().decode(bytes);
}

export interface MintSpec {
  decimals?: number;
  supply?: bigint;
  /** null = the all-zero key (no authority); undefined = no Scaled UI Amount extension at all. */
  authority?: string | null;
  multiplier?: number;
  newMultiplier?: number;
  newMultiplierEffectiveTimestamp?: bigint | number;
  withExtension?: boolean;
}

/** Mint bytes with the ScaledUiAmountConfig extension, through getMintEncoder. */
export function encodeMint(spec: MintSpec): Uint8Array {
  const withExtension = spec.withExtension ?? true;
  return getMintEncoder().encode({
    mintAuthority: none(),
    supply: spec.supply ?? 1_000_000_000n,
    decimals: spec.decimals ?? 8,
    isInitialized: true,
    freezeAuthority: none(),
    extensions: withExtension
      ? some([
          extension("ScaledUiAmountConfig", {
            authority: address(spec.authority ?? "11111111111111111111111111111111"),
            multiplier: spec.multiplier ?? 1,
            newMultiplierEffectiveTimestamp: BigInt(spec.newMultiplierEffectiveTimestamp ?? 0),
            newMultiplier: spec.newMultiplier ?? spec.multiplier ?? 1,
          }),
        ])
      : none(),
  }) as Uint8Array;
}

/** Token-2022 account bytes (with ImmutableOwner, as associated token accounts have). */
export function encodeTokenAccount(spec: { mint: string; owner: string; amount: bigint }): Uint8Array {
  return getTokenEncoder().encode({
    mint: address(spec.mint),
    owner: address(spec.owner),
    amount: spec.amount,
    delegate: none(),
    state: AccountState.Initialized,
    isNative: none(),
    delegatedAmount: 0n,
    closeAuthority: none(),
    extensions: some([extension("ImmutableOwner", {})]),
  }) as Uint8Array;
}

export function updateMultiplierData(multiplier: number, effectiveTimestamp: number): string {
  const bytes = getUpdateMultiplierScaledUiMintInstructionDataEncoder().encode({ multiplier, effectiveTimestamp: BigInt(effectiveTimestamp) });
  return getBase58Decoder().decode(bytes);
}

function tokenBalance(accountIndex: number, mint: string, owner: string, raw: bigint, decimals: number, programId: string = TOKEN_2022_PROGRAM_ID): WireTokenBalance {
  const s = raw.toString().padStart(decimals + 1, "0");
  const ui = `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`.replace(/\.?0+$/, "");
  return {
    accountIndex,
    mint,
    owner,
    programId,
    // uiAmount is what a node would show; the decoder must never read it.
    uiTokenAmount: { amount: raw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
  };
}

export interface TransferSpec {
  signature: string;
  slot: number;
  blockTime: number | null;
  owner: string;
  tokenAccount: string;
  mint: string;
  pre: bigint | null;
  post: bigint | null;
  decimals?: number;
  counterparty?: { owner: string; tokenAccount: string; pre: bigint; post: bigint };
  failed?: boolean;
  /** Put the wallet's token account behind an address lookup table (v0). */
  viaLookupTable?: boolean;
}

/** A transfer-like transaction touching the wallet's token account. */
export function transferTx(spec: TransferSpec): WireTransaction {
  const decimals = spec.decimals ?? 8;
  const cp = spec.counterparty ?? { owner: "11111111111111111111111111111112", tokenAccount: "11111111111111111111111111111113", pre: 0n, post: 0n };
  const statics = [spec.owner, cp.tokenAccount, spec.mint, TOKEN_2022_PROGRAM_ID];
  const loaded = spec.viaLookupTable ? { writable: [spec.tokenAccount], readonly: [] as string[] } : { writable: [] as string[], readonly: [] as string[] };
  if (!spec.viaLookupTable) statics.splice(1, 0, spec.tokenAccount);
  const keys = [...statics, ...loaded.writable, ...loaded.readonly];
  const idx = (k: string) => keys.indexOf(k);
  const pre: WireTokenBalance[] = [];
  const post: WireTokenBalance[] = [];
  if (spec.pre !== null) pre.push(tokenBalance(idx(spec.tokenAccount), spec.mint, spec.owner, spec.pre, decimals));
  if (spec.post !== null) post.push(tokenBalance(idx(spec.tokenAccount), spec.mint, spec.owner, spec.post, decimals));
  pre.push(tokenBalance(idx(cp.tokenAccount), spec.mint, cp.owner, cp.pre, decimals));
  post.push(tokenBalance(idx(cp.tokenAccount), spec.mint, cp.owner, cp.post, decimals));
  return {
    slot: spec.slot,
    blockTime: spec.blockTime,
    version: spec.viaLookupTable ? 0 : "legacy",
    meta: {
      err: spec.failed ? { InstructionError: [0, "Custom"] } : null,
      fee: 5000,
      innerInstructions: [],
      loadedAddresses: loaded,
      preTokenBalances: pre,
      postTokenBalances: post,
      logMessages: [],
    },
    transaction: {
      signatures: [spec.signature],
      message: {
        accountKeys: statics,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
        // TransferChecked (12); its data is not read by the service, balances come from meta.
        instructions: [{ programIdIndex: idx(TOKEN_2022_PROGRAM_ID), accounts: [idx(spec.tokenAccount), idx(spec.mint), idx(cp.tokenAccount), 0], data: "3", stackHeight: 1 }],
        recentBlockhash: "11111111111111111111111111111111",
        ...(spec.viaLookupTable ? { addressTableLookups: [{ accountKey: "AddressLookupTab1e1111111111111111111111111", writableIndexes: [0], readonlyIndexes: [] }] } : {}),
      },
    },
  };
}

/** One side of a swap: a token account of one mint, its owner and raw balance before and after (null: the account does not exist then). */
export interface SwapLeg {
  owner: string;
  tokenAccount: string;
  mint: string;
  pre: bigint | null;
  post: bigint;
  decimals: number;
  programId: string;
}

/**
 * A swap through a pool, as a node renders it (`encoding: "json"`): the owner signs and pays the
 * fee; its stablecoin account (SPL Token) and its stock account (Token-2022) change one way and
 * the pool's the other, in one transaction. Lamports are listed (only the fee leaves the owner).
 * The pool program's instruction data is not read by the service; balances come from meta.
 */
export function swapTx(spec: { signature: string; slot: number; blockTime: number; owner: string; legs: SwapLeg[]; poolAuthority: string; poolProgram: string }): WireTransaction {
  const fee = 5000;
  const accounts = [...new Set(spec.legs.map((l) => l.tokenAccount))];
  const mints = [...new Set(spec.legs.map((l) => l.mint))];
  const keys = [spec.owner, ...accounts, spec.poolAuthority, ...mints, TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, spec.poolProgram];
  const idx = (k: string) => keys.indexOf(k);
  const balance = (l: SwapLeg, raw: bigint) => tokenBalance(idx(l.tokenAccount), l.mint, l.owner, raw, l.decimals, l.programId);
  const preTokenBalances = spec.legs.filter((l) => l.pre !== null).map((l) => balance(l, l.pre!));
  const postTokenBalances = spec.legs.map((l) => balance(l, l.post));
  const ownerLamports = 1_000_000_000;
  const lamports = keys.map((k, i) => (i === 0 ? ownerLamports : accounts.includes(k) ? 2_039_280 : 1_461_600));
  // An account created in the transaction was funded by the owner (rent), as an ATA creation is.
  const created = spec.legs.filter((l) => l.pre === null).map((l) => idx(l.tokenAccount));
  const preBalances: number[] = lamports.map((v, i) => (created.includes(i) ? 0 : v));
  const postBalances = lamports.map((v, i) => (i === 0 ? v - fee : v));
  preBalances[0] = ownerLamports + created.length * 2_039_280;
  return {
    slot: spec.slot,
    blockTime: spec.blockTime,
    version: "legacy",
    meta: {
      err: null,
      fee,
      innerInstructions: [],
      loadedAddresses: { writable: [], readonly: [] },
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances,
      logMessages: [],
    },
    transaction: {
      signatures: [spec.signature],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 + mints.length + 1 },
        instructions: [{ programIdIndex: idx(spec.poolProgram), accounts: keys.slice(0, keys.length - 1).map((_, i) => i), data: "1", stackHeight: 1 }],
        recentBlockhash: "11111111111111111111111111111111",
      },
    },
  };
}

export interface UpdateSpec {
  mint: string;
  multiplier: number;
  effectiveTimestamp: number;
}

/**
 * A transaction holding UpdateMultiplier instructions. `inner: true` puts them inside one
 * outer instruction of another program (a multisig executing them through CPI).
 */
export function updateMultiplierTx(spec: { signature: string; slot: number; blockTime: number | null; authority: string; updates: UpdateSpec[]; inner?: boolean; failed?: boolean }): WireTransaction {
  const mints = [...new Set(spec.updates.map((u) => u.mint))];
  const multisigProgram = "SMPLecH534NA9acpos4G6x7uf3LWbCAwZQE9e8ZekMu";
  const keys = [spec.authority, ...mints, TOKEN_2022_PROGRAM_ID, ...(spec.inner ? [multisigProgram] : [])];
  const tokenIx = spec.updates.map((u) => ({
    programIdIndex: keys.indexOf(TOKEN_2022_PROGRAM_ID),
    accounts: [keys.indexOf(u.mint), 0],
    data: updateMultiplierData(u.multiplier, u.effectiveTimestamp),
    stackHeight: spec.inner ? 2 : 1,
  }));
  const outer = spec.inner
    ? [
        { programIdIndex: keys.indexOf(TOKEN_2022_PROGRAM_ID), accounts: [1], data: "2", stackHeight: 1 }, // unrelated token-2022 call first
        { programIdIndex: keys.indexOf(multisigProgram), accounts: [0, ...mints.map((m) => keys.indexOf(m))], data: "1", stackHeight: 1 },
      ]
    : tokenIx;
  return {
    slot: spec.slot,
    blockTime: spec.blockTime,
    version: "legacy",
    meta: {
      err: spec.failed ? { InstructionError: [0, "Custom"] } : null,
      fee: 5000,
      innerInstructions: spec.inner ? [{ index: 1, instructions: tokenIx }] : [],
      loadedAddresses: { writable: [], readonly: [] },
      preTokenBalances: [],
      postTokenBalances: [],
      logMessages: [],
    },
    transaction: {
      signatures: [spec.signature],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        instructions: outer,
        recentBlockhash: "11111111111111111111111111111111",
      },
    },
  };
}

export function signatureInfo(signature: string, tx: WireTransaction): WireSignatureInfo {
  return { signature, slot: tx.slot, err: tx.meta?.err ?? null, memo: null, blockTime: tx.blockTime, confirmationStatus: "finalized" };
}

/**
 * The owner closes its empty token account (CloseAccount: account, destination, owner), as a
 * node renders it: the account in the pre token balances at 0, absent from the post ones.
 */
export function closeAccountTx(spec: { signature: string; slot: number; blockTime: number; owner: string; tokenAccount: string; mint: string; decimals?: number }): WireTransaction {
  const keys = [spec.owner, spec.tokenAccount, TOKEN_2022_PROGRAM_ID];
  return {
    slot: spec.slot,
    blockTime: spec.blockTime,
    version: "legacy",
    meta: {
      err: null,
      fee: 5000,
      innerInstructions: [],
      loadedAddresses: { writable: [], readonly: [] },
      preTokenBalances: [tokenBalance(1, spec.mint, spec.owner, 0n, spec.decimals ?? 8)],
      postTokenBalances: [],
      logMessages: ["Program log: Instruction: CloseAccount"],
    },
    transaction: {
      signatures: [spec.signature],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        instructions: [{ programIdIndex: 2, accounts: [1, 0, 0], data: getBase58Decoder().decode(getCloseAccountInstructionDataEncoder().encode({})), stackHeight: 1 }],
        recentBlockhash: "11111111111111111111111111111111",
      },
    },
  };
}

/** The mint's Scaled UI Amount authority hands the multiplier over (SetAuthority, type ScaledUiAmount), signed by `from`. */
export function setScaledUiAuthorityTx(spec: { signature: string; slot: number; blockTime: number; mint: string; from: string; to: string | null }): WireTransaction {
  const keys = [spec.from, spec.mint, TOKEN_2022_PROGRAM_ID];
  const data = getSetAuthorityInstructionDataEncoder().encode({ authorityType: AuthorityType.ScaledUiAmount, newAuthority: spec.to === null ? null : address(spec.to) });
  return {
    slot: spec.slot,
    blockTime: spec.blockTime,
    version: "legacy",
    meta: { err: null, fee: 5000, innerInstructions: [], loadedAddresses: { writable: [], readonly: [] }, preTokenBalances: [], postTokenBalances: [], logMessages: [] },
    transaction: {
      signatures: [spec.signature],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        instructions: [{ programIdIndex: 2, accounts: [1, 0], data: getBase58Decoder().decode(data), stackHeight: 1 }],
        recentBlockhash: "11111111111111111111111111111111",
      },
    },
  };
}
