// Per wallet: the actions of every mint it held at an activation, their journal bookings, the
// replayed positions and yields. Reads the per-mint context the engine built once.
import { plainAction, transitionAction } from "./actions";
import { balanceHistory, type BalanceHistory, rawAt } from "./balances";
import { type BookingFacts, units } from "./book";
import { announcedType } from "./classify";
import type { MintContext } from "./mint-context";
import { bookingFor } from "./journal";
import { buildLifecycle } from "./lifecycle";
import { latestEffectiveUnix, MATCH_WINDOW_SECONDS } from "./match";
import type { BalanceChangeObs } from "./observations";
import { eq, formatExact, liftF64, sub } from "./numbers";
import { buildPosition, type ReplayAction } from "./positions";
import { describeRevision } from "./issuer";
import { currentRevision, type EventRevisions } from "./revisions";
import { bookTransition, ruleOf } from "./rules";
import { isSeizure, seizureOf } from "./rules/custody";
import type { ActionRecord, ChainTransition, EngineWallet, JournalBooking, PositionRecord, YieldRecord } from "./types";
import { buildYields, type YieldAction } from "./yield";

export interface ActionRecordParts {
  actions: ActionRecord[];
  bookings: JournalBooking[];
  positions: PositionRecord[];
  yields: YieldRecord[];
}

export interface WalletContext {
  now: number;
  firstObservedActive: Record<string, string>;
}

/** One wallet in one mint: what the steps below read and add to. */
interface Holding {
  owner: string;
  ctx: MintContext;
  history: BalanceHistory;
  wc: WalletContext;
  out: ActionRecordParts;
  replay: ReplayAction[];
  yieldActs: YieldAction[];
}

export function assembleWallet(w: EngineWallet, contexts: Map<string, MintContext>, wc: WalletContext, out: ActionRecordParts): void {
  const mints = new Set<string>([...w.accounts.map((a) => a.mint), ...w.balanceChanges.map((c) => c.mint)]);
  for (const mint of [...mints].sort()) {
    const ctx = contexts.get(mint);
    if (!ctx) continue;
    const h: Holding = { owner: w.owner, ctx, history: balanceHistory(w.owner, mint, w.accounts, w.balanceChanges), wc, out, replay: [], yieldActs: [] };
    for (const t of ctx.transitions) transitionStep(h, t);
    for (const change of h.history.changes) if (isSeizure(change)) seizureStep(h, change);
    if (h.history.reported > 0n) for (const ev of ctx.events) announcementStep(h, ev);
    positionStep(h, w.gaps);
  }
}

/** A multiplier change while the wallet held the mint: its action, booking and replay entry. */
function transitionStep(h: Holding, t: ChainTransition): void {
  const { ctx, wc } = h;
  const raw = rawAt(h.history, t.effectiveAtUnix);
  if (raw <= 0n) return;
  const c = ctx.classified.get(t.key)!;
  const facts = bookTransition(c, raw, ctx.decimals);
  const event = c.match.kind === "matched" ? c.match.event : null;
  const firstSeen = wc.firstObservedActive[t.key] ?? null;
  // Nothing in a lifecycle depends on the wallet: build it once per transition.
  let lifecycle = ctx.lifecycles.get(t.key);
  if (!lifecycle) {
    lifecycle = buildLifecycle({ transition: t, event, matchedVersion: c.revision?.record.version ?? null, firstObservedActiveAt: firstSeen, now: wc.now });
    ctx.lifecycles.set(t.key, lifecycle);
  }
  const a = transitionAction({
    owner: h.owner,
    symbol: ctx.symbol,
    decimals: ctx.decimals,
    raw,
    c,
    facts,
    event,
    lifecycle,
    firstObservedActiveAt: firstSeen,
    lineageLink: ctx.lineageLinks.get(t.key) ?? null,
  });
  h.out.actions.push(a);
  const delta = facts.delta;
  // Income types book the whole delta as income units, already formatted on the action.
  const unitsDelta = delta === facts.incomeUnits || eq(delta, facts.incomeUnits) ? a.incomeUnits : formatExact(delta);
  const b = bookingFor(a, unitsDelta, formatExact(sub(delta, facts.incomeUnits)));
  if (!b) return;
  h.out.bookings.push(b);
  h.replay.push(replayOf(t.effectiveAtUnix, a, facts));
  h.yieldActs.push({
    at: t.effectiveAtUnix,
    type: c.type,
    treatment: a.treatment,
    scale: facts.scale,
    factor: c.factor,
    incomeUnits: facts.incomeUnits,
    usd: facts.usd,
    cashPerShare: c.cash?.net ?? null,
  });
}

/** Custody transfers: the permanent delegate moved tokens out without the owner's signature. */
function seizureStep(h: Holding, change: BalanceChangeObs): void {
  const { ctx } = h;
  const multiplier = ctx.multiplierAt(change.blockTime);
  const { action, facts } = seizureOf(change, { owner: h.owner, mint: ctx.mint, symbol: ctx.symbol, decimals: ctx.decimals, multiplier });
  const a = plainAction(action);
  h.out.actions.push(a);
  const b = bookingFor(a, formatExact(facts.delta), formatExact(facts.delta));
  if (b) h.out.bookings.push(b);
  h.replay.push(replayOf(change.blockTime, a, facts));
}

/** What the position's replay reads of a booked action (src/domain/positions.ts). */
function replayOf(at: number, a: ActionRecord, facts: BookingFacts): ReplayAction {
  return {
    at,
    type: a.type,
    treatment: a.treatment,
    facts,
    usd: facts.usd,
    v1Unclassified: a.v1.kind === "unclassified_adjustment",
    terminates: ruleOf(a.type).lineage === "terminate",
  };
}

/** An issuer event announced for a mint the wallet holds, with nothing on chain yet. */
function announcementStep(h: Holding, ev: EventRevisions): void {
  const { ctx, wc } = h;
  if (ctx.matchedEvents.has(ev.eventId)) return;
  const cur = currentRevision(ev);
  const ref = cur ?? ev.revisions[ev.revisions.length - 1]!;
  const latestEff = latestEffectiveUnix(ev);
  if (latestEff !== null && latestEff < wc.now - MATCH_WINDOW_SECONDS) return; // past and never executed
  const q = units(h.history.reported, liftF64(ctx.multiplierNow), ctx.decimals);
  const type = announcedType(cur ?? ref);
  h.out.actions.push(
    plainAction({
      owner: h.owner,
      mint: ctx.mint,
      symbol: ctx.symbol,
      decimals: ctx.decimals,
      key: `issuer:${ev.eventId}`,
      type,
      reason: cur ? `announced by the issuer (${describeRevision(cur)}); nothing on chain yet` : "announced by the issuer, then cancelled",
      raw: h.history.reported,
      unitsBefore: q,
      unitsAfter: q,
      effectiveAt: cur?.record.effectiveTimeUtc ?? null,
      event: ev,
      revision: cur,
      lifecycle: buildLifecycle({ transition: null, event: ev, matchedVersion: null, firstObservedActiveAt: null, now: wc.now }),
    }),
  );
}

/** The replayed position and its yield windows. */
function positionStep(h: Holding, gaps: string[]): void {
  const { ctx, wc } = h;
  const extra: string[] = [];
  if (ctx.stateProblem) extra.push(ctx.stateProblem);
  if (!ctx.decimalsKnown) extra.push("decimals unknown: 8 assumed");
  const holding = { owner: h.owner, mint: ctx.mint, symbol: ctx.symbol, decimals: ctx.decimals, history: h.history, multiplierAt: ctx.multiplierAt };
  const pos = buildPosition({ ...holding, multiplierNow: ctx.multiplierNow, actions: h.replay, gaps, extraProblems: extra });
  h.out.positions.push(pos);
  h.out.yields.push(...buildYields({ ...holding, now: wc.now, actions: h.yieldActs, coverageProblem: pos.status === "partial" ? pos.statusReason : null }));
}
