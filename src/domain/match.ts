// Matching a chain transition to issuer records (docs/matching.md#matching-rule): same mint, a revision that is not
// cancelled, M_old and M_new within 4 ulp of the chain values, effective within 36 h of the
// activation. Exactly one candidate event matches; none or several give `unknown` with a reason.
import { describeRevision } from "./issuer";
import type { IssuerRevisionObs } from "./observations";
import { issuerMultiplierMatches } from "./numbers";
import { type EventRevisions, matchableRevisions } from "./revisions";
import { unixFromIso } from "./time";
import type { ChainTransition } from "./types";

export const MATCH_WINDOW_SECONDS = 36 * 3600;

/**
 * The latest effective time the event's revisions state (unix seconds), or null when none does.
 * An announced event that never reached the chain is dropped once the clock passes it by more
 * than the window (src/domain/wallet.ts, and the engine's next clock change).
 */
export function latestEffectiveUnix(ev: EventRevisions): number | null {
  const effs = ev.revisions.map((r) => unixFromIso(r.record.effectiveTimeUtc)).filter((x): x is number => x !== null);
  return effs.length ? Math.max(...effs) : null;
}

export type MatchResult =
  | { kind: "matched"; event: EventRevisions; revision: IssuerRevisionObs; reason: string }
  | { kind: "none"; reason: string; nearby: EventRevisions[] }
  | { kind: "several"; reason: string; events: EventRevisions[] };

/** A mint's matchable revisions sorted by effective time, built once per mint. */
export interface MatchIndex {
  events: EventRevisions[];
  entries: { eff: number; event: EventRevisions; revision: IssuerRevisionObs }[];
}

export function buildMatchIndex(events: EventRevisions[]): MatchIndex {
  const entries: MatchIndex["entries"] = [];
  for (const event of events) {
    for (const revision of matchableRevisions(event)) {
      const eff = unixFromIso(revision.record.effectiveTimeUtc);
      if (eff !== null) entries.push({ eff, event, revision });
    }
  }
  // Within an event, versions stay ascending (stable sort on time, then version).
  entries.sort((a, b) => a.eff - b.eff || a.revision.record.version - b.revision.record.version);
  return { events, entries };
}

function inWindow(index: MatchIndex, t: ChainTransition): MatchIndex["entries"] {
  const lo = t.effectiveAtUnix - MATCH_WINDOW_SECONDS;
  const hi = t.effectiveAtUnix + MATCH_WINDOW_SECONDS;
  let a = 0;
  let b = index.entries.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (index.entries[m]!.eff < lo) a = m + 1;
    else b = m;
  }
  const out: MatchIndex["entries"] = [];
  for (let i = a; i < index.entries.length && index.entries[i]!.eff <= hi; i++) out.push(index.entries[i]!);
  return out;
}

const multipliersAgree = (r: IssuerRevisionObs, t: ChainTransition): boolean =>
  r.record.multiplierOld !== null &&
  r.record.multiplierNew !== null &&
  issuerMultiplierMatches(r.record.multiplierOld, t.multiplierOldF64) &&
  issuerMultiplierMatches(r.record.multiplierNew, t.multiplierNewF64);

/** `events` are the issuer events of the transition's mint (or their prebuilt index). */
export function matchTransition(t: ChainTransition, events: EventRevisions[] | MatchIndex): MatchResult {
  const index = Array.isArray(events) ? buildMatchIndex(events) : events;
  const byEvent = new Map<EventRevisions, IssuerRevisionObs[]>();
  for (const e of inWindow(index, t)) {
    const list = byEvent.get(e.event) ?? [];
    list.push(e.revision);
    byEvent.set(e.event, list);
  }
  const candidates: { event: EventRevisions; revision: IssuerRevisionObs }[] = [];
  const nearby: EventRevisions[] = [];
  for (const [ev, usable] of byEvent) {
    nearby.push(ev);
    const agreeing = usable.filter((r) => multipliersAgree(r, t)).sort((a, b) => a.record.version - b.record.version);
    // Within one event the highest agreeing version speaks (later corrections of the same change).
    if (agreeing.length) candidates.push({ event: ev, revision: agreeing[agreeing.length - 1]! });
  }
  if (candidates.length === 1) {
    const c = candidates[0]!;
    return {
      kind: "matched",
      event: c.event,
      revision: c.revision,
      reason: `issuer ${describeRevision(c.revision)} matches the chain multipliers`,
    };
  }
  if (candidates.length > 1) {
    const names = candidates.map((c) => describeRevision(c.revision));
    return {
      kind: "several",
      events: candidates.map((c) => c.event),
      reason: `several issuer records match: ${names.join("; ")}`,
    };
  }
  if (nearby.length === 0) return { kind: "none", reason: "no issuer record", nearby };
  // Each nearby event by its latest revision: what a person would look up.
  const names = nearby.map((e) => describeRevision(e.revisions[e.revisions.length - 1]!)).join("; ");
  return {
    kind: "none",
    nearby,
    reason: `no issuer record with matching multipliers (records within 36 h: ${names})`,
  };
}
