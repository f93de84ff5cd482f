// The whole recording of 2026-09-13 (test/fixtures/recorded/xstocks/recorded-20260913): every
// corporate-action record, and every multiplier step of every symbol as the issuer's multiplier
// history lists it (654 steps). A step becomes a chain transition with the step's own old and new
// multipliers (the recorded f64 values) taking force at its activation time; the mint is named
// after the symbol. Nothing else is synthesized.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { IssuerRecord, IssuerRevisionObs } from "../../src/domain/observations";
import { f64ToDecimal } from "../../src/domain/numbers";
import type { ChainTransition } from "../../src/domain/types";
import { NOW, revision, unix } from "./helpers";

const DIR = join(import.meta.dir, "..", "fixtures", "recorded", "xstocks", "recorded-20260913");
const read = (f: string): any => JSON.parse(readFileSync(join(DIR, f), "utf8"));

export interface RecordedStep {
  id: string;
  reason: string;
  multiplier: number;
  previousMultiplier: number;
  activationDateTime: string;
}

export interface RecordedSymbol {
  symbol: string;
  mint: string;
  transitions: ChainTransition[];
  revisions: IssuerRevisionObs[];
}

export const mintOf = (symbol: string): string => `recorded-mint-${symbol}`;

/** One chain transition per recorded step: M_old → M_new at the activation, published 10 minutes earlier. */
export function stepTransition(symbol: string, step: RecordedStep, slot: number): ChainTransition {
  const at = unix(step.activationDateTime);
  const mint = mintOf(symbol);
  return {
    key: `${mint}:${step.id}:0`,
    mint,
    signature: step.id,
    ixIndex: 0,
    slot,
    blockTime: new Date((at - 600) * 1000).toISOString(),
    blockTimeUnix: at - 600,
    multiplierOld: f64ToDecimal(step.previousMultiplier),
    multiplierNew: f64ToDecimal(step.multiplier),
    multiplierOldF64: step.previousMultiplier,
    multiplierNewF64: step.multiplier,
    scheduledAt: step.activationDateTime,
    effectiveAt: step.activationDateTime,
    effectiveAtUnix: at,
    state: at <= NOW ? "activated" : "confirmed",
    supersededBy: null,
  };
}

let cache: RecordedSymbol[] | null = null;

/** Every symbol with at least one recorded multiplier step, its transitions in activation order and its records. */
export function recordedSymbols(): RecordedSymbol[] {
  if (cache) return cache;
  const records: IssuerRecord[] = read("corporate-actions-history.json").nodes;
  const bySymbol: Record<string, RecordedStep[]> = read("multiplier-history.json").bySymbol;
  cache = Object.entries(bySymbol)
    .filter(([, steps]) => steps.length > 0)
    .map(([symbol, steps]) => ({
      symbol,
      mint: mintOf(symbol),
      transitions: [...steps].sort((a, b) => a.activationDateTime.localeCompare(b.activationDateTime)).map((s, i) => stepTransition(symbol, s, 1000 + i)),
      revisions: records.filter((r) => r.xstockSymbol === symbol).map((r) => revision(r)),
    }));
  return cache;
}
