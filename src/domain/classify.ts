// From a matched (or unmatched) chain transition to a type and the per-share figures its booking
// needs. Mint-level: nothing here depends on a wallet. The chain is canonical: issuer figures are
// used only where they reconcile with what the chain did. Which record is which type, and what
// each type reads from it, is the type's entry in src/domain/rules.
import type { Classified } from "./classified";
import { buildMatchIndex, matchTransition, type MatchResult } from "./match";
import { cmp, div, formatFixed, liftF64, mul, ONE, rat, sub, ZERO } from "./numbers";
import type { IssuerRevisionObs } from "./observations";
import { applyPlausibility } from "./plausibility";
import type { EventRevisions } from "./revisions";
import { explain, ruleForRecord } from "./rules";
import { readRecord } from "./rules/rule";
import type { ActionType, ChainTransition } from "./types";

function unclassified(t: ChainTransition, match: MatchResult): Classified {
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
    cash: null,
    proceedsPerShare: null,
    distributedFraction: null,
    distributed: null,
    refundNote: null,
    underlying: null,
    impliedPrice: null,
    reconciled: true,
  };
}

export function classify(t: ChainTransition, match: MatchResult): Classified {
  const c = unclassified(t, match);
  if (match.kind !== "matched") return c;
  const reading = readRecord(match.revision, t);
  const rule = ruleForRecord(reading);
  if (!rule) {
    c.reason = `issuer type ${reading.record.caType} has no booking rule`;
    return c;
  }
  c.type = rule.type;
  rule.classify?.(c, reading);
  return c;
}

/**
 * The reason an unmatched change of a mint no issuer feed lists gives: what the chain did, and
 * how to explain it (an operator record). Records of the mint nearby that do not match are named.
 */
export function noIssuerFeedReason(c: Classified): string {
  const percent = mul(sub(c.chainFactor, ONE), rat(100));
  const shown = formatFixed(percent, 4).replace(/\.?0+$/, "");
  const nearby = c.match.kind === "none" && c.match.nearby.length ? ` (records within 36 h: ${c.match.nearby.map((e) => e.eventId).join(", ")})` : "";
  return `no issuer feed for this mint: a multiplier change of ${cmp(percent, ZERO) > 0 ? "+" : ""}${shown}% that no record explains${nearby}; ` + "add one with `ca-ledger import issuer-records`";
}

/** The type an issuer record announces, before any chain change exists to confirm it. */
export function announcedType(rev: IssuerRevisionObs): ActionType {
  return ruleForRecord(readRecord(rev, null))?.type ?? "unknown";
}

/**
 * A mint's chain changes matched and classified against its issuer events. Cash is then checked
 * for plausibility across the changes that took force (in activation order), and only then are
 * the reasons written, so they say what was finally booked.
 */
export function classifyMint(transitions: ChainTransition[], events: EventRevisions[]): { classified: Map<string, Classified>; live: Classified[] } {
  const classified = new Map<string, Classified>();
  const index = buildMatchIndex(events);
  for (const t of transitions) classified.set(t.key, classify(t, matchTransition(t, index)));
  const live = transitions
    .filter((t) => t.state !== "superseded")
    .sort((a, b) => a.effectiveAtUnix - b.effectiveAtUnix)
    .map((t) => classified.get(t.key)!);
  applyPlausibility(live);
  for (const c of classified.values()) c.reason = explain(c);
  return { classified, live };
}
