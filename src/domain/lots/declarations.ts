// What an operator declares with `ca-ledger import cost-basis` (docs/lots.md#declared-cost-basis),
// as the ledger stores it: an operator observation, hashed as canonical JSON, never editing
// history. Amounts are exact decimal strings written canonically (no trailing zeros) and times
// ISO-8601 UTC to the millisecond, so the same declaration imported twice hashes the same.
// `declarationsInput` turns the stored declarations into the lot engine's input.
import { canonicalJson } from "../evidence";
import { parseDecimal, type Rat } from "../numbers";
import type { DeclaredCost, DeclaredLot } from "./types";

/** The cost of the owner's acquisition in one transaction (a swap paid in SOL, say). */
export interface DeclaredCostObservation {
  kind: "cost";
  owner: string;
  signature: string;
  costUsd: string;
}

/** Units bought off chain (on an exchange), arriving later in the wallet with no cost the chain shows. */
export interface DeclaredLotObservation {
  kind: "lot";
  owner: string;
  mint: string;
  /** ISO-8601 UTC, milliseconds. */
  acquiredAt: string;
  /** Displayed units at `acquiredAt` (raw × the multiplier then). */
  units: string;
  costUsd: string;
}

export type CostBasisObservation = DeclaredCostObservation | DeclaredLotObservation;

/** The canonical JSON an import stores and hashes as the operator's observation. */
export const declarationPayload = (d: CostBasisObservation): string => canonicalJson(d);

/** A mint's multiplier in force at a time and its decimals, or null when the ledger does not know the mint. */
export type MintAt = (mint: string, at: number) => { multiplier: Rat; decimals: number } | null;

/**
 * The engine's declarations, in stored order (a later cost for the same acquisition replaces an
 * earlier one). A lot whose mint the ledger does not know cannot be compared with raw amounts:
 * it is returned apart, to be reported, never guessed.
 */
export function declarationsInput(stored: readonly CostBasisObservation[], mintAt: MintAt): { declaredCosts: DeclaredCost[]; declaredLots: DeclaredLot[]; unknownMint: DeclaredLotObservation[] } {
  const declaredCosts: DeclaredCost[] = [];
  const declaredLots: DeclaredLot[] = [];
  const unknownMint: DeclaredLotObservation[] = [];
  for (const d of stored) {
    if (d.kind === "cost") {
      declaredCosts.push({ owner: d.owner, signature: d.signature, costUsd: parseDecimal(d.costUsd) });
      continue;
    }
    const acquiredAt = Date.parse(d.acquiredAt);
    const mint = mintAt(d.mint, acquiredAt);
    if (!mint) {
      unknownMint.push(d);
      continue;
    }
    declaredLots.push({ owner: d.owner, mint: d.mint, acquiredAt, units: parseDecimal(d.units), multiplier: mint.multiplier, decimals: mint.decimals, costUsd: parseDecimal(d.costUsd) });
  }
  return { declaredCosts, declaredLots, unknownMint };
}
