// The typed facts the sources hand to the engine. Plain data only: the sources produce these,
// the ledger stores them, the domain reads them. Raw token amounts are bigint; f64 multipliers
// are kept as the exact JS number read from chain bytes (lifted to rationals by numbers.ts).

/** One UpdateMultiplier instruction found in a transaction signed by a multiplier authority. */
export interface MultiplierUpdateObs {
  mint: string;
  signature: string;
  /** Position of the instruction in the transaction (outer index * 1000 + inner index + 1, or outer * 1000). */
  ixIndex: number;
  slot: number;
  /** Block time of the transaction, unix seconds. */
  blockTime: number;
  /** The new multiplier, as the f64 written on chain. */
  multiplier: number;
  /** The effective timestamp written on chain, unix seconds (may be in the past: applies at once). */
  effectiveTimestamp: number;
  authority: string;
}

/** A mint's Scaled UI Amount state as read from account bytes at some slot. */
export interface MintStateObs {
  mint: string;
  slot: number;
  decimals: number;
  multiplierAuthority: string | null;
  multiplier: number;
  newMultiplier: number;
  newMultiplierEffectiveTimestamp: number;
  /** When we read it (unix seconds, our clock). */
  observedAt: number;
}

/** One change of a token account's raw balance, from a transaction's pre/post token balances. */
export interface BalanceChangeObs {
  owner: string;
  tokenAccount: string;
  mint: string;
  signature: string;
  slot: number;
  blockTime: number;
  preRaw: bigint;
  postRaw: bigint;
  /** Whether the owner signed the transaction (false + byPermanentDelegate on a decrease = seizure). Absent = unknown. */
  ownerSigned?: boolean;
  /** True when the mint's permanent delegate moved the tokens. Absent = unknown. */
  byPermanentDelegate?: boolean;
}

/** A token account of a wallet with its current raw balance as the chain reports it. */
export interface TokenAccountObs {
  owner: string;
  tokenAccount: string;
  mint: string;
  rawBalance: bigint;
  slot: number;
}

/** The issuer's corporate-action record, exactly the xStocks wire shape (decimal strings). */
export interface IssuerRecord {
  eventId: string;
  version: number;
  xstockSymbol: string;
  spvSymbol: string | null;
  caType: string;
  effectiveTimeUtc: string | null;
  multiplierOld: string | null;
  multiplierNew: string | null;
  grossCashflowUsd: string | null;
  netCashflowUsd: string | null;
  withholdingTaxRate: string | null;
  fromUnits: string | null;
  toUnits: string | null;
  redemptionPriceUsd: string | null;
  notes: string | null;
  createdTimeUtc: string | null;
  status: string;
  xstockIsin: string | null;
  spvIsin: string | null;
}

/**
 * A record an operator supplies (`ca-ledger import issuer-records`): the issuer record's shape
 * plus the mint it speaks of, since no asset feed maps its symbol to a mint.
 */
export interface OperatorRecord extends IssuerRecord {
  mint: string;
  /**
   * The holding a spin-off or rights distribution distributed, as the operator names it where the
   * issuer does not (src/domain/distributed.ts). Absent unless given: a record without it hashes
   * as it always did.
   */
  distributedName?: string;
}

/** Who stated a revision: the issuer's feed, or an operator's import. */
export type RecordSource = "xstocks" | "operator";

/** A stored issuer revision: the record as received, its canonical hash and when we stored it. */
export interface IssuerRevisionObs {
  /** The record as given (an operator's carries its `mint`). */
  record: IssuerRecord;
  /** Absent: the issuer's feed. */
  source?: RecordSource;
  /** The mint an operator record names; absent for the feed's (their symbol maps them). */
  mint?: string | null;
  /** SHA-256 (hex) of the record's canonical JSON (RFC 8785). */
  sha256: string;
  /** When we stored it, ISO-8601 UTC. */
  ingestedAt: string;
  /** True when an earlier observation of the same (eventId, version) had a different hash. */
  edited: boolean;
}

/**
 * An instrument: one the issuer lists (from /public/assets) joined with its mint, or, for a mint
 * no feed lists, what the mint's own Token-2022 metadata names (source `token-metadata`).
 */
export interface InstrumentObs {
  mint: string;
  symbol: string;
  name: string | null;
  underlying: string | null;
  isin: string | null;
  decimals: number | null;
  /** Absent: the issuer feed. */
  source?: InstrumentSource;
  /** The metadata's URI (token-metadata instruments only). */
  uri?: string | null;
}

export type InstrumentSource = "xstocks" | "token-metadata";

/** Whether an issuer feed lists the instrument (its symbol then maps the feed's records to the mint). */
export const listedByIssuerFeed = (i: Pick<InstrumentObs, "source"> | undefined): boolean => i !== undefined && (i.source ?? "xstocks") === "xstocks";
