// Assembles the served ActionRecord (v2 list + detail + v1 projection) for one wallet and one
// chain transition, announced issuer event or custody transfer. JSON-safe: exact decimals as
// strings, ISO times, null where unknown.
import type { PlainActionInput, TransitionActionInput } from "./action-inputs";
import type { Classified } from "./classified";
import { quantityForPeople, uiChange } from "./display";
import { canonicalJson, sha256Hex } from "./evidence";
import { formatDecimal, formatExact, type Rat, sub } from "./numbers";
import type { IssuerRevisionObs } from "./observations";
import type { EventRevisions } from "./revisions";
import { projectV1, ruleOf, type TypeRule } from "./rules";
import type { ActionRecord, ChainEvidence, ChainTransition, RevisionView, V1Projection } from "./types";
import { percentOf } from "./v1";

export const actionId = (owner: string, key: string): string => `act_${sha256Hex(`${owner}|${key}`).slice(0, 24)}`;

/**
 * What the action's evidence hash covers: only stored inputs (the chain transition, the matched
 * revision's own hash, the wallet's raw balance), so anyone can recompute it from stored data.
 */
export function actionEvidencePayload(a: Pick<ActionRecord, "owner" | "mint" | "transitionKey" | "chain" | "matched" | "rawBalance">) {
  return {
    owner: a.owner,
    mint: a.mint,
    transitionKey: a.transitionKey,
    chain: {
      signature: a.chain.signature,
      slot: a.chain.slot,
      blockTime: a.chain.blockTime,
      multiplierOld: a.chain.multiplierOld,
      multiplierNew: a.chain.multiplierNew,
      scheduledAt: a.chain.scheduledAt,
      effectiveAt: a.chain.effectiveAt,
    },
    matchedRevisionSha256: a.matched?.sha256 ?? null,
    rawBalance: a.rawBalance,
  };
}

// canonicalJson of the payload, with its keys written out in RFC 8785 order: the generic encoder
// sorts every object's keys on every call, and this runs once per action of every wallet.
// Every value here is a string, a number or null (never undefined), so nothing is omitted; the
// property tests recompute the hash with the generic encoder.
const chainJson = (c: ChainEvidence): string =>
  `{"blockTime":${canonicalJson(c.blockTime)},"effectiveAt":${canonicalJson(c.effectiveAt)},"multiplierNew":${canonicalJson(c.multiplierNew)},` +
  `"multiplierOld":${canonicalJson(c.multiplierOld)},"scheduledAt":${canonicalJson(c.scheduledAt)},"signature":${canonicalJson(c.signature)},"slot":${canonicalJson(c.slot)}}`;

function evidenceJson(a: Parameters<typeof actionEvidencePayload>[0], chain: string): string {
  const p = actionEvidencePayload(a);
  return `{"chain":${chain},"matchedRevisionSha256":${canonicalJson(p.matchedRevisionSha256)},"mint":${canonicalJson(p.mint)},"owner":${canonicalJson(p.owner)},"rawBalance":${canonicalJson(p.rawBalance)},"transitionKey":${canonicalJson(p.transitionKey)}}`;
}

/** The chain part of a transition's payload is the same for every wallet: encode it once. */
const transitionChainJson = new WeakMap<ChainTransition, string>();

export const evidenceSha256Of = (a: Parameters<typeof actionEvidencePayload>[0], chain: string = chainJson(a.chain)): string => sha256Hex(evidenceJson(a, chain));

/** The views of an event are the same on every wallet's action: build them once per event. */
const eventViews = new WeakMap<EventRevisions, RevisionView[]>();

export function revisionViews(ev: EventRevisions | null): RevisionView[] {
  if (!ev) return [];
  let views = eventViews.get(ev);
  if (!views) eventViews.set(ev, (views = buildRevisionViews(ev)));
  return views;
}

function buildRevisionViews(ev: EventRevisions): RevisionView[] {
  return ev.all.map((r) => ({
    eventId: r.record.eventId,
    version: r.record.version,
    status: r.record.status,
    caType: r.record.caType,
    sha256: r.sha256,
    ingestedAt: r.ingestedAt,
    edited: r.edited,
    source: r.source ?? "xstocks",
    standing: ev.standing.get(r.record.version) ?? "standing",
    record: r.record,
  }));
}

const fmt = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r));
const money = (r: Rat | null): string | null => (r === null ? null : formatExact(r));

/** What a transition shows the same on every wallet's action: built once per transition. */
interface TransitionView {
  rule: TypeRule;
  factor: string | null;
  splitFactor: string | null;
  distributedFraction: string | null;
  withholdingTaxRate: string | null;
  retentionRate: string | null;
  v1: V1Projection;
}
const transitionViews = new WeakMap<Classified, TransitionView>();

function transitionView(c: Classified): TransitionView {
  let view = transitionViews.get(c);
  if (view) return view;
  const rule = ruleOf(c.type);
  const factor = rule.restatesBasis && c.factor ? formatDecimal(c.factor) : null;
  const percent = c.distributedFraction ? percentOf(c.distributedFraction) : null;
  view = {
    rule,
    factor,
    splitFactor: rule.v1Kind === "split" ? factor : null,
    distributedFraction: fmt(c.distributedFraction),
    withholdingTaxRate: fmt(c.cash?.withholdingTaxRate ?? null),
    retentionRate: fmt(c.cash?.retentionRate ?? null),
    v1: projectV1({ type: c.type, factor, percent, reason: c.reason, refundNote: c.refundNote, netPerShare: c.cash?.net ?? null }),
  };
  transitionViews.set(c, view);
  return view;
}

export function transitionAction(i: TransitionActionInput): ActionRecord {
  const { c, facts: f } = i;
  const t = c.transition;
  const view = transitionView(c);
  const rule = view.rule;
  const rev: IssuerRevisionObs | null = c.revision;
  const chain: ChainEvidence = {
    signature: t.signature,
    slot: t.slot,
    blockTime: t.blockTime,
    multiplierOld: t.multiplierOld,
    multiplierNew: t.multiplierNew,
    scheduledAt: t.scheduledAt,
    effectiveAt: t.effectiveAt,
    updateSignature: t.signature,
  };
  const id = actionId(i.owner, t.key);
  const lineageLink = i.lineageLink ? { ...i.lineageLink, actionId: id } : null;
  const base = {
    owner: i.owner,
    mint: t.mint,
    transitionKey: t.key,
    chain,
    matched: rev ? { eventId: rev.record.eventId, version: rev.record.version, sha256: rev.sha256 } : null,
    rawBalance: i.raw.toString(),
  };
  let chainText = transitionChainJson.get(t);
  if (chainText === undefined) transitionChainJson.set(t, (chainText = chainJson(chain)));
  const evidenceSha256 = evidenceSha256Of(base, chainText);
  const warnings = [...c.warnings, ...f.warnings];
  return {
    id,
    ...base,
    symbol: i.symbol,
    decimals: i.decimals,
    type: c.type,
    treatment: rule.treatment,
    category: rule.category,
    // What the holder's wallet showed changing, as the Token-2022 program renders it.
    quantityDisplay: uiChange(i.raw, t.multiplierOldF64, t.multiplierNewF64, i.decimals),
    unitsBefore: formatExact(f.u0),
    unitsAfter: formatExact(f.u1),
    incomeUnits: formatExact(f.incomeUnits),
    usd: money(f.usd),
    grossUsd: money(f.grossUsd),
    withholdingTaxRate: view.withholdingTaxRate,
    withholdingTaxUsd: money(f.withholdingUsd),
    retentionRate: view.retentionRate,
    retainedUsd: money(f.retainedUsd),
    factor: view.factor,
    splitFactor: view.splitFactor,
    distributedFraction: view.distributedFraction,
    proceedsUsd: money(f.proceedsUsd),
    underlying: c.underlying,
    refundNote: c.refundNote,
    warnings,
    reason: c.reason,
    lifecycle: i.lifecycle,
    timestamps: {
      issuerEffectiveAt: rev?.record.effectiveTimeUtc ?? null,
      issuerCreatedAt: rev?.record.createdTimeUtc ?? null,
      configuredActivationAt: t.scheduledAt,
      publicationBlockTime: t.blockTime,
      firstObservedActiveAt: i.firstObservedActiveAt,
      ingestedAt: rev?.ingestedAt ?? null,
    },
    effectiveAt: t.effectiveAt,
    revisions: revisionViews(i.event),
    lineageLink,
    v1: view.v1,
    evidence: {
      chainKey: t.key,
      matchedRevisionSha256: rev?.sha256 ?? null,
      revisionCount: i.event?.all.length ?? 0,
      rawBalance: base.rawBalance,
      payloadSha256: evidenceSha256,
    },
    evidenceSha256,
  };
}

const NULL_CHAIN: ChainEvidence = {
  signature: null,
  slot: null,
  blockTime: null,
  multiplierOld: null,
  multiplierNew: null,
  scheduledAt: null,
  effectiveAt: null,
  updateSignature: null,
};

/** Actions without a multiplier change of their own: announced issuer events and custody transfers. */
export function plainAction(i: PlainActionInput): ActionRecord {
  const rule = ruleOf(i.type);
  const chain = i.chain ?? NULL_CHAIN;
  const base = {
    owner: i.owner,
    mint: i.mint,
    transitionKey: i.chain ? i.key : null,
    chain,
    matched: i.revision ? { eventId: i.revision.record.eventId, version: i.revision.record.version, sha256: i.revision.sha256 } : null,
    rawBalance: i.raw.toString(),
  };
  const evidenceSha256 = evidenceSha256Of(base);
  const delta = sub(i.unitsAfter, i.unitsBefore);
  return {
    id: actionId(i.owner, i.key),
    ...base,
    symbol: i.symbol,
    decimals: i.decimals,
    type: i.type,
    treatment: rule.treatment,
    category: rule.category,
    quantityDisplay: i.quantityDisplay ?? quantityForPeople(delta, i.decimals),
    unitsBefore: formatExact(i.unitsBefore),
    unitsAfter: formatExact(i.unitsAfter),
    incomeUnits: "0",
    usd: null,
    grossUsd: null,
    withholdingTaxRate: null,
    withholdingTaxUsd: null,
    retentionRate: null,
    retainedUsd: null,
    factor: null,
    splitFactor: null,
    distributedFraction: null,
    proceedsUsd: null,
    underlying: null,
    refundNote: null,
    warnings: i.warnings ?? [],
    reason: i.reason,
    lifecycle: i.lifecycle,
    timestamps: {
      issuerEffectiveAt: i.revision?.record.effectiveTimeUtc ?? null,
      issuerCreatedAt: i.revision?.record.createdTimeUtc ?? null,
      configuredActivationAt: chain.scheduledAt,
      publicationBlockTime: chain.blockTime,
      firstObservedActiveAt: null,
      ingestedAt: i.revision?.ingestedAt ?? null,
    },
    effectiveAt: i.effectiveAt,
    revisions: revisionViews(i.event),
    lineageLink: null,
    v1: projectV1({ type: "unknown", factor: null, percent: null, reason: i.reason, refundNote: null, netPerShare: null }),
    evidence: {
      chainKey: base.transitionKey,
      matchedRevisionSha256: i.revision?.sha256 ?? null,
      revisionCount: i.event?.all.length ?? 0,
      rawBalance: base.rawBalance,
      payloadSha256: evidenceSha256,
    },
    evidenceSha256,
  };
}
