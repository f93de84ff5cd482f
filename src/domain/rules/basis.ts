// Quantity and basis changes: stock dividends and splits scale every unit by F with the basis
// spread across them; spin-offs, rights and cash in lieu distribute a fraction of the value and
// reinvest it, never income. Units always follow the chain's exact ratio.
import { type BookingFacts, scaleAll, valueProceeds } from "../book";
import type { Classified } from "../classified";
import { distributedName } from "../distributed";
import { usdInText } from "../display";
import { figure, positive } from "../issuer";
import { cmp, div, formatDecimal, liftF64, ONE, sub, ZERO } from "../numbers";
import { factorText, percentOf, percentText, reasonV1, sentenceV1, splitV1 } from "../v1";
import { factorReconciles, impliedPrice, type IssuerReading, type TypeRule } from "./rule";

/** A UnitSplit whose ratio is not 1:1 and (on chain) reconciles: a real unit split. */
const isUnitSplit = (x: IssuerReading): boolean => x.units !== null && cmp(x.units, ONE) !== 0 && (x.transition === null || factorReconciles(x.transition, x.units));
/** A 1:1 UnitSplit naming fractions: the fractional entitlement was sold and the cash reinvested. */
const isLieu = (x: IssuerReading): boolean => /lieu|fraction/i.test(x.record.notes ?? "");
/** The chain multiplier went up (a "split" the issuer did not say was forward or reverse). */
const chainRose = (x: IssuerReading): boolean => x.transition === null || cmp(liftF64(x.transition.multiplierNewF64), liftF64(x.transition.multiplierOldF64)) >= 0;

/** The issuer's split ratio when the chain did exactly that; else the chain's own ratio, flagged. */
function classifySplit(c: Classified, x: IssuerReading): void {
  if (x.units !== null && factorReconciles(c.transition, x.units)) c.factor = x.units;
  else {
    c.factor = c.chainFactor;
    c.reconciled = false;
    c.warnings.push("issuer split ratio does not reconcile with the chain multipliers: chain factor used");
  }
}

/**
 * A fraction of value distributed and reinvested: (M_new − M_old) ÷ M_new, with its proceeds when
 * published, and the distributed holding's name where a source states it.
 */
function classifyAllocation(c: Classified, x: IssuerReading): void {
  const proceeds = figure(x.record.netCashflowUsd) ?? figure(x.record.grossCashflowUsd);
  c.distributedFraction = cmp(c.mNew, ZERO) === 0 ? ZERO : div(sub(c.mNew, c.mOld), c.mNew);
  c.distributed = distributedName(x.revision, c.match.kind === "matched" ? c.match.event.revisions : []);
  c.factor = c.chainFactor;
  c.proceedsPerShare = positive(proceeds) ? proceeds : null;
  c.impliedPrice = impliedPrice(c.mOld, c.mNew, c.proceedsPerShare, ONE);
}

const explainFactor = (c: Classified): string => (c.factor ? `${c.match.reason}: units ×${formatDecimal(c.factor)}` : c.match.reason);

function explainAllocation(c: Classified): string {
  if (!c.distributedFraction) return c.match.reason;
  const proceeds = c.proceedsPerShare ? ` (${usdInText(c.proceedsPerShare)} a share)` : "";
  const price = c.impliedPrice && c.proceedsPerShare ? ` at ${usdInText(c.impliedPrice)} a share` : "";
  return `${c.match.reason}: ${percentOf(c.distributedFraction)}% of the value distributed${distributedAs(c)}${proceeds} and reinvested${price}`;
}

/** " as SOLS", " as a holding the issuer does not name": what a spin-off or rights distribution distributed. */
function distributedAs(c: Classified): string {
  if (c.type === "cash_in_lieu" || !c.distributed) return "";
  if (c.distributed.name) return ` as ${c.distributed.name}`;
  return c.type === "rights_distribution" ? " as rights the issuer does not name" : " as a holding the issuer does not name";
}

/** Units ×F; the proceeds, when published and plausible, are valued for U0 shares. Never income. */
function bookAllocation(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = scaleAll(c, raw, decimals);
  valueProceeds(f, c.proceedsPerShare);
  return f;
}

const quantity = { category: "basis", treatment: "quantity_basis", lineage: null, restatesBasis: true, explain: explainFactor, book: scaleAll } as const;
const allocation = { category: "basis", treatment: "basis_allocation", v1Kind: "unclassified_adjustment", restatesBasis: false, explain: explainAllocation, book: bookAllocation } as const;

export const stockDividend: TypeRule = {
  ...quantity,
  type: "stock_dividend",
  label: "Stock dividend",
  v1Kind: "unclassified_adjustment",
  caTypes: ["stockdividend"],
  classify: (c, x) => {
    const reconciles = x.units !== null && factorReconciles(c.transition, x.units);
    c.factor = reconciles ? x.units : c.chainFactor;
    if (x.units !== null && !reconciles) c.warnings.push("issuer units ratio does not reconcile with the chain: chain factor used");
  },
  v1: (a) => sentenceV1("Stock dividend booked as a quantity adjustment, not income", `units ×${factorText(a)}, cost basis spread across them`),
};

export const forwardSplit: TypeRule = {
  ...quantity,
  type: "forward_split",
  label: "Forward split",
  v1Kind: "split",
  caTypes: ["forwardsplit", "split"],
  recognises: (x) => x.caType === "forwardsplit" || chainRose(x),
  classify: classifySplit,
  v1: (a) => splitV1("Forward split", a),
};

export const reverseSplit: TypeRule = {
  ...quantity,
  type: "reverse_split",
  label: "Reverse split",
  v1Kind: "split",
  caTypes: ["reversesplit", "split"],
  recognises: (x) => x.caType === "reversesplit" || !chainRose(x),
  classify: classifySplit,
  v1: (a) => splitV1("Reverse split", a),
};

/** A UnitSplit whose ratio reconciles with the chain: booked as a split. */
export const unitSplit: TypeRule = {
  ...quantity,
  type: "unit_split",
  label: "Unit split",
  v1Kind: "split",
  caTypes: ["unitsplit"],
  recognises: isUnitSplit,
  classify: (c, x) => {
    c.factor = x.units;
  },
  v1: (a) => splitV1("Unit split", a),
};

export const cashInLieu: TypeRule = {
  ...allocation,
  type: "cash_in_lieu",
  label: "Cash in lieu of fractions",
  caTypes: ["cashinlieu", "unitsplit"],
  recognises: (x) => x.caType === "cashinlieu" || (!isUnitSplit(x) && isLieu(x)),
  classify: classifyAllocation,
  lineage: "transform",
  v1: reasonV1,
};

export const spinOff: TypeRule = {
  ...allocation,
  type: "spin_off",
  label: "Spin-off",
  caTypes: ["spinoff"],
  classify: classifyAllocation,
  lineage: "spin_off",
  v1: (a) => sentenceV1("Spin-off booked as a basis allocation, not income", `${percentText(a)} of the position's value distributed and reinvested`),
};

/** Rights or warrants sold and the proceeds reinvested; also a 1:1 UnitSplit that raised the multiplier. */
export const rightsDistribution: TypeRule = {
  ...allocation,
  type: "rights_distribution",
  label: "Rights distribution",
  caTypes: ["rightsdistribution", "rightsissue", "unitsplit"],
  recognises: (x) => x.caType !== "unitsplit" || (!isUnitSplit(x) && !isLieu(x)),
  classify: classifyAllocation,
  lineage: "rights_distribution",
  v1: (a) => sentenceV1("Rights distribution booked as a basis allocation, not income", `${percentText(a)} of the value came from rights sold and reinvested`),
};
