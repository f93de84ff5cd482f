// Identity: the same holding continues as a new line (a stock merger into the same company, an
// identity change of the underlying). Units ×F, all basis carried, and a lineage link old → new.
import { scaleAll } from "../book";
import type { Classified } from "../classified";
import { parseMergerNote, ticker } from "../issuer";
import { formatDecimal } from "../numbers";
import { factorText, reasonV1, sentenceV1 } from "../v1";
import { factorReconciles, type IssuerReading, type TypeRule } from "./rule";

/** The merger note names the same ticker on both sides: the company continues under a new line. */
function sameCompany(x: IssuerReading): boolean {
  const note = parseMergerNote(x.record.notes);
  return note !== null && ticker(note.from) === ticker(note.to);
}

function classifyIdentity(c: Classified, x: IssuerReading): void {
  const note = parseMergerNote(x.record.notes);
  c.underlying = note ? { from: note.from, to: note.to } : null;
  if (x.units !== null && factorReconciles(c.transition, x.units)) c.factor = x.units;
  else {
    c.factor = c.chainFactor;
    if (x.units !== null) {
      c.reconciled = false;
      c.warnings.push("issuer units ratio does not reconcile with the chain multipliers: chain factor used");
    }
  }
}

function explainIdentity(c: Classified): string {
  const moved = c.underlying ? `, ${c.underlying.from ?? "?"} → ${c.underlying.to ?? "?"}` : "";
  return c.factor ? `${c.match.reason}: units ×${formatDecimal(c.factor)}${moved}` : c.match.reason;
}

const identity = {
  category: "identity",
  treatment: "identity",
  v1Kind: "unclassified_adjustment",
  classify: classifyIdentity,
  explain: explainIdentity,
  book: scaleAll,
  lineage: "identity_change",
  restatesBasis: true,
} as const;

export const stockMerger: TypeRule = {
  ...identity,
  type: "stock_merger",
  label: "Stock merger",
  caTypes: ["stockmerger"],
  recognises: (x) => !sameCompany(x),
  v1: reasonV1,
};

export const identityChange: TypeRule = {
  ...identity,
  type: "identity_change",
  label: "Identity change",
  caTypes: ["identitychange", "stockmerger"],
  recognises: (x) => x.caType === "identitychange" || sameCompany(x),
  v1: (a) => sentenceV1("Identity change of the underlying booked as a quantity adjustment, not income", `units ×${factorText(a)}, all cost basis carried over`),
};
