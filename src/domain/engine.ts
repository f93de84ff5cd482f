// The domain's single entry point: observations in, every derived record out. Pure: the clock
// is `input.now`, nothing is read from outside. Pipeline: timeline -> match -> classify ->
// plausibility (per mint, src/domain/mint-context.ts) -> book (per wallet, src/domain/wallet.ts)
// -> positions, yields, journal; lineage and census.
import { groupBy } from "./group";
import { buildMint, type MintContext } from "./mint-context";
import { type InstrumentObs, listedByIssuerFeed, type MintStateObs } from "./observations";
import { type EventRevisions, groupEvents } from "./revisions";
import { computeCensus } from "./taxonomy";
import { buildTransitions } from "./timeline";
import type { CensusInstance, ChainTransition, EngineInput, EngineOutput, LineageRecord, Rejection } from "./types";
import { type ActionRecordParts, assembleWallet } from "./wallet";

export type { EngineInput, EngineOutput } from "./types";
export { diffJournal } from "./journal";
export { actionEvidencePayload } from "./actions";

export function runEngine(input: EngineInput): EngineOutput {
  const { now } = input;
  const rejections: Rejection[] = [];
  const transitions = buildTransitions(input.multiplierUpdates, now);
  const transitionsByMint = groupBy(transitions, (t) => t.mint);
  const eventsByMint = issuerEventsByMint(input, rejections);
  const instrumentByMint = new Map(input.instruments.map((i) => [i.mint, i]));
  const stateByMint = latestStateByMint(input.mintStates);

  const contexts = new Map<string, MintContext>();
  const lineage: LineageRecord[] = [];
  const census: CensusInstance[] = [];
  const clockChanges: EngineOutput["clockChanges"] = [];
  for (const mint of mintsSeen(input, transitionsByMint, instrumentByMint)) {
    const built = buildMint({
      mint,
      instrument: instrumentByMint.get(mint),
      state: stateByMint.get(mint),
      transitions: transitionsByMint.get(mint) ?? [],
      events: eventsByMint.get(mint) ?? [],
      now,
    });
    const { stateProblem } = built.context;
    if (stateProblem) rejections.push({ kind: "multiplier_update", ref: mint, reason: stateProblem });
    contexts.set(mint, built.context);
    if (built.lineage) lineage.push(built.lineage);
    census.push(...built.census);
    clockChanges.push({ mint, at: built.clockChange });
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

/**
 * Issuer events, grouped per mint: an operator's record names its mint, the feed's reach one
 * through the feed's instrument list (symbol <-> mint). An event of no known instrument is a rejection.
 */
function issuerEventsByMint(input: EngineInput, rejections: Rejection[]): Map<string, EventRevisions[]> {
  // Only the feed's instruments map the feed's symbols: a name a mint gives itself (token
  // metadata) may repeat an xStocks symbol and must not take that issuer's records.
  const mintBySymbol = new Map(input.instruments.filter(listedByIssuerFeed).map((i) => [i.symbol, i.mint]));
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
  return eventsByMint;
}

/** Each mint's state as of the latest slot read. */
function latestStateByMint(states: MintStateObs[]): Map<string, MintStateObs> {
  const byMint = new Map<string, MintStateObs>();
  for (const s of states) {
    const prev = byMint.get(s.mint);
    if (!prev || s.slot > prev.slot) byMint.set(s.mint, s);
  }
  return byMint;
}

/** Every mint with a chain change, an instrument, or a wallet's account or balance change, sorted. */
function mintsSeen(input: EngineInput, transitionsByMint: Map<string, ChainTransition[]>, instrumentByMint: Map<string, InstrumentObs>): string[] {
  const mints = new Set<string>([...transitionsByMint.keys(), ...instrumentByMint.keys()]);
  for (const w of input.wallets) {
    for (const a of w.accounts) mints.add(a.mint);
    for (const c of w.balanceChanges) mints.add(c.mint);
  }
  return [...mints].sort();
}
