// What a spin-off, a rights distribution or cash in lieu distributed, in words
// (docs/action-types.md#what-was-distributed). The issuer sells the distributed holding and
// reinvests the proceeds in the tokenized stock, and its records rarely name the holding: HONx's
// spin-offs of 2025-10-30 and 2026-06-29 have null notes. A name is taken only where a source
// states it, first the revision the chain change matched, then the event's other revisions,
// newest first:
//
//   - an operator record's `distributedName` (`ca-ledger import issuer-records`);
//   - an issuer note of the form "Sell of 373.48 shares of VSNT …" or "Sell of 18606 units of
//     KRAQW" (shares, units, warrants or rights, then the holding's ticker).
//
// Otherwise the holding is described without a name, and the sentence says the issuer did not
// name it. Nothing here is guessed from a ticker or a date.
import type { IssuerRevisionObs, OperatorRecord } from "./observations";
import type { ActionType, DistributedName, DistributedView } from "./types";

/** "Sell of 373.48 shares of VSNT (CMCSA spin off) @ $ 34.56020" names VSNT. */
const SOLD_HOLDING = /\bsell(?:ing)?\s+of\s+[\d.,]+\s+(?:shares|units|warrants|rights)\s+of\s+([A-Z][A-Z0-9.-]{0,14})\b/i;

/** The holding a note names as sold, or null. */
export function nameInNote(notes: string | null): string | null {
  return SOLD_HOLDING.exec(notes ?? "")?.[1] ?? null;
}

/** The operator's name for the holding: its record's optional `distributedName`. */
const operatorName = (r: IssuerRevisionObs): string | null => (r.source === "operator" ? ((r.record as Partial<OperatorRecord>).distributedName ?? null) : null);

/**
 * The name of what was distributed, from the matched revision first, then the event's other
 * revisions, newest first; an operator's stated name wins over a note in the same revision.
 */
export function distributedName(matched: IssuerRevisionObs, revisions: readonly IssuerRevisionObs[]): DistributedName {
  const others = [...revisions].filter((r) => r !== matched).sort((a, b) => b.record.version - a.record.version);
  for (const r of [matched, ...others]) {
    const byOperator = operatorName(r);
    if (byOperator) return { name: byOperator, namedBy: "operator" };
    const inNote = nameInNote(r.record.notes);
    if (inNote) return { name: inNote, namedBy: "issuer" };
  }
  return { name: null, namedBy: null };
}

const NAMED_BY = { operator: "named by an operator record", issuer: "named in the issuer's note" } as const;

/**
 * The sentence people read, e.g. "a holding distributed by HON, sold by the issuer and
 * reinvested in HONx (not named by the issuer)", "KRAQW, rights distributed by KRAQ, sold by the
 * issuer and reinvested in KRAQx (named in the issuer's note)". `from` is the distributing
 * identity (its underlying, else its symbol), `into` the tokenized stock.
 */
export function describeDistributed(type: ActionType, d: DistributedName, from: string, into: string): DistributedView {
  const sold = `sold by the issuer and reinvested in ${into}`;
  if (type === "cash_in_lieu") {
    const holding = `fractional entitlements of ${from}`;
    return { name: null, namedBy: null, holding, description: `${holding}, ${sold}` };
  }
  if (d.name === null) {
    const what = `${type === "rights_distribution" ? "rights" : "a holding"} distributed by ${from}`;
    return { ...d, holding: `${what} (not named by the issuer)`, description: `${what}, ${sold} (not named by the issuer)` };
  }
  const kind = type === "rights_distribution" ? "rights distributed" : "spun off";
  return { ...d, holding: d.name, description: `${d.name}, ${kind} by ${from}, ${sold} (${NAMED_BY[d.namedBy!]})` };
}
