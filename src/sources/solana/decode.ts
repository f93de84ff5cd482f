// Chain bytes → observations, with the @solana-program/token-2022 codecs only: the service never
// depends on a provider's `jsonParsed` rendering (docs/sources.md#chain). Pure functions, no network.
import {
  AuthorityType,
  CLOSE_ACCOUNT_DISCRIMINATOR,
  getMintDecoder,
  getSetAuthorityInstructionDataDecoder,
  getTokenDecoder,
  getUpdateMultiplierScaledUiMintInstructionDataDecoder,
  SET_AUTHORITY_DISCRIMINATOR,
  UPDATE_MULTIPLIER_SCALED_UI_MINT_DISCRIMINATOR,
  UPDATE_MULTIPLIER_SCALED_UI_MINT_SCALED_UI_AMOUNT_MINT_DISCRIMINATOR,
} from "@solana-program/token-2022";
import { getBase58Encoder, getBase64Encoder } from "@solana/kit";
import type { BalanceChangeObs, MintStateObs, MultiplierUpdateObs } from "../../domain/observations";
import { TOKEN_2022_PROGRAM_ID, type WireInstruction, type WireTokenBalance, type WireTransaction } from "./wire";

/** Bytes that are not what they claim to be. Callers turn it into a named gap, never a guess. */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecodeError";
  }
}

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"; // all-zero key: "no authority"
const BASE_MINT_SIZE = 82;
const BASE_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;
const UPDATE_MULTIPLIER_DATA_SIZE = 18; // [43, 1, f64 multiplier, i64 timestamp]

export interface ScaledUiAmountState {
  /** null when the authority is the all-zero key. */
  authority: string | null;
  multiplier: number;
  newMultiplierEffectiveTimestamp: number;
  newMultiplier: number;
}

export interface DecodedMint {
  decimals: number;
  supply: bigint;
  /** null when the mint has no Scaled UI Amount extension. */
  scaledUiAmount: ScaledUiAmountState | null;
  /** The PermanentDelegate extension's delegate (it may move anyone's tokens), else null. */
  permanentDelegate: string | null;
  /** The TokenMetadata extension kept in the mint itself (name, symbol, uri), else null. */
  metadata: TokenMetadata | null;
}

/** What a mint says about itself in its Token-2022 metadata extension. */
export interface TokenMetadata {
  name: string;
  symbol: string;
  uri: string;
}

export interface DecodedTokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
}

export function base64Bytes(base64: string): Uint8Array {
  try {
    return getBase64Encoder().encode(base64) as Uint8Array;
  } catch {
    throw new DecodeError("account data is not valid base64");
  }
}

/** Decode Token-2022 mint bytes (base layout + TLV extensions). */
export function decodeMintBytes(bytes: Uint8Array): DecodedMint {
  // A Token-2022 account longer than the base layouts carries its type at byte 165; checking it
  // keeps a token account from being misread as a mint.
  if (bytes.length !== BASE_MINT_SIZE && !(bytes.length > BASE_ACCOUNT_SIZE && bytes[BASE_ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT)) {
    throw new DecodeError(`not a mint account (${bytes.length} bytes)`);
  }
  let mint;
  try {
    mint = getMintDecoder().decode(bytes);
  } catch (err) {
    throw new DecodeError(`mint bytes do not decode: ${(err as Error).message}`);
  }
  if (!mint.isInitialized) throw new DecodeError("mint is not initialized");
  const extensions = mint.extensions.__option === "Some" ? mint.extensions.value : [];
  const scaled = extensions.find((e) => e.__kind === "ScaledUiAmountConfig");
  const delegate = extensions.find((e) => e.__kind === "PermanentDelegate");
  const metadata = extensions.find((e) => e.__kind === "TokenMetadata");
  return {
    decimals: mint.decimals,
    supply: mint.supply,
    permanentDelegate: delegate && delegate.__kind === "PermanentDelegate" && delegate.delegate !== SYSTEM_PROGRAM_ID ? delegate.delegate : null,
    metadata: metadata && metadata.__kind === "TokenMetadata" ? { name: metadata.name, symbol: metadata.symbol, uri: metadata.uri } : null,
    scaledUiAmount:
      scaled && scaled.__kind === "ScaledUiAmountConfig"
        ? {
            authority: scaled.authority === SYSTEM_PROGRAM_ID ? null : scaled.authority,
            multiplier: scaled.multiplier,
            newMultiplierEffectiveTimestamp: safeNumber(scaled.newMultiplierEffectiveTimestamp, "newMultiplierEffectiveTimestamp"),
            newMultiplier: scaled.newMultiplier,
          }
        : null,
  };
}

/**
 * A mint account (as getAccountInfo/getMultipleAccounts return it) → MintStateObs, or null
 * when the mint has no Scaled UI Amount extension (nothing for this ledger to follow).
 */
export function decodeMintAccount(mint: string, account: { data: string; owner: string }, at: { slot: number; observedAt: number }): MintStateObs | null {
  if (account.owner !== TOKEN_2022_PROGRAM_ID) return null;
  const decoded = decodeMintBytes(base64Bytes(account.data));
  if (!decoded.scaledUiAmount) return null;
  const s = decoded.scaledUiAmount;
  return {
    mint,
    slot: at.slot,
    decimals: decoded.decimals,
    multiplierAuthority: s.authority,
    multiplier: s.multiplier,
    newMultiplier: s.newMultiplier,
    newMultiplierEffectiveTimestamp: s.newMultiplierEffectiveTimestamp,
    observedAt: at.observedAt,
  };
}

/** Decode a Token-2022 token account: owner, mint and the raw amount (never scaled). */
export function decodeTokenAccountBytes(bytes: Uint8Array): DecodedTokenAccount {
  if (bytes.length !== BASE_ACCOUNT_SIZE && !(bytes.length > BASE_ACCOUNT_SIZE && bytes[BASE_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT)) {
    throw new DecodeError(`not a token account (${bytes.length} bytes)`);
  }
  try {
    const t = getTokenDecoder().decode(bytes);
    return { mint: t.mint, owner: t.owner, amount: t.amount };
  } catch (err) {
    throw new DecodeError(`token account bytes do not decode: ${(err as Error).message}`);
  }
}

/**
 * Every account key of a transaction in index order: static keys, then (v0) the addresses
 * loaded from lookup tables, writable before readonly, as the runtime numbers them.
 */
export function transactionAccountKeys(tx: WireTransaction): string[] {
  const loaded = tx.meta?.loadedAddresses;
  return [...tx.transaction.message.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
}

export interface TxContext {
  /** Defaults to the transaction's first signature. */
  signature?: string;
  /** Used when the transaction carries no blockTime (the caller asked getBlockTime). */
  blockTime?: number | null;
}

/** One Token-2022 instruction of a transaction, outer or inner, with its decoded data bytes. */
interface TokenInstruction {
  ix: WireInstruction;
  /** outer index * 1000, or outer * 1000 + inner index + 1 (see MultiplierUpdateObs.ixIndex). */
  ixIndex: number;
  data: Uint8Array;
}

/**
 * Every Token-2022 instruction a successful transaction ran, outer and inner (a multisig or a
 * program reaches the token program through CPI), in execution order. A failed transaction
 * changed nothing and yields none.
 */
function tokenInstructions(tx: WireTransaction, keys: string[]): TokenInstruction[] {
  if (!tx.meta || tx.meta.err != null) return [];
  const out: TokenInstruction[] = [];
  const visit = (ix: WireInstruction, ixIndex: number) => {
    if (keyAt(keys, ix.programIdIndex) === TOKEN_2022_PROGRAM_ID) out.push({ ix, ixIndex, data: base58Bytes(ix.data) });
  };
  const inner = new Map<number, WireInstruction[]>();
  for (const group of tx.meta.innerInstructions ?? []) inner.set(group.index, group.instructions);
  tx.transaction.message.instructions.forEach((ix, i) => {
    visit(ix, i * 1000);
    (inner.get(i) ?? []).forEach((innerIx, j) => visit(innerIx, i * 1000 + j + 1));
  });
  return out;
}

/** Every UpdateMultiplier (Token-2022 instruction 43/1) in a successful transaction, in execution order. */
export function findMultiplierUpdates(tx: WireTransaction, ctx: TxContext = {}): MultiplierUpdateObs[] {
  const keys = transactionAccountKeys(tx);
  const signature = ctx.signature ?? firstSignature(tx);
  const blockTime = tx.blockTime ?? ctx.blockTime ?? null;
  const found: MultiplierUpdateObs[] = [];
  for (const { ix, ixIndex, data } of tokenInstructions(tx, keys)) {
    if (data[0] !== UPDATE_MULTIPLIER_SCALED_UI_MINT_DISCRIMINATOR || data[1] !== UPDATE_MULTIPLIER_SCALED_UI_MINT_SCALED_UI_AMOUNT_MINT_DISCRIMINATOR) continue;
    if (data.length !== UPDATE_MULTIPLIER_DATA_SIZE) {
      throw new DecodeError(`UpdateMultiplier with ${data.length} data bytes in ${signature} at ${ixIndex}`);
    }
    if (ix.accounts.length < 2) throw new DecodeError(`UpdateMultiplier without mint and authority in ${signature} at ${ixIndex}`);
    if (blockTime == null) throw new DecodeError(`transaction ${signature} has no block time`);
    const decoded = getUpdateMultiplierScaledUiMintInstructionDataDecoder().decode(data);
    found.push({
      mint: keyAt(keys, ix.accounts[0]),
      signature,
      ixIndex,
      slot: tx.slot,
      blockTime,
      multiplier: decoded.multiplier,
      effectiveTimestamp: safeNumber(decoded.effectiveTimestamp, "effectiveTimestamp"),
      // With a multisig authority this is the multisig account, which is what the mint records.
      authority: keyAt(keys, ix.accounts[1]),
    });
  }
  return found;
}

/** A change of a mint's Scaled UI Amount authority (SetAuthority, authority type ScaledUiAmount). */
export interface AuthorityHandover {
  mint: string;
  /** The authority that signed the change (the one the mint named until then). */
  from: string;
  /** The new authority; null when it was removed. */
  to: string | null;
  signature: string;
  slot: number;
}

/**
 * Every hand-over of a Scaled UI Amount multiplier authority in a successful transaction: the
 * authority that signed it held every UpdateMultiplier of the mint until then.
 */
export function findAuthorityHandovers(tx: WireTransaction, ctx: TxContext = {}): AuthorityHandover[] {
  const keys = transactionAccountKeys(tx);
  const signature = ctx.signature ?? firstSignature(tx);
  const found: AuthorityHandover[] = [];
  for (const { ix, ixIndex, data } of tokenInstructions(tx, keys)) {
    if (data[0] !== SET_AUTHORITY_DISCRIMINATOR || data[1] !== AuthorityType.ScaledUiAmount) continue;
    if (ix.accounts.length < 2) throw new DecodeError(`SetAuthority without mint and authority in ${signature} at ${ixIndex}`);
    let decoded;
    try {
      decoded = getSetAuthorityInstructionDataDecoder().decode(data);
    } catch (err) {
      throw new DecodeError(`SetAuthority data does not decode in ${signature} at ${ixIndex}: ${(err as Error).message}`);
    }
    const to = decoded.newAuthority.__option === "Some" ? decoded.newAuthority.value : null;
    found.push({ mint: keyAt(keys, ix.accounts[0]), from: keyAt(keys, ix.accounts[1]), to, signature, slot: tx.slot });
  }
  return found;
}

/**
 * The owner's Token-2022 accounts a transaction touched: every account its token balances list
 * as the owner's, and every account the owner closed in it (CloseAccount names the account,
 * the destination, then the owner). The mint comes from the balances; a closed account the
 * balances do not list has none (null).
 */
export function ownerTokenAccounts(tx: WireTransaction, owner: string): { tokenAccount: string; mint: string | null }[] {
  if (!tx.meta || tx.meta.err != null) return [];
  const keys = transactionAccountKeys(tx);
  const found = new Map<string, string | null>();
  for (const row of [...(tx.meta.preTokenBalances ?? []), ...(tx.meta.postTokenBalances ?? [])]) {
    if (row.owner !== owner || (row.programId !== undefined && row.programId !== TOKEN_2022_PROGRAM_ID)) continue;
    found.set(keyAt(keys, row.accountIndex), row.mint);
  }
  for (const { ix, data } of tokenInstructions(tx, keys)) {
    if (data[0] !== CLOSE_ACCOUNT_DISCRIMINATOR || ix.accounts.length < 3 || keyAt(keys, ix.accounts[2]!) !== owner) continue;
    const account = keyAt(keys, ix.accounts[0]!);
    if (!found.has(account)) found.set(account, null);
  }
  return [...found].map(([tokenAccount, mint]) => ({ tokenAccount, mint }));
}

export interface BalanceFilter extends TxContext {
  /** Only this token account (the one whose history is being walked). */
  tokenAccount?: string;
  /** Token programs of the balances to keep: Token-2022 alone by default; TOKEN_PROGRAMS for both. */
  programIds?: readonly string[];
  /** Only balances of these mints (default: any). */
  mints?: ReadonlySet<string>;
  /** Each mint's permanent delegate, when known: a transfer it signed and the owner did not is a seizure. */
  permanentDelegates?: ReadonlyMap<string, string>;
}

/**
 * The owner's raw token balance changes in one successful transaction (of Token-2022 accounts,
 * unless `filter.programIds` says otherwise), from meta.pre/postTokenBalances
 * (`uiTokenAmount.amount` is raw; `uiAmount` is never read). An account missing before was
 * opened in the transaction (pre 0); missing after, closed (post 0). Unchanged balances are not
 * changes and are left out.
 */
export function extractBalanceChanges(tx: WireTransaction, owner: string, filter: BalanceFilter = {}): BalanceChangeObs[] {
  if (!tx.meta || tx.meta.err != null) return [];
  const keys = transactionAccountKeys(tx);
  const signature = filter.signature ?? firstSignature(tx);
  const blockTime = tx.blockTime ?? filter.blockTime ?? null;
  const programIds = filter.programIds ?? [TOKEN_2022_PROGRAM_ID];
  const pre = byIndex(tx.meta.preTokenBalances ?? []);
  const post = byIndex(tx.meta.postTokenBalances ?? []);
  const indexes = [...new Set([...pre.keys(), ...post.keys()])].sort((a, b) => a - b);
  // Signers are the first numRequiredSignatures static keys.
  const signers = new Set(tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header?.numRequiredSignatures ?? 1));
  const changes: BalanceChangeObs[] = [];
  for (const index of indexes) {
    const before = pre.get(index);
    const after = post.get(index);
    const row = (after ?? before)!;
    if (before?.owner !== owner && after?.owner !== owner) continue;
    // Old nodes omit programId; then the mint's program cannot be told apart here and the row is kept.
    if (row.programId !== undefined && !programIds.includes(row.programId)) continue;
    if (filter.mints && !filter.mints.has(row.mint)) continue;
    const tokenAccount = keyAt(keys, index);
    if (filter.tokenAccount !== undefined && tokenAccount !== filter.tokenAccount) continue;
    if (before && after && before.mint !== after.mint) throw new DecodeError(`token account ${tokenAccount} changes mint in ${signature}`);
    const preRaw = before ? rawAmount(before, signature) : 0n;
    const postRaw = after ? rawAmount(after, signature) : 0n;
    if (preRaw === postRaw) continue;
    if (blockTime == null) throw new DecodeError(`transaction ${signature} has no block time`);
    const delegate = filter.permanentDelegates?.get(row.mint);
    changes.push({
      owner,
      tokenAccount,
      mint: row.mint,
      signature,
      slot: tx.slot,
      blockTime,
      preRaw,
      postRaw,
      ownerSigned: signers.has(owner),
      ...(filter.permanentDelegates ? { byPermanentDelegate: delegate !== undefined && signers.has(delegate) } : {}),
    });
  }
  return changes;
}

function byIndex(rows: WireTokenBalance[]): Map<number, WireTokenBalance> {
  return new Map(rows.map((r) => [r.accountIndex, r]));
}

function rawAmount(row: WireTokenBalance, signature: string): bigint {
  const amount = row.uiTokenAmount?.amount;
  if (typeof amount !== "string" || !/^\d{1,20}$/.test(amount)) {
    throw new DecodeError(`unreadable raw amount for account index ${row.accountIndex} in ${signature}`);
  }
  return BigInt(amount);
}

/** A transaction's id is its first signature; a transaction without one is not a transaction. */
function firstSignature(tx: WireTransaction): string {
  const signature = tx.transaction.signatures[0];
  if (signature === undefined) throw new DecodeError("transaction without a signature");
  return signature;
}

// An instruction's account index may be missing (too few accounts) or past the keys: both refused.
function keyAt(keys: string[], index: number | undefined): string {
  if (index === undefined) throw new DecodeError(`instruction lacks an account (${keys.length} keys)`);
  const key = keys[index];
  if (key === undefined) throw new DecodeError(`account index ${index} out of range (${keys.length} keys)`);
  return key;
}

function base58Bytes(data: string): Uint8Array {
  try {
    return getBase58Encoder().encode(data) as Uint8Array;
  } catch {
    throw new DecodeError("instruction data is not valid base58");
  }
}

function safeNumber(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new DecodeError(`${field} ${value} is outside the safe integer range`);
  }
  return Number(value);
}
