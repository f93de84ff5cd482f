// The mints of the wallet's accounts, read in one call: their Scaled UI Amount state (decimals,
// multipliers, the authority whose history holds the updates), their permanent delegate, and the
// names their Token-2022 metadata gives. A mint that cannot be read, or holds what no real mint
// can, is a named gap. Read right after the list stage: decoding a balance change needs its
// mint's permanent delegate (a seizure is its move, not the wallet's). The mint poll reads each
// mint account the same way (readMintAccount).
import type { InstrumentObs, MintStateObs } from "../../../domain/observations";
import { stripUnsafeText } from "../../../domain/text";
import { base64Bytes, decodeMintAccount, decodeMintBytes, type TokenMetadata } from "../decode";
import type { Rpc } from "../rpc";
import { TOKEN_2022_PROGRAM_ID } from "../wire";
import { implausibleMint } from "./plausible";
import type { SyncGap, SyncProgress } from "./types";

export interface MintStates {
  mints: MintStateObs[];
  /** Per mint, its permanent delegate. */
  permanentDelegates: Map<string, string>;
  /** Names from the mints' own metadata (source `token-metadata`). */
  instruments: InstrumentObs[];
  gaps: SyncGap[];
}

/** Mint states (decimals, multipliers, the authority whose history holds the updates) and metadata names. */
export async function readMints(rpc: Rpc, mintAddresses: string[], now: () => number, progress: (p: SyncProgress) => void): Promise<MintStates> {
  const gaps: SyncGap[] = [];
  const mints: MintStateObs[] = [];
  const instruments: InstrumentObs[] = [];
  const permanentDelegates = new Map<string, string>();
  progress({ phase: "mints", done: 0, total: mintAddresses.length });
  if (mintAddresses.length > 0) {
    try {
      const read = await rpc.getMultipleAccounts(mintAddresses);
      read.accounts.forEach((account, i) => {
        const mint = mintAddresses[i]!;
        if (!account) {
          gaps.push({ address: mint, reason: "mint account not found" });
          return;
        }
        try {
          const mintRead = readMintAccount(mint, account, { slot: read.slot, observedAt: now() });
          if (mintRead.problem) gaps.push({ address: mint, reason: `${mintRead.problem}: mint state ignored` });
          else if (mintRead.state) mints.push(mintRead.state);
          if (mintRead.permanentDelegate) permanentDelegates.set(mint, mintRead.permanentDelegate);
          if (mintRead.instrument) instruments.push(mintRead.instrument);
        } catch (err) {
          gaps.push({ address: mint, reason: `mint account unreadable: ${(err as Error).message}` });
        }
      });
    } catch (err) {
      for (const mint of mintAddresses) gaps.push({ address: mint, reason: `mint state unavailable: ${(err as Error).message}` });
    }
  }
  progress({ phase: "mints", done: mintAddresses.length, total: mintAddresses.length });
  return { mints, permanentDelegates, instruments, gaps };
}

export interface MintAccountRead {
  /** The Scaled UI Amount state, or null when the account holds none. */
  state: MintStateObs | null;
  /** Why the state cannot be taken (what no real mint holds), else null. */
  problem: string | null;
  permanentDelegate: string | null;
  /** The name the mint's own metadata gives (source `token-metadata`), when its state is taken. */
  instrument: InstrumentObs | null;
}

/**
 * What one mint account says, the same for a wallet's sync and the mint poll. Throws when the
 * account cannot be decoded.
 */
export function readMintAccount(mint: string, account: { data: string; owner: string }, at: { slot: number; observedAt: number }): MintAccountRead {
  const state = decodeMintAccount(mint, account, at);
  const problem = state ? implausibleMint(state) : null;
  const decoded = account.owner === TOKEN_2022_PROGRAM_ID ? decodeMintBytes(base64Bytes(account.data)) : null;
  const instrument = state && !problem && decoded?.metadata ? metadataInstrument(mint, decoded.metadata, decoded.decimals) : null;
  return { state: problem ? null : state, problem, permanentDelegate: decoded?.permanentDelegate ?? null, instrument };
}

/**
 * Longest metadata text kept. A mint's metadata is anyone's to write: bounded, and control,
 * bidirectional and invisible characters removed (docs/sources.md#text-fields).
 */
const METADATA_LIMITS = { name: 200, symbol: 32, uri: 500 } as const;

/** The instrument a mint's own metadata names (for mints no issuer feed lists), or null when it names none. */
export function metadataInstrument(mint: string, metadata: TokenMetadata, decimals: number): InstrumentObs | null {
  const symbol = stripUnsafeText(metadata.symbol, METADATA_LIMITS.symbol);
  const name = stripUnsafeText(metadata.name, METADATA_LIMITS.name);
  if (!symbol && !name) return null;
  const uri = stripUnsafeText(metadata.uri, METADATA_LIMITS.uri);
  return { mint, symbol: symbol || stripUnsafeText(name, METADATA_LIMITS.symbol), name: name || null, underlying: null, isin: null, decimals, source: "token-metadata", uri: uri || null };
}
