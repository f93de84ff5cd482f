// The standing recognition each (owner, action) wants, and the append-only diff against what the
// journal already holds: unchanged bookings append nothing, changed ones get a reversal and a new
// recognition with the reason for the change. "Changed" means a figure changed: a new issuer
// revision that changes none (an edit of its notes) leaves the standing entry as it is, citing the
// evidence it was booked on (docs/journal.md#revisions-that-change-no-figure).
import type { ActionRecord, ChangeReason, JournalBooking, JournalDiff } from "./types";

/** Bookings exist only for changes in force (activated or corrected); pending ones book nothing yet. */
/** `unitsDelta` = U1 − U0 exactly; `principalUnitsDelta` = the part that is not income units. */
export function bookingFor(a: ActionRecord, unitsDelta: string, principalUnitsDelta: string): JournalBooking | null {
  if (a.lifecycle.state !== "activated" && a.lifecycle.state !== "corrected") return null;
  if (a.transitionKey === null && a.type !== "seizure") return null;
  return {
    owner: a.owner,
    actionId: a.id,
    mint: a.mint,
    symbol: a.symbol,
    type: a.type,
    treatment: a.treatment,
    kind: a.v1.kind,
    unitsDelta,
    principalUnitsDelta,
    incomeUnits: a.incomeUnits,
    usd: a.usd,
    grossUsd: a.grossUsd,
    withholdingTaxRate: a.withholdingTaxRate,
    withholdingTaxUsd: a.withholdingTaxUsd,
    retentionRate: a.retentionRate,
    retainedUsd: a.retainedUsd,
    factor: a.factor,
    effectiveAt: a.effectiveAt,
    evidenceSha256: a.evidenceSha256,
  };
}

const keyOf = (b: JournalBooking): string => `${b.owner}|${b.actionId}`;

/** The income breakdown: absent on bookings written before it existed, which read as null. */
const BREAKDOWN = ["grossUsd", "withholdingTaxRate", "withholdingTaxUsd", "retentionRate", "retainedUsd"] as const;

const FIELDS: (keyof JournalBooking)[] = [
  "owner",
  "actionId",
  "mint",
  "symbol",
  "type",
  "treatment",
  "kind",
  "unitsDelta",
  "principalUnitsDelta",
  "incomeUnits",
  "usd",
  ...BREAKDOWN,
  "factor",
  "effectiveAt",
  "evidenceSha256",
];

/** Everything a booking states but the evidence it cites. */
const FIGURES = FIELDS.filter((f) => f !== "evidenceSha256");

/** The same figures: what the journal states is unchanged, whichever evidence each cites. */
export const sameFigures = (a: JournalBooking, b: JournalBooking): boolean => FIGURES.every((f) => (a[f] ?? null) === (b[f] ?? null));

/** Why a standing booking must be replaced by a wanted one. */
export function changeReasonOf(old: JournalBooking, next: JournalBooking): ChangeReason {
  if (old.unitsDelta !== next.unitsDelta || old.principalUnitsDelta !== next.principalUnitsDelta) return "new balance history";
  if (old.type !== next.type || old.treatment !== next.treatment || old.kind !== next.kind || old.factor !== next.factor || old.evidenceSha256 !== next.evidenceSha256) {
    return "issuer correction";
  }
  if (old.usd !== next.usd || old.incomeUnits !== next.incomeUnits || BREAKDOWN.some((f) => (old[f] ?? null) !== (next[f] ?? null))) return "valuation change";
  return "issuer correction";
}

function negate(s: string | null): string | null {
  if (s === null) return null;
  if (/^-?0(\.0+)?$/.test(s)) return s.replace(/^-/, "");
  return s.startsWith("-") ? s.slice(1) : "-" + s;
}

/** A reversal carries the standing entry's amounts negated (rates unchanged), so a plain sum of the journal stands. */
export function reversalOf(b: JournalBooking): JournalBooking {
  return {
    ...b,
    unitsDelta: negate(b.unitsDelta)!,
    principalUnitsDelta: negate(b.principalUnitsDelta)!,
    incomeUnits: negate(b.incomeUnits)!,
    usd: negate(b.usd),
    grossUsd: negate(b.grossUsd ?? null),
    withholdingTaxUsd: negate(b.withholdingTaxUsd ?? null),
    retainedUsd: negate(b.retainedUsd ?? null),
  };
}

export function diffJournal(existingStanding: JournalBooking[], wanted: JournalBooking[]): JournalDiff {
  const standing = new Map(existingStanding.map((b) => [keyOf(b), b]));
  const want = new Map(wanted.map((b) => [keyOf(b), b]));
  const reversals: JournalDiff["reversals"] = [];
  const recognitions: JournalDiff["recognitions"] = [];
  const restated: JournalBooking[] = [];
  for (const [k, old] of standing) {
    const next = want.get(k);
    if (!next) reversals.push({ booking: old, changeReason: "no longer applicable" });
    else if (!sameFigures(old, next)) {
      const reason = changeReasonOf(old, next);
      reversals.push({ booking: old, changeReason: reason });
      recognitions.push({ booking: next, changeReason: reason });
    } else if (old.evidenceSha256 !== next.evidenceSha256) restated.push(next);
  }
  for (const [k, next] of want) if (!standing.has(k)) recognitions.push({ booking: next, changeReason: null });
  const reasons = new Set([...reversals.map((r) => r.changeReason)]);
  return { reversals, recognitions, restated, changeReason: reasons.size === 1 ? [...reasons][0]! : null };
}
