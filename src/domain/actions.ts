// Assembles the served ActionRecord (v2 list + detail + v1 projection) for one wallet and one
// chain transition, announced issuer event or custody transfer. JSON-safe: exact decimals as
// strings, ISO times, null where unknown.
import type { BookingFacts } from "./book";
import { BASIS_FACTOR_TYPES, type Classified } from "./classify";
import { canonicalJson, sha256Hex } from "./evidence";
import { formatDecimal, formatExact, formatFixed, formatScaled, mul, pow10, rat, type Rat, sub } from "./numbers";
import type { IssuerRevisionObs } from "./observations";
import type { EventRevisions } from "./revisions";
import { typeInfo } from "./taxonomy";
import type {
  ActionRecord,
  ActionType,
  ChainEvidence,
  ChainTransition,
  Lifecycle,
  LineageLinkView,
  RevisionView,
} from "./types";
import { projectV1 } from "./v1";

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

export const evidenceSha256Of = (a: Parameters<typeof actionEvidencePayload>[0], chain: string = chainJson(a.chain)): string =>
  sha256Hex(evidenceJson(a, chain));

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

/** Display quantity as a wallet shows it: trunc(raw × M) / 10^d. */
export function displayUnits(raw: bigint, m: Rat, decimals: number): Rat {
  return rat(displayRaw(raw, m), pow10(decimals));
}

/** trunc(raw × M), the integer a wallet displays in units of 10^-d (BigInt division truncates). */
const displayRaw = (raw: bigint, m: Rat): bigint => (raw * m.n) / m.d;

const fmt = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r));
const money = (r: Rat | null): string | null => (r === null ? null : formatExact(r));

const SPLIT_TYPES = new Set<ActionType>(["forward_split", "reverse_split", "unit_split"]);

export interface TransitionActionInput {
  owner: string;
  symbol: string;
  decimals: number;
  raw: bigint;
  c: Classified;
  facts: BookingFacts;
  event: EventRevisions | null;
  lifecycle: Lifecycle;
  firstObservedActiveAt: string | null;
}

export function transitionAction(i: TransitionActionInput): ActionRecord {
  const { c, facts: f } = i;
  const t = c.transition;
  const info = typeInfo(c.type);
  const rev: IssuerRevisionObs | null = c.revision;
  const factor = BASIS_FACTOR_TYPES.has(c.type) && c.factor ? formatDecimal(c.factor) : null;
  const percent = c.distributedFraction ? formatDecimal(mul(c.distributedFraction, rat(100)), 4) : null;
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
  const lineageLink: LineageLinkView | null =
    info.treatment === "identity"
      ? {
          type: "identity_change",
          from: c.underlying?.from ?? i.symbol,
          to: c.underlying?.to ?? i.symbol,
          basisFraction: "1",
          cashFraction: "0",
          at: t.effectiveAt,
          actionId: id,
        }
      : null;
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
  // Difference of the two displayed quantities, in units of 10^-d: already at display precision.
  const display = displayRaw(i.raw, c.mNew) - displayRaw(i.raw, c.mOld);
  return {
    id,
    ...base,
    symbol: i.symbol,
    decimals: i.decimals,
    type: c.type,
    treatment: info.treatment,
    category: info.category,
    quantityDisplay: formatScaled(display, i.decimals),
    unitsBefore: formatExact(f.u0),
    unitsAfter: formatExact(f.u1),
    incomeUnits: formatExact(f.incomeUnits),
    usd: money(f.usd),
    factor,
    splitFactor: SPLIT_TYPES.has(c.type) ? factor : null,
    distributedFraction: fmt(c.distributedFraction),
    proceedsUsd: money(f.proceedsUsd),
    underlying: c.underlying,
    refundNote: c.refundNote,
    retentionRate: fmt(c.retentionRate),
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
    v1: projectV1({ type: c.type, factor, percent, reason: c.reason, refundNote: c.refundNote }),
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

export interface PlainActionInput {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  key: string;
  type: ActionType;
  reason: string;
  raw: bigint;
  unitsBefore: Rat;
  unitsAfter: Rat;
  effectiveAt: string | null;
  event: EventRevisions | null;
  revision: IssuerRevisionObs | null;
  lifecycle: Lifecycle;
  chain?: ChainEvidence;
  warnings?: string[];
}

/** Actions without a multiplier change of their own: announced issuer events and custody transfers. */
export function plainAction(i: PlainActionInput): ActionRecord {
  const info = typeInfo(i.type);
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
    treatment: info.treatment,
    category: info.category,
    quantityDisplay: formatFixed(delta, i.decimals),
    unitsBefore: formatExact(i.unitsBefore),
    unitsAfter: formatExact(i.unitsAfter),
    incomeUnits: "0",
    usd: null,
    factor: null,
    splitFactor: null,
    distributedFraction: null,
    proceedsUsd: null,
    underlying: null,
    refundNote: null,
    retentionRate: null,
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
    v1: projectV1({ type: "unknown", factor: null, percent: null, reason: i.reason, refundNote: null }),
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
