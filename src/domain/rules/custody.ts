// Custody: the mint's permanent delegate moved tokens out of the wallet without the owner's
// signature. A custody transfer, never a sale or a plain withdrawal: not booked, nothing
// convertible. It comes from a balance change, not from a multiplier change or an issuer record.
import type { PlainActionInput } from "../action-inputs";
import { type BookingFacts, units, unvaluedFacts } from "../book";
import { displayedChange, uiAmount } from "../display";
import { formatExact, liftF64 } from "../numbers";
import type { BalanceChangeObs } from "../observations";
import { isoFromUnix } from "../time";
import type { TypeRule } from "./rule";
import { notBooked } from "./unknown";

/** Never from an issuer record: recognised from the balance change itself (isSeizure). */
export const seizure: TypeRule = { ...notBooked, type: "seizure", label: "Seizure (custody transfer)", category: "custody", caTypes: [] };

const SEIZURE_REASON = "custody transfer by the permanent delegate without the owner's signature: not a sale, not a withdrawal";

/** A decrease the permanent delegate made without the owner signing. */
export const isSeizure = (change: BalanceChangeObs): boolean => change.byPermanentDelegate === true && change.ownerSigned === false && change.postRaw < change.preRaw;

export interface SeizureContext {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  /** The multiplier in force at the transfer (the chain's f64). */
  multiplier: number;
}

/** What the seizure's action shows, and the units it took (at the multiplier then in force). */
export function seizureOf(change: BalanceChangeObs, x: SeizureContext): { action: PlainActionInput; facts: BookingFacts } {
  const at = isoFromUnix(change.blockTime);
  const multiplier = liftF64(x.multiplier);
  const u0 = units(change.preRaw, multiplier, x.decimals);
  const u1 = units(change.postRaw, multiplier, x.decimals);
  const m = formatExact(multiplier);
  const action: PlainActionInput = {
    owner: x.owner,
    mint: x.mint,
    symbol: x.symbol,
    decimals: x.decimals,
    key: `${x.mint}:${change.signature}:seizure:${change.tokenAccount}`,
    type: "seizure",
    reason: SEIZURE_REASON,
    raw: change.preRaw,
    unitsBefore: u0,
    unitsAfter: u1,
    effectiveAt: at,
    event: null,
    revision: null,
    lifecycle: { state: "activated", steps: [{ state: "activated", at, revision: null, supersedes: null, note: "tokens moved by the permanent delegate" }] },
    quantityDisplay: displayedChange(uiAmount(change.preRaw, x.multiplier, x.decimals), uiAmount(change.postRaw, x.multiplier, x.decimals)),
    chain: { signature: change.signature, slot: change.slot, blockTime: at, multiplierOld: m, multiplierNew: m, scheduledAt: null, effectiveAt: at, updateSignature: null },
  };
  const facts = unvaluedFacts(u0, u1);
  return { action, facts };
}
