// Lifecycle of an action (docs/matching.md#lifecycle): issuer steps from every stored revision of the event,
// chain steps from the transition. The state is the last thing that happened, relative to `now`.
import type { IssuerRevisionObs } from "./observations";
import type { EventRevisions } from "./revisions";
import { isoFromUnix, unixFromIso } from "./time";
import type { ChainTransition, Lifecycle, LifecycleState, LifecycleStep, RevisionRef } from "./types";

const ref = (r: IssuerRevisionObs): RevisionRef => ({ eventId: r.record.eventId, version: r.record.version });
const issuerTime = (r: IssuerRevisionObs): string | null => r.record.createdTimeUtc ?? r.ingestedAt;

function issuerSteps(ev: EventRevisions, matchedVersion: number | null): LifecycleStep[] {
  const steps: LifecycleStep[] = [];
  let previous: IssuerRevisionObs | null = null;
  for (const r of ev.revisions) {
    const v = r.record.version;
    const standing = ev.standing.get(v);
    if (standing === "cancellation") {
      const target = ev.voids.get(v);
      steps.push({
        state: "reversed",
        at: issuerTime(r),
        revision: ref(r),
        supersedes: target !== undefined ? { eventId: ev.eventId, version: target } : null,
        note: `v${v} cancels ${target !== undefined ? `v${target}` : "nothing it names"}${r.record.notes ? `: ${r.record.notes.trim()}` : ""}`,
      });
      continue;
    }
    const isCorrection = r.record.status.toLowerCase() === "corrected" || (previous !== null && steps.length > 0);
    steps.push({
      state: isCorrection ? "corrected" : "announced",
      at: issuerTime(r),
      revision: ref(r),
      supersedes: previous ? ref(previous) : null,
      note:
        `v${v} ${r.record.status}` +
        (v === matchedVersion ? " (matched to the chain change)" : "") +
        (standing === "cancelled" ? " — later cancelled" : standing === "superseded" ? " — superseded by a later revision" : ""),
    });
    previous = r;
  }
  return steps;
}

export interface LifecycleInput {
  transition: ChainTransition | null;
  event: EventRevisions | null;
  matchedVersion: number | null;
  firstObservedActiveAt: string | null;
  now: number;
}

/**
 * `corrected` when an issuer revision of the matched event was stored after the change was first
 * seen in force: the booking made then had to be reversed and replaced.
 */
export function buildLifecycle(input: LifecycleInput): Lifecycle {
  const { transition: t, event: ev, matchedVersion } = input;
  const steps = ev ? issuerSteps(ev, matchedVersion) : [];
  let state: LifecycleState;
  if (!t) {
    // Announced only: nothing on chain. Every revision cancelled -> reversed.
    const live = ev ? ev.revisions.some((r) => ev.standing.get(r.record.version) === "standing") : false;
    state = live ? "announced" : "reversed";
  } else {
    const published = isoFromUnix(t.blockTimeUnix);
    if (t.effectiveAtUnix > t.blockTimeUnix) {
      steps.push({ state: "confirmed", at: published, revision: null, supersedes: null, note: `multiplier change scheduled on chain for ${t.scheduledAt}` });
    }
    if (t.state === "superseded") {
      steps.push({ state: "superseded", at: null, revision: null, supersedes: null, note: `schedule overwritten before activation by ${t.supersededBy}` });
      state = "superseded";
    } else if (t.state === "confirmed") {
      state = "confirmed";
    } else {
      steps.push({ state: "activated", at: t.effectiveAt, revision: null, supersedes: null, note: "multiplier in force" });
      state = "activated";
      const seen = unixFromIso(input.firstObservedActiveAt) ?? t.effectiveAtUnix;
      // Only revisions that can change this booking count: the matched one or earlier ones, and
      // cancellations. A later follow-on (a withholding refund) stands beside it instead.
      const late =
        ev?.all.filter((r) => (unixFromIso(r.ingestedAt) ?? 0) > seen && (r.record.version <= (matchedVersion ?? Number.MAX_SAFE_INTEGER) || ev.standing.get(r.record.version) === "cancellation")) ??
        [];
      if (late.length) {
        const last = late[late.length - 1]!;
        steps.push({
          state: "corrected",
          at: last.ingestedAt,
          revision: ref(last),
          supersedes: null,
          note: "issuer revision stored after the change was in force: booking reversed and replaced",
        });
        state = "corrected";
      }
    }
  }
  return { state, steps: byTime(steps) };
}

/** Steps in time order (untimed last), each ISO time parsed once; the sort is stable as before. */
function byTime(steps: LifecycleStep[]): LifecycleStep[] {
  const keyed = steps.map((step) => ({ step, at: unixFromIso(step.at) ?? Number.MAX_SAFE_INTEGER }));
  keyed.sort((a, b) => a.at - b.at);
  return keyed.map((k) => k.step);
}
