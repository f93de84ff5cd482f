// Multiplier updates come from the multiplier authority's history: every UpdateMultiplier of every
// mint it controls is signed by it (docs/sources.md#why-the-authoritys-history). A mint whose
// authority changed keeps its earlier updates in the earlier authority's history: the hand-over
// (SetAuthority for the Scaled UI Amount extension) names both, so the earlier authority is found
// in an authority history already walked, or, as a bounded fallback, in the mint's own history
// before the current authority's first update. It is then walked like any authority, from the
// cursor every wallet shares.
//
// The last stage of a wallet's chain read (readMultiplierHistory: the mints' states over time);
// the mint poll walks an authority the same way (walkAuthorityHistory).
import type { MintStateObs, MultiplierUpdateObs } from "../../../domain/observations";
import { compareUpdates, INITIAL_MULTIPLIER } from "../../../domain/timeline";
import { findAuthorityHandovers, findMultiplierUpdates, type AuthorityHandover } from "../decode";
import type { Rpc } from "../rpc";
import { walkAddress, type WalkCursor, type WalkOptions } from "../signatures";
import type { WireSignatureInfo, WireTransaction } from "../wire";
import { implausibleUpdate } from "./plausible";
import type { SyncGap } from "./types";
import { DEADLINE_GAP, mapBounded, transactionFetcher, uniqueBy, unreadGaps, walkCursorMoves } from "./walk-common";

export interface AuthorityWalkOptions extends WalkOptions {
  signal?: AbortSignal;
  parallel?: number;
  fetchTransaction?: (signature: string) => Promise<WireTransaction>;
  onListed?: (n: number) => void;
  onRead?: () => void;
}

export interface AuthorityWalk {
  /** Every UpdateMultiplier in the new history, oldest first, for every mint the authority controls. */
  updates: MultiplierUpdateObs[];
  /** Every Scaled UI Amount authority hand-over the authority signed in that history. */
  handovers: AuthorityHandover[];
  gaps: SyncGap[];
  cursor: WalkCursor;
  /** The walk read everything it listed (a capped walk did too: it resumes next time). */
  cursorMoves: boolean;
  /** Nothing left to resume. */
  complete: boolean;
}

/**
 * The new history of a multiplier authority: every UpdateMultiplier it signed since `cursor`.
 * Shared by wallet syncs and the mint poll (a newly scheduled multiplier is found here before it
 * takes force).
 */
export async function walkAuthorityHistory(rpc: Rpc, authority: string, cursor: WalkCursor | undefined, opts: AuthorityWalkOptions = {}): Promise<AuthorityWalk> {
  const gaps: SyncGap[] = [];
  const fetchTransaction = opts.fetchTransaction ?? transactionFetcher(rpc);
  const walk = await walkAddress(rpc, authority, cursor, opts);
  if (walk.error && !opts.signal?.aborted) gaps.push({ address: authority, reason: walk.error });
  const wanted = walk.signatures.filter((s) => s.err == null);
  const unread: string[] = [];
  opts.onListed?.(wanted.length);
  const found = await mapBounded(wanted, opts.parallel ?? 4, opts.signal, async (info: WireSignatureInfo) => {
    try {
      const tx = await fetchTransaction(info.signature);
      const updates = findMultiplierUpdates(tx, { signature: info.signature }).filter((u) => {
        const problem = implausibleUpdate(u);
        if (problem) gaps.push({ address: authority, reason: `${problem} in ${u.signature}: update ignored` });
        return problem === null;
      });
      return { updates, handovers: findAuthorityHandovers(tx, { signature: info.signature }) };
    } catch (err) {
      if (!opts.signal?.aborted) unread.push(`transaction ${info.signature}: ${(err as Error).message}`);
      return { updates: [], handovers: [] };
    } finally {
      opts.onRead?.();
    }
  });
  gaps.push(...unreadGaps(authority, unread));
  if (opts.signal?.aborted) gaps.push({ address: authority, reason: DEADLINE_GAP });
  const read = (found ?? []).reverse();
  return {
    updates: read.flatMap((r) => r.updates),
    handovers: read.flatMap((r) => r.handovers),
    gaps,
    cursor: walk.cursor,
    cursorMoves: walkCursorMoves(walk, gaps),
    complete: !walk.capped,
  };
}

/**
 * Whether a mint's update history, as known, is missing its beginning or its end: a reason, or
 * null. `updates` are the mint's updates known (oldest first); `fullHistory` says they are all the
 * current authority ever signed for it. The mint's stored state must be what its latest update
 * wrote (UpdateMultiplier sets new_multiplier and its timestamp), and the first update must not
 * find a multiplier other than the initial one already in force (a first update that takes force
 * at once with another value re-asserts a value an earlier update set).
 */
export function checkMintAgainstUpdates(state: MintStateObs, updates: MultiplierUpdateObs[], fullHistory: boolean): string | null {
  const own = updates.filter((u) => u.mint === state.mint && u.slot <= state.slot);
  const latest = own[own.length - 1];
  if (!latest) {
    if (fullHistory && (state.multiplier !== INITIAL_MULTIPLIER || state.newMultiplier !== INITIAL_MULTIPLIER)) {
      return `no UpdateMultiplier in the authority's history explains the current multiplier ${state.newMultiplier}`;
    }
    return null;
  }
  if (latest.multiplier !== state.newMultiplier || latest.effectiveTimestamp !== state.newMultiplierEffectiveTimestamp) {
    return `mint state (${state.newMultiplier} at ${state.newMultiplierEffectiveTimestamp}) differs from the latest update found (${latest.multiplier} at ${latest.effectiveTimestamp}): updates are missing`;
  }
  const first = own[0]!;
  if (fullHistory && first.effectiveTimestamp <= first.blockTime && first.multiplier !== INITIAL_MULTIPLIER) {
    return `the first update found (${first.signature}) re-asserts multiplier ${first.multiplier} already in force: earlier updates are missing`;
  }
  return null;
}

/** Transactions of a mint's own history read, at most, per search for an earlier authority. */
export const HANDOVER_SEARCH_TRANSACTIONS = 1000;

/**
 * The authority that handed `mint` over to `to` (null: to nobody), found among hand-overs already
 * read or, failing that, in the mint's own history before `before` (the first update `to` signed
 * for the mint; the hand-over precedes it), newest first, reading at most
 * HANDOVER_SEARCH_TRANSACTIONS transactions. Returns the earlier authority and the hand-over's
 * signature, or a reason.
 */
export async function findEarlierAuthority(
  rpc: Rpc,
  mint: string,
  to: string | null,
  before: string | undefined,
  known: AuthorityHandover[],
  opts: AuthorityWalkOptions,
): Promise<{ authority: string; signature: string } | { reason: string }> {
  const match = (h: AuthorityHandover) => h.mint === mint && h.to === to;
  const seen = known.filter(match).sort((a, b) => b.slot - a.slot)[0];
  if (seen) return { authority: seen.from, signature: seen.signature };
  const fetchTransaction = opts.fetchTransaction ?? transactionFetcher(rpc);
  let page: WireSignatureInfo[];
  try {
    page = await rpc.getSignaturesForAddress(mint, { before, limit: HANDOVER_SEARCH_TRANSACTIONS });
  } catch (err) {
    return { reason: `the mint's history could not be read: ${(err as Error).message}` };
  }
  const wanted = page.filter((s) => s.err == null);
  // Newest first, a few at a time, stopping at the first hand-over found.
  const batch = Math.max(1, opts.parallel ?? 4);
  for (let i = 0; i < wanted.length; i += batch) {
    const found = await mapBounded(wanted.slice(i, i + batch), batch, opts.signal, async (s) => {
      try {
        return findAuthorityHandovers(await fetchTransaction(s.signature), { signature: s.signature }).filter(match);
      } catch {
        return [];
      }
    });
    if (found === null) return { reason: DEADLINE_GAP };
    const handover = found.flat().sort((a, b) => b.slot - a.slot)[0];
    if (handover) return { authority: handover.from, signature: handover.signature };
  }
  return { reason: `no hand-over of its multiplier authority in the ${wanted.length} transactions of the mint's history read before ${before ?? "now"}` };
}

/** Earlier multiplier authorities followed per mint, at most (a chain of hand-overs). */
export const MAX_EARLIER_AUTHORITIES = 4;

export interface MultiplierHistory {
  /** Every update read, for every mint the walked authorities control, oldest first. */
  updates: MultiplierUpdateObs[];
  gaps: SyncGap[];
  /** The authorities' cursors that move. */
  cursors: Record<string, WalkCursor>;
}

/**
 * Walks the authority of each mint (from the shared cursors) and checks each mint against the
 * updates known for it: `known` are those stored before (null: only this walk's count, and only
 * a first walk is the whole history). A mint its updates do not explain is traced back through
 * its hand-overs to earlier authorities, which are walked too; what stays unexplained is a gap
 * on the mint, and its authority's cursor does not move.
 */
export async function readMultiplierHistory(
  rpc: Rpc,
  mints: MintStateObs[],
  cursors: Record<string, WalkCursor>,
  known: MultiplierUpdateObs[] | null,
  opts: AuthorityWalkOptions,
): Promise<MultiplierHistory> {
  const walks = authorityWalks(rpc, cursors, known, opts);
  await Promise.all(mints.flatMap((m) => (m.multiplierAuthority === null ? [] : [walks.of(m.multiplierAuthority)])));
  const mintGaps = new Map<string | null, SyncGap[]>();
  for (const state of mints) {
    const authority = state.multiplierAuthority;
    const current = authority === null ? null : await walks.of(authority);
    if (current === null && state.multiplier === INITIAL_MULTIPLIER && state.newMultiplier === INITIAL_MULTIPLIER) continue;
    if (current && (current.gaps.length || !current.complete)) continue; // its own gaps say why
    const full = known !== null || (current !== null && cursors[authority!] === undefined);
    const problem = await mintProblem(rpc, walks, state, current, full, opts);
    if (problem) mintGaps.set(authority, [...(mintGaps.get(authority) ?? []), { address: state.mint, reason: problem }]);
  }
  return gatherWalks(walks, mintGaps);
}

type AuthorityWalks = ReturnType<typeof authorityWalks>;

/** The authorities walked in this read, each once, from its shared cursor; and what they found with what was `known`. */
function authorityWalks(rpc: Rpc, cursors: Record<string, WalkCursor>, known: MultiplierUpdateObs[] | null, opts: AuthorityWalkOptions) {
  const walks = new Map<string, Promise<AuthorityWalk>>();
  const all = async () => Promise.all(walks.values());
  return {
    walks,
    of(authority: string): Promise<AuthorityWalk> {
      let walk = walks.get(authority);
      if (!walk) walks.set(authority, (walk = walkAuthorityHistory(rpc, authority, cursors[authority], opts)));
      return walk;
    },
    /** A mint's updates, known and walked, oldest first. */
    async updatesOf(mint: string): Promise<MultiplierUpdateObs[]> {
      return mergeUpdates(
        known ?? [],
        (await all()).flatMap((w) => w.updates),
      ).filter((u) => u.mint === mint);
    },
    async handovers(): Promise<AuthorityHandover[]> {
      return (await all()).flatMap((w) => w.handovers);
    },
  };
}

/**
 * The mint's problem with the updates known (`full`: they are the whole history), after following
 * its hand-overs back to earlier authorities: null when none is left.
 */
async function mintProblem(rpc: Rpc, walks: AuthorityWalks, state: MintStateObs, current: AuthorityWalk | null, full: boolean, opts: AuthorityWalkOptions): Promise<string | null> {
  let updates = await walks.updatesOf(state.mint);
  let problem = current === null ? "multiplier authority removed: the updates that set the current multiplier cannot be walked" : checkMintAgainstUpdates(state, updates, full);
  let to = state.multiplierAuthority;
  let handoverSignature: string | undefined;
  for (let depth = 0; problem && depth < MAX_EARLIER_AUTHORITIES; depth++) {
    const before = updates.find((u) => u.authority === to)?.signature ?? handoverSignature;
    const earlier = await findEarlierAuthority(rpc, state.mint, to, before, await walks.handovers(), opts);
    if ("reason" in earlier) return `${problem}; ${earlier.reason}`;
    const walk = await walks.of(earlier.authority);
    if (walk.gaps.length || !walk.complete) return `${problem}; its earlier authority ${earlier.authority} could not be walked in full`;
    updates = await walks.updatesOf(state.mint);
    problem = checkMintAgainstUpdates(state, updates, true);
    [to, handoverSignature] = [earlier.authority, earlier.signature];
  }
  return problem;
}

/** Every walk's updates and gaps, then the mints' gaps; an authority's cursor moves when its walk may and none of its mints has a gap. */
async function gatherWalks(walks: AuthorityWalks, mintGaps: Map<string | null, SyncGap[]>): Promise<MultiplierHistory> {
  const out: MultiplierHistory = { updates: [], gaps: [], cursors: {} };
  for (const [authority, pending] of walks.walks) {
    const walk = await pending;
    out.gaps.push(...walk.gaps);
    out.updates.push(...walk.updates);
    if (walk.cursorMoves && !mintGaps.has(authority)) out.cursors[authority] = walk.cursor;
  }
  out.gaps.push(...[...mintGaps.values()].flat());
  out.updates = dedupeUpdates(out.updates);
  return out;
}

const dedupeUpdates = (updates: MultiplierUpdateObs[]): MultiplierUpdateObs[] => uniqueBy(updates, (u) => `${u.signature}:${u.ixIndex}`);
const mergeUpdates = (a: MultiplierUpdateObs[], b: MultiplierUpdateObs[]): MultiplierUpdateObs[] => dedupeUpdates([...a, ...b]).sort(compareUpdates);
