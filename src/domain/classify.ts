// From a matched (or unmatched) chain transition to a type and the per-share figures its booking
// needs. Mint-level: nothing here depends on a wallet. The chain is canonical: issuer figures are
// used only where they reconcile with what the chain did.
import type { IssuerRevisionObs } from "./observations";
import {
  cmp,
  div,
  formatFixed,
  liftF64,
  mul,
  nearestF64,
  ONE,
  rat,
  type Rat,
  sub,
  tryParseDecimal,
  ulpDistance,
  ZERO,
} from "./numbers";
import type { MatchResult } from "./match";
import { isWithholdingRefund } from "./revisions";
import type { ActionType, ChainTransition } from "./types";

export interface Classified {
  transition: ChainTransition;
  match: MatchResult;
  revision: IssuerRevisionObs | null;
  type: ActionType;
  /** The classifier's own reason (shown as the v1 reason for unbooked types). */
  reason: string;
  warnings: string[];
  mOld: Rat;
  mNew: Rat;
  /** M_new / M_old exactly. */
  chainFactor: Rat;
  /** Quantity factor applied to principal for quantity_basis / identity types (and a stock part). */
  factor: Rat | null;
  /** Net cash per share used for income (null when unknown or implausible). */
  cashPerShare: Rat | null;
  /** Proceeds per share for basis allocations, when published (null when absent or implausible). */
  proceedsPerShare: Rat | null;
  distributedFraction: Rat | null;
  retentionRate: Rat | null;
  refundNote: string | null;
  underlying: { from: string | null; to: string | null } | null;
  /** Implied reinvestment price P = M_old·cash ÷ (M_new − M_old·F_stock), in this transition's unit basis. */
  impliedPrice: Rat | null;
  /** False when the issuer's figures do not reconcile with the chain (census). */
  reconciled: boolean;
}

// Issuer records repeat the same few figures ("0.3", "0.5") on every event: parse each distinct
// string once. Rats are immutable, so sharing them is safe; bounded, cleared when full.
const parsed = new Map<string, Rat | null>();
function num(s: string | null | undefined): Rat | null {
  if (s === null || s === undefined) return null;
  let r = parsed.get(s);
  if (r === undefined) {
    r = tryParseDecimal(s);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(s, r);
  }
  return r;
}
const positive = (r: Rat | null): r is Rat => r !== null && cmp(r, ZERO) > 0;

/** Does M_old × F land on M_new (nearest f64, 4 ulp)? Then F is what the chain did. */
export function factorReconciles(t: ChainTransition, f: Rat): boolean {
  return ulpDistance(nearestF64(mul(liftF64(t.multiplierOldF64), f)), t.multiplierNewF64) <= 4n;
}

/** Net cash per share: published net, else gross × (1 − WHT) with a warning, else null with a warning. */
export function netCash(rev: IssuerRevisionObs, warnings: string[]): Rat | null {
  const r = rev.record;
  const net = num(r.netCashflowUsd);
  if (net !== null) return net;
  const gross = num(r.grossCashflowUsd);
  const wht = num(r.withholdingTaxRate);
  if (gross !== null && wht !== null) {
    warnings.push("issuer net cash missing: computed as gross × (1 − withholding rate)");
    return mul(gross, sub(ONE, wht));
  }
  warnings.push("issuer net cash missing and no withholding rate: USD unknown");
  return null;
}

/** Share the issuer retained (fees, currency) as published: net ÷ gross when not explained by WHT. */
export function retentionRate(rev: IssuerRevisionObs): Rat | null {
  const gross = num(rev.record.grossCashflowUsd);
  const net = num(rev.record.netCashflowUsd);
  if (!positive(gross) || net === null) return null;
  const wht = num(rev.record.withholdingTaxRate) ?? ZERO;
  const expected = mul(gross, sub(ONE, wht));
  return cmp(expected, net) === 0 ? null : div(net, gross);
}

function unitsFactor(rev: IssuerRevisionObs): Rat | null {
  const from = num(rev.record.fromUnits);
  const to = num(rev.record.toUnits);
  return positive(from) && positive(to) ? div(to, from) : null;
}

/** "Stock Merger 0.5 NYSE:AZN for 1 NASDAQ:AZN (ADR)" -> from "NASDAQ:AZN (ADR)", to "NYSE:AZN". */
export function parseMergerNote(notes: string | null): { from: string; to: string } | null {
  const m = /([\d.]+)\s+(\S+(?:\s*\([^)]*\))?)\s+for\s+([\d.]+)\s+(.+?)\s*$/i.exec(notes ?? "");
  return m ? { to: m[2]!.trim(), from: m[4]!.trim() } : null;
}

const ticker = (s: string): string => s.replace(/\([^)]*\)/g, "").replace(/^.*:/, "").trim().toUpperCase();

function impliedPrice(mOld: Rat, mNew: Rat, cash: Rat | null, stockFactor: Rat = ONE): Rat | null {
  if (!positive(cash)) return null;
  const base = mul(mOld, stockFactor);
  const gain = sub(mNew, base);
  return cmp(gain, ZERO) > 0 ? div(mul(base, cash), gain) : null;
}

function base(t: ChainTransition, match: MatchResult): Classified {
  const mOld = liftF64(t.multiplierOldF64);
  const mNew = liftF64(t.multiplierNewF64);
  return {
    transition: t,
    match,
    revision: match.kind === "matched" ? match.revision : null,
    type: "unknown",
    reason: match.reason,
    warnings: [],
    mOld,
    mNew,
    chainFactor: cmp(mOld, ZERO) === 0 ? ONE : div(mNew, mOld),
    factor: null,
    cashPerShare: null,
    proceedsPerShare: null,
    distributedFraction: null,
    retentionRate: null,
    refundNote: null,
    underlying: null,
    impliedPrice: null,
    reconciled: true,
  };
}

const distributed = (c: Classified): Rat => (cmp(c.mNew, ZERO) === 0 ? ZERO : div(sub(c.mNew, c.mOld), c.mNew));

export const REFUND_NOTE = "passes back tax withheld earlier; not a new dividend";

export function classify(t: ChainTransition, match: MatchResult): Classified {
  const c = base(t, match);
  if (match.kind !== "matched") return c;
  const rev = match.revision;
  const r = rev.record;
  const caType = r.caType.replace(/[\s_-]/g, "").toLowerCase();
  const units = unitsFactor(rev);
  switch (caType) {
    case "cashdividend":
    case "cashandstockdividend": {
      const stockPart = units !== null && cmp(units, ONE) !== 0 ? units : null;
      if (stockPart || caType === "cashandstockdividend") {
        c.type = "cash_and_stock_dividend";
        c.factor = stockPart ?? ONE;
      } else c.type = isWithholdingRefund(rev) ? "withholding_adjustment" : "cash_dividend";
      c.cashPerShare = netCash(rev, c.warnings);
      c.retentionRate = retentionRate(rev);
      if (c.type === "withholding_adjustment") c.refundNote = r.notes ? `${REFUND_NOTE}. Issuer: ${r.notes.trim()}` : REFUND_NOTE;
      c.impliedPrice = impliedPrice(c.mOld, c.mNew, c.cashPerShare, c.factor ?? ONE);
      if (cmp(c.mNew, mul(c.mOld, c.factor ?? ONE)) <= 0) {
        c.warnings.push("multiplier did not rise: the chain change does not reconcile with a distribution");
        c.reconciled = false;
      }
      return c;
    }
    case "stockdividend": {
      c.type = "stock_dividend";
      c.factor = units !== null && factorReconciles(t, units) ? units : c.chainFactor;
      if (units !== null && !factorReconciles(t, units)) c.warnings.push("issuer units ratio does not reconcile with the chain: chain factor used");
      return c;
    }
    case "forwardsplit":
    case "reversesplit":
    case "split": {
      c.type = caType === "reversesplit" ? "reverse_split" : caType === "forwardsplit" ? "forward_split" : cmp(c.chainFactor, ONE) >= 0 ? "forward_split" : "reverse_split";
      if (units !== null && factorReconciles(t, units)) c.factor = units;
      else {
        c.factor = c.chainFactor;
        c.reconciled = false;
        c.warnings.push("issuer split ratio does not reconcile with the chain multipliers: chain factor used");
      }
      return c;
    }
    case "unitsplit": {
      const proceeds = num(r.netCashflowUsd) ?? num(r.grossCashflowUsd);
      if (units !== null && cmp(units, ONE) !== 0 && factorReconciles(t, units)) {
        c.type = "unit_split";
        c.factor = units;
        return c;
      }
      // 1:1 with the multiplier up: proceeds of rights or warrants sold and reinvested.
      c.type = /lieu|fraction/i.test(r.notes ?? "") ? "cash_in_lieu" : "rights_distribution";
      return basisAllocation(c, positive(proceeds) ? proceeds : null);
    }
    case "cashinlieu":
      c.type = "cash_in_lieu";
      return basisAllocation(c, num(r.netCashflowUsd) ?? num(r.grossCashflowUsd));
    case "spinoff":
      c.type = "spin_off";
      return basisAllocation(c, num(r.netCashflowUsd) ?? num(r.grossCashflowUsd));
    case "rightsdistribution":
    case "rightsissue":
      c.type = "rights_distribution";
      return basisAllocation(c, num(r.netCashflowUsd) ?? num(r.grossCashflowUsd));
    case "stockmerger":
    case "identitychange": {
      const note = parseMergerNote(r.notes);
      const same = note !== null && ticker(note.from) === ticker(note.to);
      c.type = caType === "identitychange" || same ? "identity_change" : "stock_merger";
      c.underlying = note ? { from: note.from, to: note.to } : null;
      if (units !== null && factorReconciles(t, units)) c.factor = units;
      else {
        c.factor = c.chainFactor;
        if (units !== null) {
          c.reconciled = false;
          c.warnings.push("issuer units ratio does not reconcile with the chain multipliers: chain factor used");
        }
      }
      return c;
    }
    case "cashmerger":
      return notBooked(c, "cash_merger", "cash merger: the position ends in cash; not booked");
    case "mixedmerger":
    case "cashandstockmerger":
    case "stockandcashmerger":
      return notBooked(c, "mixed_merger", "cash and stock merger: not booked; the position is marked terminated");
    case "redemption":
      return notBooked(c, "redemption", "redemption: the position is redeemed for cash; not booked");
    case "delisting":
      return notBooked(c, "delisting", "delisting: the instrument ends; not booked");
    default:
      c.type = "unknown";
      c.reason = `issuer type ${r.caType} has no booking rule`;
      return c;
  }
}

/**
 * The reason an unmatched change of a mint no issuer feed lists gives: what the chain did, and
 * how to explain it (an operator record). Records of the mint nearby that do not match are named.
 */
export function noIssuerFeedReason(c: Classified): string {
  const percent = mul(sub(c.chainFactor, ONE), rat(100));
  const shown = formatFixed(percent, 4).replace(/\.?0+$/, "");
  const nearby = c.match.kind === "none" && c.match.nearby.length ? ` (records within 36 h: ${c.match.nearby.map((e) => e.eventId).join(", ")})` : "";
  return `no issuer feed for this mint: a multiplier change of ${cmp(percent, ZERO) > 0 ? "+" : ""}${shown}% that no record explains${nearby}; `
    + "add one with `ca-ledger import issuer-records`";
}

function basisAllocation(c: Classified, proceeds: Rat | null): Classified {
  c.distributedFraction = distributed(c);
  c.factor = c.chainFactor;
  c.proceedsPerShare = positive(proceeds) ? proceeds : null;
  c.impliedPrice = impliedPrice(c.mOld, c.mNew, c.proceedsPerShare);
  if (c.revision) c.retentionRate = retentionRate(c.revision);
  return c;
}

function notBooked(c: Classified, type: ActionType, reason: string): Classified {
  c.type = type;
  c.reason = reason;
  return c;
}

/** Types whose factor changes the unit basis (prices and quantities are restated across them). */
export const BASIS_FACTOR_TYPES: ReadonlySet<ActionType> = new Set<ActionType>([
  "stock_dividend",
  "cash_and_stock_dividend",
  "forward_split",
  "reverse_split",
  "unit_split",
  "stock_merger",
  "identity_change",
]);

/** The type an issuer record announces, before any chain change exists to confirm it. */
export function announcedType(rev: IssuerRevisionObs): ActionType {
  const r = rev.record;
  const caType = r.caType.replace(/[\s_-]/g, "").toLowerCase();
  const map: Record<string, ActionType> = {
    cashdividend: isWithholdingRefund(rev) ? "withholding_adjustment" : "cash_dividend",
    cashandstockdividend: "cash_and_stock_dividend",
    stockdividend: "stock_dividend",
    forwardsplit: "forward_split",
    reversesplit: "reverse_split",
    unitsplit: "unit_split",
    cashinlieu: "cash_in_lieu",
    spinoff: "spin_off",
    rightsdistribution: "rights_distribution",
    stockmerger: (() => {
      const n = parseMergerNote(r.notes);
      return n && ticker(n.from) === ticker(n.to) ? "identity_change" : "stock_merger";
    })(),
    identitychange: "identity_change",
    cashmerger: "cash_merger",
    mixedmerger: "mixed_merger",
    redemption: "redemption",
    delisting: "delisting",
  };
  return map[caType] ?? "unknown";
}
