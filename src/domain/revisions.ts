// How the stored revisions of one issuer event relate: which cancel which, which stand, which a
// later revision replaced. Every revision stays visible; this only labels them.
import type { IssuerRevisionObs } from "./observations";
import { cmp, tryParseDecimal, ZERO } from "./numbers";

export type RevisionStanding = "standing" | "cancelled" | "superseded" | "cancellation";

export interface EventRevisions {
  eventId: string;
  /** One per version (the latest observation of an edited version), ascending version. */
  revisions: IssuerRevisionObs[];
  /** Every stored observation, edited duplicates included, ascending version then ingestion. */
  all: IssuerRevisionObs[];
  standing: Map<number, RevisionStanding>;
  /** version -> the version a cancellation voids. */
  voids: Map<number, number>;
}

export const isCancellation = (r: IssuerRevisionObs): boolean => r.record.status.toLowerCase() === "cancelled";

/** A Corrected follow-on that passes back withheld tax: gross 0, net > 0. It stands beside the original. */
export function isWithholdingRefund(r: IssuerRevisionObs): boolean {
  if (r.record.status.toLowerCase() !== "corrected") return false;
  const gross = tryParseDecimal(r.record.grossCashflowUsd);
  const net = tryParseDecimal(r.record.netCashflowUsd);
  return gross !== null && cmp(gross, ZERO) === 0 && net !== null && cmp(net, ZERO) > 0;
}

const CANCEL_RE = /\[CANCELLED v(\d+)\]/i;

export function groupEvents(revs: IssuerRevisionObs[]): Map<string, EventRevisions> {
  const byEvent = new Map<string, IssuerRevisionObs[]>();
  for (const r of revs) {
    const list = byEvent.get(r.record.eventId) ?? [];
    list.push(r);
    byEvent.set(r.record.eventId, list);
  }
  const out = new Map<string, EventRevisions>();
  for (const [eventId, list] of byEvent) out.set(eventId, analyseEvent(eventId, list));
  return out;
}

export function analyseEvent(eventId: string, list: IssuerRevisionObs[]): EventRevisions {
  const all = [...list].sort((a, b) => a.record.version - b.record.version || a.ingestedAt.localeCompare(b.ingestedAt));
  const latest = new Map<number, IssuerRevisionObs>();
  for (const r of all) latest.set(r.record.version, r); // later ingestion of the same version wins
  const revisions = [...latest.values()].sort((a, b) => a.record.version - b.record.version);
  const standing = new Map<number, RevisionStanding>();
  const voids = new Map<number, number>();
  for (const r of revisions) standing.set(r.record.version, isCancellation(r) ? "cancellation" : "standing");
  // A cancellation names the revision it voids; without a name it voids the latest earlier one.
  for (const r of revisions) {
    if (!isCancellation(r)) continue;
    const named = CANCEL_RE.exec(r.record.notes ?? "");
    let target: number | null = named ? Number(named[1]) : null;
    if (target === null) {
      const earlier = revisions.filter((x) => x.record.version < r.record.version && standing.get(x.record.version) === "standing");
      target = earlier.length ? earlier[earlier.length - 1]!.record.version : null;
    }
    if (target !== null && standing.has(target) && standing.get(target) !== "cancellation") {
      standing.set(target, "cancelled");
      voids.set(r.record.version, target);
    }
  }
  // A later standing revision replaces an earlier one, except a withholding refund, which is a
  // follow-on beside the original rather than a replacement.
  const live = revisions.filter((r) => standing.get(r.record.version) === "standing");
  for (const r of live) {
    const later = live.some((x) => x.record.version > r.record.version && !isWithholdingRefund(x));
    if (later && !isWithholdingRefund(r)) standing.set(r.record.version, "superseded");
  }
  return { eventId, revisions, all, standing, voids };
}

/** Revisions that may match a chain change: not cancelled, not cancellations. */
export const matchableRevisions = (ev: EventRevisions): IssuerRevisionObs[] =>
  ev.revisions.filter((r) => {
    const s = ev.standing.get(r.record.version);
    return s === "standing" || s === "superseded";
  });

/** The revision that currently speaks for the event (highest standing version), if any. */
export function currentRevision(ev: EventRevisions): IssuerRevisionObs | null {
  const live = ev.revisions.filter((r) => ev.standing.get(r.record.version) === "standing");
  return live.length ? live[live.length - 1]! : null;
}
