// The mint poll: every MINT_POLL_SECONDS, read the state of every mint a followed wallet holds
// (getMultipleAccounts, 100 a call), and the name its Token-2022 metadata gives. A changed state
// means its authority wrote something: walk the authority's new history (shared cursor) for the
// UpdateMultiplier, so a newly scheduled multiplier becomes a `confirmed` action before it takes
// force. Mints whose scheduled change has
// come due are marked dirty, so it is booked when it takes force, without any wallet sync.
import type { InstrumentObs, MintStateObs, MultiplierUpdateObs } from "../domain/observations.ts";
import { markDueClockChanges } from "../ledger/booking.ts";
import { heldMints, markFeed, readCursors, storeObservations, type StoredCursor } from "../ledger/store.ts";
import { walkAuthorityHistory } from "../sources/solana/chain-read/authorities.ts";
import { readMintAccount } from "../sources/solana/chain-read/mint-states.ts";
import { AUTHORITY_SCOPE, type SyncDeps, syncRpc } from "./job.ts";

export interface MintPollResult {
  mints: number;
  changed: number;
  updates: number;
  due: number;
}

export async function pollMints(deps: Omit<SyncDeps, "book">): Promise<MintPollResult> {
  const { db, logger } = deps;
  const now = (deps.now ?? (() => new Date()))();
  const held = await heldMints(db);
  const result: MintPollResult = { mints: held.length, changed: 0, updates: 0, due: 0 };
  const rpc = syncRpc(deps, deps.signal);
  try {
    const states: MintStateObs[] = [];
    const instruments: InstrumentObs[] = [];
    if (held.length) {
      const read = await rpc.getMultipleAccounts(held);
      read.accounts.forEach((account, i) => {
        const mint = held[i]!;
        if (!account) return;
        try {
          const mintRead = readMintAccount(mint, account, { slot: read.slot, observedAt: Math.floor(now.getTime() / 1000) });
          if (mintRead.problem) logger.warn("mint state ignored", { mint, reason: mintRead.problem });
          else if (mintRead.state) states.push(mintRead.state);
          // A renamed mint is renamed here, without waiting for a wallet's re-sync (stored only when changed).
          if (mintRead.instrument) instruments.push(mintRead.instrument);
        } catch (e) {
          logger.warn("mint state unreadable", { mint, error: (e as Error).message });
        }
      });
    }
    const stored = await storeObservations(db, { mintStates: states, instruments }, now);
    result.changed = stored.mintStatesChanged;
    if (stored.mintStatesChanged) result.updates = await readNewUpdates(deps, rpc, states, now);
    result.due = await markDueClockChanges(db, now);
    await markFeed(db, "mint_poll", { ok: true }, now);
    return result;
  } catch (e) {
    await markFeed(db, "mint_poll", { ok: false, error: e instanceof Error ? e.message : String(e) }, now);
    throw e;
  }
}

/** Walks the authorities of the mints just read (each once, from the shared cursor). */
async function readNewUpdates(deps: Omit<SyncDeps, "book">, rpc: ReturnType<typeof syncRpc>, states: MintStateObs[], now: Date): Promise<number> {
  const authorities = [...new Set(states.map((s) => s.multiplierAuthority).filter((a): a is string => a !== null))];
  const cursors = await readCursors(deps.db, AUTHORITY_SCOPE, authorities);
  const updates: MultiplierUpdateObs[] = [];
  const moved: StoredCursor[] = [];
  for (const authority of authorities) {
    const walk = await walkAuthorityHistory(rpc, authority, cursors[authority], { maxPages: deps.config.maxSignaturePages, parallel: deps.config.rpcConcurrency, signal: deps.signal });
    updates.push(...walk.updates);
    if (walk.cursorMoves) moved.push({ scope: AUTHORITY_SCOPE, address: authority, cursor: walk.cursor });
    for (const g of walk.gaps) deps.logger.warn("authority history gap", { authority, reason: g.reason });
  }
  return (await storeObservations(deps.db, { multiplierUpdates: updates, cursors: moved }, now)).multiplierUpdatesAdded;
}
