// Builds engine inputs from the recorded fixtures (test/fixtures/recorded). The chain side is
// SYNTHESIZED from the issuer's recorded multiplier history: one UpdateMultiplier per recorded
// activation, published 10 minutes before it with the recorded f64 values, and a wallet that
// deposited a chosen raw balance before the first activation. Issuer revisions are the recorded
// records, stored with their canonical hash and ingestedAt = the record's createdTimeUtc.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalSha256 } from "../../src/domain/evidence";
import type { EngineInput } from "../../src/domain/types";
import type { InstrumentObs, IssuerRecord, IssuerRevisionObs, MultiplierUpdateObs } from "../../src/domain/observations";

const DIR = join(import.meta.dir, "..", "fixtures", "recorded", "xstocks");
const read = (f: string): any => JSON.parse(readFileSync(join(DIR, f), "utf8"));

export interface HistoryRow {
  multiplier: number;
  previousMultiplier: number;
  activationDateTime: string;
  reason: string;
}

export interface SymbolData {
  symbol: string;
  mint: string;
  underlying: string | null;
  history: HistoryRow[];
  records: IssuerRecord[];
}

const subset = read("recorded-20260913-subset.json");
const PER_SYMBOL = new Set(["AZNx", "HONx", "KLACx", "KOx", "NFLXx", "NVDAx", "NVOx", "SPYx", "STRCx"]);

export function loadSymbol(symbol: string): SymbolData {
  const asset = subset.assets.find((a: any) => a.symbol === symbol);
  const fromSubset = [...subset.history, ...subset.upcoming].filter((r: any) => r.xstockSymbol === symbol);
  if (PER_SYMBOL.has(symbol)) {
    const j = read(`${symbol}.json`);
    // Per-symbol files hold the history rows; the subset adds the earlier `upcoming` revisions.
    const seen = new Set(j.corporateActions.map((r: any) => `${r.eventId}:${r.version}`));
    const extra = fromSubset.filter((r: any) => !seen.has(`${r.eventId}:${r.version}`));
    return { symbol, mint: j.mint, underlying: asset?.underlyingSymbol ?? null, history: j.multiplierHistory, records: [...j.corporateActions, ...extra] };
  }
  return {
    symbol,
    mint: asset.deployments.find((d: any) => d.network === "Solana").address,
    underlying: asset.underlyingSymbol,
    history: subset.multiplierHistory[symbol],
    records: fromSubset,
  };
}

export const unix = (iso: string): number => Date.parse(iso) / 1000;
export const AUTHORITY = "S7vYFFWH6BjJyEsdrPQpqpYTqLTrPRK6KW3VwsJuRaS";
/** The recording date: every recorded activation is in the past. */
export const NOW = unix("2026-09-13T16:14:12Z");

export function synthUpdates(d: SymbolData): MultiplierUpdateObs[] {
  const rows = [...d.history].sort((a, b) => a.activationDateTime.localeCompare(b.activationDateTime));
  return rows.map((r, i) => ({
    mint: d.mint,
    signature: `synth-${d.symbol}-${i}`,
    ixIndex: 2000,
    slot: 400_000_000 + i * 1000,
    blockTime: unix(r.activationDateTime) - 600,
    multiplier: r.multiplier,
    effectiveTimestamp: unix(r.activationDateTime),
    authority: AUTHORITY,
  }));
}

export function revision(record: IssuerRecord, ingestedAt?: string): IssuerRevisionObs {
  return { record, sha256: canonicalSha256(record), ingestedAt: ingestedAt ?? record.createdTimeUtc ?? "2026-09-13T00:00:00.000Z", edited: false };
}

export function instrument(d: SymbolData): InstrumentObs {
  return { mint: d.mint, symbol: d.symbol, name: null, underlying: d.underlying, isin: null, decimals: 8 };
}

export const OWNER = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";

/** One wallet holding `raw` from `since` (a deposit from 0) to now. */
export function scenario(symbols: string[], raw: bigint, opts: { since?: string; now?: number } = {}): EngineInput {
  const ds = symbols.map(loadSymbol);
  const since = unix(opts.since ?? "2025-06-01T00:00:00Z");
  return {
    now: opts.now ?? NOW,
    instruments: ds.map(instrument),
    mintStates: [],
    multiplierUpdates: ds.flatMap(synthUpdates),
    issuerRevisions: ds.flatMap((d) => d.records.map((r) => revision(r))),
    wallets: [
      {
        owner: OWNER,
        gaps: [],
        accounts: ds.map((d) => ({ owner: OWNER, tokenAccount: `ta-${d.symbol}`, mint: d.mint, rawBalance: raw, slot: 446_000_000 })),
        balanceChanges: ds.map((d, i) => ({
          owner: OWNER,
          tokenAccount: `ta-${d.symbol}`,
          mint: d.mint,
          signature: `deposit-${d.symbol}`,
          slot: 390_000_000 + i,
          blockTime: since,
          preRaw: 0n,
          postRaw: raw,
        })),
      },
    ],
  };
}

// ---- Independent exact-decimal helpers for hand derivations (deliberately not numbers.ts) ----

/** Exact decimal expansion of an f64: toFixed is exact for f64 near 1 with 60 places (ES spec). */
export function f64Exact(x: number): string {
  return x.toFixed(60).replace(/0+$/, "").replace(/\.$/, "");
}

function split(s: string): [bigint, number] {
  const neg = s.startsWith("-");
  const t = neg ? s.slice(1) : s;
  const [i, f = ""] = t.split(".");
  const v = BigInt((i || "0") + f);
  return [neg ? -v : v, f.length];
}

function join10(v: bigint, places: number): string {
  const neg = v < 0n;
  let s = (neg ? -v : v).toString().padStart(places + 1, "0");
  if (places > 0) s = `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`;
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return (neg ? "-" : "") + s;
}

/** a × b for exact decimal strings. */
export function decMul(a: string, b: string): string {
  const [x, p] = split(a);
  const [y, q] = split(b);
  return join10(x * y, p + q);
}

/** a − b for exact decimal strings. */
export function decSub(a: string, b: string): string {
  const [x, p] = split(a);
  const [y, q] = split(b);
  const k = Math.max(p, q);
  return join10(x * 10n ** BigInt(k - p) - y * 10n ** BigInt(k - q), k);
}

export function decAdd(a: string, b: string): string {
  return decSub(a, decMul(b, "-1"));
}

/** Half-even at 6 places, trailing zeros dropped: what a person reads of an exact USD string. */
export function decUsd6(a: string): string {
  const [x, p] = split(a);
  if (p <= 6) return join10(x, p);
  const unit = 10n ** BigInt(p - 6);
  const neg = x < 0n;
  const m = neg ? -x : x;
  let q = m / unit;
  const r2 = (m % unit) * 2n;
  if (r2 > unit || (r2 === unit && q % 2n === 1n)) q += 1n;
  return join10(neg ? -q : q, 6);
}
