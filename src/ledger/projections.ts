// What each read model shows of an engine ActionRecord. Computed once, when the action is
// written, so list reads only load stored JSON. Amounts are shown for people by one rounding rule
// (src/domain/display.ts); each item keeps the exact values under `exact`. An action's
// `validation` is not stored with it: it is the census of its type across the whole ledger, which
// changes whenever any mint's census does, so the v2 reads add it per request (queries/actions.ts).
import { quantityForPeople, uiAmount, usdTextForPeople } from "../domain/display.ts";
import { add, eq, formatExact, nearestF64, parseDecimal, sub } from "../domain/numbers.ts";
import type { ActionRecord } from "../domain/types.ts";

/** The time an action is listed by: the activation the chain wrote, else (announced) the issuer's. */
export function actionListedAt(a: ActionRecord): string {
  return a.effectiveAt ?? a.timestamps.issuerEffectiveAt ?? "";
}

// The income breakdown; actions stored before it existed lack the fields, which read as null.
const breakdown = (a: ActionRecord) => ({
  usd: a.usd,
  grossUsd: a.grossUsd ?? null,
  withholdingTaxUsd: a.withholdingTaxUsd ?? null,
  retainedUsd: a.retainedUsd ?? null,
});

/** The breakdown as people read it, rates as the issuer published them. */
function incomeShown(a: ActionRecord) {
  const x = breakdown(a);
  return {
    usd: usdTextForPeople(x.usd),
    grossUsd: usdTextForPeople(x.grossUsd),
    withholdingTaxRate: a.withholdingTaxRate ?? null,
    withholdingTaxUsd: usdTextForPeople(x.withholdingTaxUsd),
    retentionRate: a.retentionRate ?? null,
    retainedUsd: usdTextForPeople(x.retainedUsd),
  };
}

/**
 * Units as the holder's wallet showed them: before is the program's rendering of the raw balance
 * at the old multiplier, after is before plus the displayed change, and income units are that
 * change when they are the whole of it (else rounded at the mint's decimals).
 */
function unitsShown(a: ActionRecord) {
  const multiplier = a.chain.multiplierOld;
  const before = multiplier === null ? quantityForPeople(parseDecimal(a.unitsBefore), a.decimals) : uiAmount(BigInt(a.rawBalance), nearestF64(parseDecimal(multiplier)), a.decimals);
  const after = formatExact(add(parseDecimal(before), parseDecimal(a.quantityDisplay)));
  const income = parseDecimal(a.incomeUnits);
  const whole = income.n !== 0n && eq(income, sub(parseDecimal(a.unitsAfter), parseDecimal(a.unitsBefore)));
  return { unitsBefore: before, unitsAfter: after, incomeUnits: whole ? a.quantityDisplay : quantityForPeople(income, a.decimals) };
}

export function actionSummary(a: ActionRecord) {
  return {
    id: a.id,
    owner: a.owner,
    mint: a.mint,
    symbol: a.symbol,
    type: a.type,
    treatment: a.treatment,
    category: a.category,
    quantityDisplay: a.quantityDisplay,
    ...incomeShown(a),
    effectiveAt: a.effectiveAt,
    lifecycle: { state: a.lifecycle.state },
    evidence: a.evidence,
    evidenceSha256: a.evidenceSha256,
    factor: a.factor,
    distributedFraction: a.distributedFraction,
    proceedsUsd: usdTextForPeople(a.proceedsUsd),
    underlying: a.underlying,
    refundNote: a.refundNote,
    warnings: a.warnings,
    reason: a.reason,
    splitFactor: a.splitFactor,
    exact: { ...breakdown(a), proceedsUsd: a.proceedsUsd },
  };
}
export type ActionSummary = ReturnType<typeof actionSummary>;

/** The v2 detail without the parts read per request (dataset label, journal entries). */
export function actionDetailBase(a: ActionRecord) {
  const summary = actionSummary(a);
  return {
    ...summary,
    decimals: a.decimals,
    ...unitsShown(a),
    rawBalance: a.rawBalance,
    lifecycle: a.lifecycle,
    timestamps: a.timestamps,
    chain: {
      signature: a.chain.signature,
      slot: a.chain.slot,
      blockTime: a.chain.blockTime,
      multiplierOld: a.chain.multiplierOld,
      multiplierNew: a.chain.multiplierNew,
      scheduledAt: a.chain.scheduledAt,
      effectiveAt: a.chain.effectiveAt,
      updateSignature: a.chain.updateSignature,
    },
    matched: a.matched,
    revisions: a.revisions,
    lineageLink: a.lineageLink,
    exact: { ...summary.exact, unitsBefore: a.unitsBefore, unitsAfter: a.unitsAfter, incomeUnits: a.incomeUnits },
  };
}

/** v1 shows only what the chain did: an action that is only announced has no v1 entry. */
export function v1Entry(a: ActionRecord) {
  if (a.transitionKey === null || a.effectiveAt === null) return null;
  if (a.lifecycle.state === "superseded" || a.lifecycle.state === "confirmed" || a.lifecycle.state === "reversed") return null;
  // v1 values only income: the same breakdown as v2, nulls on every other kind.
  const income = a.treatment === "income";
  const shown = income ? incomeShown(a) : { usd: null, grossUsd: null, withholdingTaxRate: null, withholdingTaxUsd: null, retentionRate: null, retainedUsd: null };
  const exact = income ? breakdown(a) : { usd: null, grossUsd: null, withholdingTaxUsd: null, retainedUsd: null };
  return {
    id: a.id,
    owner: a.owner,
    mint: a.mint,
    symbol: a.symbol,
    kind: a.v1.kind,
    splitFactor: a.v1.splitFactor,
    headline: a.v1.headline,
    reasons: a.v1.reasons,
    effectiveAt: a.effectiveAt,
    quantityDisplay: a.quantityDisplay,
    incomeUnits: unitsShown(a).incomeUnits,
    ...shown,
    warnings: a.warnings,
    evidenceSha256: a.evidenceSha256,
    exact: { incomeUnits: a.incomeUnits, ...exact },
  };
}
export type V1Entry = NonNullable<ReturnType<typeof v1Entry>>;
