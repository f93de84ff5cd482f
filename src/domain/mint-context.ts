// Everything the engine knows about one mint, built once and read by every wallet that holds it
// (src/domain/wallet.ts): its chain changes matched and classified against its issuer events, the
// multiplier in force at any time, the lineage links, and what the census and the clock read.
import type { Classified } from "./classified";
import { classifyMint, noIssuerFeedReason } from "./classify";
import { buildLineage } from "./lineage";
import { latestEffectiveUnix, MATCH_WINDOW_SECONDS } from "./match";
import { type InstrumentObs, listedByIssuerFeed, type MintStateObs } from "./observations";
import type { EventRevisions } from "./revisions";
import { effectiveTransitions, multiplierAt } from "./timeline";
import type { CensusInstance, ChainTransition, Lifecycle, LineageLinkView, LineageRecord } from "./types";

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

/** What the engine holds of one mint: its instrument and latest state (when known), its chain changes and issuer events. */
export interface MintInput {
  mint: string;
  instrument: InstrumentObs | undefined;
  state: MintStateObs | undefined;
  transitions: ChainTransition[];
  events: EventRevisions[];
  now: number;
}

export interface MintBuilt {
  context: MintContext;
  /** The mint's lineage, served only for a mint the ledger has an instrument for. */
  lineage: LineageRecord | null;
  /** Its matched chain changes, as the census counts them. */
  census: CensusInstance[];
  /** When its books next change by the clock alone (null: nothing ahead). */
  clockChange: number | null;
}

export function buildMint(m: MintInput): MintBuilt {
  const { mint, instrument, now } = m;
  const { classified, live } = classifyMint(m.transitions, m.events);
  // A mint no issuer feed lists: its unexplained changes say so, and how to explain them.
  if (!listedByIssuerFeed(instrument)) for (const c of classified.values()) if (c.match.kind === "none") c.reason = noIssuerFeedReason(c);
  const census = censusOf(mint, live);
  const matchedEvents = new Set(census.map((i) => i.eventId));
  const activated = effectiveTransitions(m.transitions);
  const at = (t: number): number => multiplierAt(activated, t);
  const { multiplierNow, stateProblem } = multiplierInForce(m.state, at(now), now);
  const decimals = instrument?.decimals ?? m.state?.decimals ?? null;
  // A mint the ledger has no instrument for still links its actions; only a known one has a lineage to serve.
  const lineage = buildLineage(
    instrument ?? { mint, symbol: mint, name: null, underlying: null, isin: null, decimals },
    live.filter((c) => c.transition.state === "activated"),
  );
  return {
    context: {
      mint,
      symbol: instrument?.symbol ?? mint,
      decimals: decimals ?? 8,
      decimalsKnown: decimals !== null,
      transitions: m.transitions,
      classified,
      events: m.events,
      matchedEvents,
      multiplierAt: at,
      multiplierNow,
      stateProblem,
      lifecycles: new Map(),
      lineageLinks: lineage.linkOf,
    },
    lineage: instrument ? lineage.record : null,
    census,
    clockChange: nextClockChange(m.transitions, m.events, matchedEvents, now),
  };
}

/** The mint's changes in force that matched an issuer record, in activation order. */
function censusOf(mint: string, live: Classified[]): CensusInstance[] {
  return live.flatMap((c) =>
    c.match.kind === "matched" ? [{ type: c.type, mint, transitionKey: c.transition.key, eventId: c.match.event.eventId, version: c.match.revision.record.version, reconciled: c.reconciled }] : [],
  );
}

/**
 * The multiplier in force now: the replayed updates', unless the mint's latest state read from
 * the chain says otherwise; then the chain's, and the update history is incomplete.
 */
function multiplierInForce(state: MintStateObs | undefined, replayed: number, now: number): { multiplierNow: number; stateProblem: string | null } {
  if (!state) return { multiplierNow: replayed, stateProblem: null };
  const chainNow = now >= state.newMultiplierEffectiveTimestamp ? state.newMultiplier : state.multiplier;
  if (Object.is(chainNow, replayed)) return { multiplierNow: replayed, stateProblem: null };
  return {
    multiplierNow: chainNow,
    stateProblem: `mint state multiplier ${chainNow} differs from the replayed updates (${replayed}): update history incomplete`,
  };
}

/**
 * When a mint's books next change with no new observation: a scheduled change takes force, or an
 * announced event that never reached the chain is dropped (see src/domain/wallet.ts).
 */
function nextClockChange(ts: ChainTransition[], events: EventRevisions[], matched: Set<string>, now: number): number | null {
  const ahead: number[] = ts.filter((t) => t.state === "confirmed").map((t) => t.effectiveAtUnix);
  for (const ev of events) {
    if (matched.has(ev.eventId)) continue;
    const latest = latestEffectiveUnix(ev);
    // Dropped once now > latest effective time + the window: one second on.
    if (latest !== null) ahead.push(latest + MATCH_WINDOW_SECONDS + 1);
  }
  const future = ahead.filter((at) => at > now);
  return future.length ? Math.min(...future) : null;
}
