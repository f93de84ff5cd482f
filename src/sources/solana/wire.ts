// The Solana JSON-RPC wire shapes this project reads, as the RPC sends them (only the fields we
// use are typed; providers may add more). Shared by the client, the decoders and the test server.

export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
/** The original SPL Token program (most stablecoins, USDC and USDT among them, are its tokens). */
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/** Both token programs: a transaction's token balances can list accounts of either. */
export const TOKEN_PROGRAMS = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID] as const;

/** An account as `encoding: "base64"` returns it. */
export interface WireAccount {
  data: [string, "base64"] | [string, string];
  owner: string;
  lamports: number;
  executable: boolean;
  rentEpoch?: number;
  space?: number;
}

export interface WireContext {
  slot: number;
  apiVersion?: string;
}

export interface WireKeyedAccount {
  pubkey: string;
  account: WireAccount;
}

/** One row of getSignaturesForAddress (newest first). */
export interface WireSignatureInfo {
  signature: string;
  slot: number;
  err: unknown | null;
  memo: string | null;
  blockTime: number | null;
  confirmationStatus?: string | null;
}

export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  stackHeight?: number | null;
}

export interface WireTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: {
    /** The raw amount, a decimal string of the u64 (never scaled). */
    amount: string;
    decimals: number;
    uiAmount: number | null;
    uiAmountString: string;
  };
}

/** A getTransaction result with `encoding: "json"`, `maxSupportedTransactionVersion: 0`. */
export interface WireTransaction {
  slot: number;
  blockTime: number | null;
  version?: "legacy" | 0 | number;
  transactionIndex?: number;
  meta: {
    err: unknown | null;
    fee?: number;
    innerInstructions?: { index: number; instructions: WireInstruction[] }[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
    preTokenBalances?: WireTokenBalance[] | null;
    postTokenBalances?: WireTokenBalance[] | null;
    logMessages?: string[] | null;
    [k: string]: unknown;
  } | null;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header?: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      instructions: WireInstruction[];
      recentBlockhash?: string;
      addressTableLookups?: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
    };
  };
}

/**
 * One entry of getTransactionsForAddress with `transactionDetails: "full"` (Helius, Triton): a
 * getTransaction result plus its position in the block. The signature is the transaction's first.
 */
export interface WireAddressTransaction extends WireTransaction {
  transactionIndex?: number;
}

/** A page of getTransactionsForAddress; `paginationToken` is null after the last page. */
export interface WireTransactionsPage {
  data: WireAddressTransaction[];
  paginationToken: string | null;
}
