// The one total order in which a tenant's events are applied (docs/lots.md#order): by time; at
// the same millisecond corporate actions before movements (a transfer in the second a multiplier
// takes force already carries the new multiplier); movements grouped by transaction, and within
// one transaction every out before any in (so an own transfer's lots have left before they
// arrive). The remaining keys only make the order total, whatever order the caller listed them in.
import type { ActionEvent, Movement } from "./types";

export type LotEvent = { kind: "action"; event: ActionEvent } | { kind: "movement"; event: Movement };

const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const big = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

function compareActions(a: ActionEvent, b: ActionEvent): number {
  return text(a.mint, b.mint) || text(a.owner, b.owner) || text(a.actionId, b.actionId);
}

function compareMovements(a: Movement, b: Movement): number {
  const outA = a.rawDelta < 0n ? 0 : 1;
  const outB = b.rawDelta < 0n ? 0 : 1;
  return text(a.signature, b.signature) || outA - outB || text(a.mint, b.mint) || text(a.owner, b.owner) || big(a.rawDelta, b.rawDelta);
}

export function compareEvents(a: LotEvent, b: LotEvent): number {
  const t = a.event.at - b.event.at;
  if (t !== 0) return t;
  if (a.kind !== b.kind) return a.kind === "action" ? -1 : 1;
  return a.kind === "action" ? compareActions(a.event, b.event as ActionEvent) : compareMovements(a.event, b.event as Movement);
}

export function orderEvents(movements: readonly Movement[], actions: readonly ActionEvent[]): LotEvent[] {
  const events: LotEvent[] = [...actions.map((event): LotEvent => ({ kind: "action", event })), ...movements.map((event): LotEvent => ({ kind: "movement", event }))];
  return events.sort(compareEvents);
}
