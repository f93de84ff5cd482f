// The domain's single entry point: observations in, every derived record out. Pure: the clock
// is `input.now`, nothing is read from outside. Pipeline: timeline -> match -> classify ->
// plausibility (per mint) -> book (per wallet) -> positions, yields, journal; lineage and census.
import { type ActionRecordParts, assembleWallet } from "./wallet";
import { type Classified, classifyMint, noIssuerFeedReason } from "./classify";
import { buildLineage } from "./lineage";
import { MATCH_WINDOW_SECONDS } from "./match";
import { unixFromIso } from "./time";
import type { EventRevisions } from "./revisions";
import { groupEvents } from "./revisions";
import { listedByIssuerFeed, type MintStateObs } from "./observations";
import { type CensusInstance, computeCensus } from "./taxonomy";
import { buildTransitions, effectiveTransitions, multiplierAt } from "./timeline";
import type { ChainTransition, EngineInput, EngineOutput, Lifecycle, LineageLinkView, Rejection } from "./types";

export type { EngineInput, EngineOutput } from "./types";
export { diffJournal } from "./journal";
export { actionEvidencePayload } from "./actions";

/** Everything the engine knows about one mint, shared by all wallets that hold it. */
export interface MintContext {
  mint: string;
  symbol: string;
  decimals: number;
  decimalsKnown: boolean;
  transitions: ChainTransition[];
  classified: Map<string, Classified>;
  events: EventRevisions[];
  /** Event ids matched by some non-superseded transition. */
  matchedEvents: Set<string>;
  multiplierAt: (t: number) => number;
  multiplierNow: number;
  stateProblem: string | null;
  /** Lifecycle per transition key, filled by the first wallet that needs it (the same for all). */
  lifecycles: Map<string, Lifecycle>;
  /** The lineage link each activated transition wrote (identity change, distribution, termination), by key. */
  lineageLinks: Map<string, LineageLinkView>;
}

function inForce(s: MintStateObs, t: number): number {
  return t >= s.newMultiplierEffectiveTimestamp ? s.newMultiplier : s.multiplier;
}

/**
 * When a mint's books next change with no new observation: a scheduled change takes force, or an
 * announced event that never reached the chain is dropped (see assembleWallet).
 */
function nextClockChange(ts: ChainTransition[], events: EventRevisions[], matched: Set<string>, now: number): number | null {
  const ahead: number[] = ts.filter((t) => t.state === "confirmed").map((t) => t.effectiveAtUnix);
  for (const ev of events) {
    if (matched.has(ev.eventId)) continue;
    const effs = ev.revisions.map((r) => unixFromIso(r.record.effectiveTimeUtc)).filter((x): x is number => x !== null);
    // Dropped once now > latest effective time + the window (see assembleWallet): one second on.
    if (effs.length) ahead.push(Math.max(...effs) + MATCH_WINDOW_SECONDS + 1);
  }
  const future = ahead.filter((at) => at > now);
  return future.length ? Math.min(...future) : null;
}

export function runEngine(input: EngineInput): EngineOutput {
  const { now } = input;
  const rejections: Rejection[] = [];
  const transitions = buildTransitions(input.multiplierUpdates, now);
  // Only the feed's instruments map the feed's symbols: a name a mint gives itself (token
  // metadata) may repeat an xStocks symbol and must not take that issuer's records.
  const mintBySymbol = new Map(input.instruments.filter(listedByIssuerFeed).map((i) => [i.symbol, i.mint]));
  const instrumentByMint = new Map(input.instruments.map((i) => [i.mint, i]));
  const stateByMint = new Map<string, MintStateObs>();
  for (const s of input.mintStates) {
    const prev = stateByMint.get(s.mint);
    if (!prev || s.slot > prev.slot) stateByMint.set(s.mint, s);
  }

  // Issuer events, grouped per mint: an operator's record names its mint, the feed's reach one
  // through the feed's instrument list (symbol <-> mint).
  const eventsByMint = new Map<string, EventRevisions[]>();
  for (const ev of groupEvents(input.issuerRevisions).values()) {
    const mint = ev.all.find((r) => r.mint)?.mint ?? mintBySymbol.get(ev.revisions[0]!.record.xstockSymbol);
    if (!mint) {
      rejections.push({ kind: "issuer_revision", ref: ev.eventId, reason: `symbol ${ev.revisions[0]!.record.xstockSymbol} is not a known instrument` });
      continue;
    }
    const list = eventsByMint.get(mint) ?? [];
    list.push(ev);
    eventsByMint.set(mint, list);
  }

  const transitionsByMint = new Map<string, ChainTransition[]>();
  for (const t of transitions) {
    const list = transitionsByMint.get(t.mint) ?? [];
    list.push(t);
    transitionsByMint.set(t.mint, list);
  }

  const mints = new Set<string>([...transitionsByMint.keys(), ...instrumentByMint.keys()]);
  for (const w of input.wallets) {
    for (const a of w.accounts) mints.add(a.mint);
    for (const c of w.balanceChanges) mints.add(c.mint);
  }

  const census: CensusInstance[] = [];
  const clockChanges: EngineOutput["clockChanges"] = [];
  const contexts = new Map<string, MintContext>();
  const lineage = [];
  for (const mint of [...mints].sort()) {
    const inst = instrumentByMint.get(mint);
    const state = stateByMint.get(mint);
    const ts = transitionsByMint.get(mint) ?? [];
    const events = eventsByMint.get(mint) ?? [];
    const { classified, live } = classifyMint(ts, events);
    // A mint no issuer feed lists: its unexplained changes say so, and how to explain them.
    if (!listedByIssuerFeed(inst)) for (const c of classified.values()) if (c.match.kind === "none") c.reason = noIssuerFeedReason(c);
    const matchedEvents = new Set<string>();
    for (const c of live) {
      if (c.match.kind !== "matched") continue;
      matchedEvents.add(c.match.event.eventId);
      census.push({ type: c.type, mint, transitionKey: c.transition.key, eventId: c.match.event.eventId, version: c.match.revision.record.version, reconciled: c.reconciled });
    }
    const activated = effectiveTransitions(ts);
    const mAt = (t: number): number => multiplierAt(activated, t);
    let multiplierNow = mAt(now);
    let stateProblem: string | null = null;
    if (state) {
      const chainNow = inForce(state, now);
      if (!Object.is(chainNow, multiplierNow)) {
        stateProblem = `mint state multiplier ${chainNow} differs from the replayed updates (${multiplierNow}): update history incomplete`;
        rejections.push({ kind: "multiplier_update", ref: mint, reason: stateProblem });
        multiplierNow = chainNow;
      }
    }
    const decimals = inst?.decimals ?? state?.decimals ?? null;
    // A mint the ledger has no instrument for still links its actions; only a known one has a lineage to serve.
    const built = buildLineage(inst ?? { mint, symbol: mint, name: null, underlying: null, isin: null, decimals }, live.filter((c) => c.transition.state === "activated"));
    if (inst) lineage.push(built.record);
    contexts.set(mint, {
      mint,
      symbol: inst?.symbol ?? mint,
      decimals: decimals ?? 8,
      decimalsKnown: decimals !== null,
      transitions: ts,
      classified,
      events,
      matchedEvents,
      multiplierAt: mAt,
      multiplierNow,
      stateProblem,
      lifecycles: new Map(),
      lineageLinks: built.linkOf,
    });
    clockChanges.push({ mint, at: nextClockChange(ts, events, matchedEvents, now) });
  }

  const out: ActionRecordParts = { actions: [], bookings: [], positions: [], yields: [] };
  for (const w of input.wallets) assembleWallet(w, contexts, { now, firstObservedActive: input.firstObservedActive ?? {} }, out);

  return {
    transitions,
    actions: out.actions,
    bookings: out.bookings,
    positions: out.positions,
    yields: out.yields,
    lineage,
    census: computeCensus(census),
    censusInstances: census,
    clockChanges,
    rejections,
  };
}
