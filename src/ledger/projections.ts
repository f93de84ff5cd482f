// What each read model shows of an engine ActionRecord. Computed once, when the action is
// written, so list reads only load stored JSON. An action's `validation` is not stored with it:
// it is the census of its type across the whole ledger, which changes whenever any mint's census
// does, so the v2 reads add it per request (queries/actions.ts).
//
// Nor are the issuer's records copied into every wallet's action: each revision is stored once,
// in issuer_revisions, under its own hash, and the stored action names it by that hash (the
// stored form below). The detail reads put the records back (queries/actions.ts). An event's
// records repeated in every wallet holding the mint made most of the database.
import type { ActionRecord, RevisionView } from "../domain/types.ts";

/** A revision as an action stores it: its record left out, found by `sha256` in issuer_revisions. */
export type StoredRevision = Omit<RevisionView, "record">;
export type StoredAction = Omit<ActionRecord, "revisions"> & { revisions: StoredRevision[] };

/** What is stored (and hashed as `payload_sha256`) for an action. */
export function storedAction(a: ActionRecord | StoredAction): StoredAction {
  return { ...a, revisions: a.revisions.map(({ record: _record, ...rest }: StoredRevision & { record?: unknown }) => rest) };
}

/** The time an action is listed by: the activation the chain wrote, else (announced) the issuer's. */
export function actionListedAt(a: ActionRecord | StoredAction): string {
  return a.effectiveAt ?? a.timestamps.issuerEffectiveAt ?? "";
}

export function actionSummary(a: ActionRecord | StoredAction) {
  return {
    id: a.id, owner: a.owner, mint: a.mint, symbol: a.symbol, type: a.type, treatment: a.treatment, category: a.category,
    quantityDisplay: a.quantityDisplay, usd: a.usd, effectiveAt: a.effectiveAt, lifecycle: { state: a.lifecycle.state },
    evidence: a.evidence, evidenceSha256: a.evidenceSha256, factor: a.factor,
    distributedFraction: a.distributedFraction, proceedsUsd: a.proceedsUsd, underlying: a.underlying, refundNote: a.refundNote,
    retentionRate: a.retentionRate, warnings: a.warnings, reason: a.reason, splitFactor: a.splitFactor,
  };
}
export type ActionSummary = ReturnType<typeof actionSummary>;

/** The v2 detail without the parts read per request (dataset label, journal entries). */
export function actionDetailBase(a: StoredAction) {
  return {
    ...actionSummary(a),
    decimals: a.decimals, unitsBefore: a.unitsBefore, unitsAfter: a.unitsAfter, rawBalance: a.rawBalance, incomeUnits: a.incomeUnits,
    lifecycle: a.lifecycle, timestamps: a.timestamps,
    chain: {
      signature: a.chain.signature, slot: a.chain.slot, blockTime: a.chain.blockTime, multiplierOld: a.chain.multiplierOld, multiplierNew: a.chain.multiplierNew,
      scheduledAt: a.chain.scheduledAt, effectiveAt: a.chain.effectiveAt, updateSignature: a.chain.updateSignature,
    },
    matched: a.matched,
    revisions: a.revisions,
    lineageLink: a.lineageLink,
  };
}

/** v1 shows only what the chain did: an action that is only announced has no v1 entry. */
export function v1Entry(a: ActionRecord | StoredAction) {
  if (a.transitionKey === null || a.effectiveAt === null) return null;
  if (a.lifecycle.state === "superseded" || a.lifecycle.state === "confirmed" || a.lifecycle.state === "reversed") return null;
  return {
    id: a.id, owner: a.owner, mint: a.mint, symbol: a.symbol, kind: a.v1.kind, splitFactor: a.v1.splitFactor,
    headline: a.v1.headline, reasons: a.v1.reasons, effectiveAt: a.effectiveAt, quantityDisplay: a.quantityDisplay,
    incomeUnits: a.incomeUnits, usd: a.treatment === "income" ? a.usd : null, warnings: a.warnings, evidenceSha256: a.evidenceSha256,
  };
}
export type V1Entry = NonNullable<ReturnType<typeof v1Entry>>;
