// What the lot engine (src/domain/lots) derives one tenant's lots from, read from the ledger
// (docs/lots.md#what-the-sync-stores): the movements of every wallet the tenant follows, priced
// by the stored transaction parts and recognising own transfers across those wallets; the actions
// booked for them; the cost-basis declarations the operator imported; and what the ledger knows
// of each mint (symbol, ISIN, decimals). Nothing derived is stored: the routes derive per request.
import { actionEventOf, type ActionEvent, type ActionFacts, DEFAULT_STABLECOINS, type LotInput, type LotProblem } from "../../domain/lots/index.ts";
import { declarationsInput } from "../../domain/lots/declarations.ts";
import type { OwnerTransactionChanges } from "../../domain/lots/owner-changes.ts";
import type { InstrumentNames } from "../../domain/lots/present.ts";
import { type FollowedMint, tenantMovements } from "../../domain/lots/tenant-movements.ts";
import { liftF64 } from "../../domain/numbers.ts";
import { buildTransitions, effectiveTransitions, multiplierAt } from "../../domain/timeline.ts";
import { groupBy } from "../../domain/group.ts";
import { storedFields } from "../action-rows.ts";
import { actionEventSql } from "../tables/action-events.ts";
import { actionSql } from "../tables/actions.ts";
import type { Sql } from "../sql/port.ts";
import { balanceChangeFromRow, balanceChangeSql } from "../tables/balance-changes.ts";
import { instrumentSql } from "../tables/instruments.ts";
import { mintStateSql } from "../tables/mint-states.ts";
import { multiplierUpdateSql, updateFromRow } from "../tables/multiplier-updates.ts";
import { booksVisible, tenantWalletSql } from "../tables/tenant-wallets.ts";
import { readCostBasis } from "../cost-basis.ts";
import { readTransactionChanges } from "../transaction-changes.ts";

export interface LotInputOptions {
  /** The wallets to derive (default: every wallet the tenant follows; others are ignored). Own transfers are recognised among these only. */
  owners?: string[];
  /**
   * Derive only what these wallets' lots depend on: them and every wallet of the tenant linked to
   * them through a transaction both took part in, transitively (a lot moved A → B → C carries A's
   * history to C). A wallet sharing no transaction with them cannot change their lots, so their
   * lots are those of the whole tenant's derivation, for a fraction of the work.
   */
  linkedTo?: string[];
  /** The USD stablecoin mints (`STABLECOINS`); default src/domain/lots/stablecoins.ts. */
  stablecoins?: readonly string[];
  /** Which multiplier changes have taken force (default: now). */
  now?: Date;
}

/** deriveLots's input for one tenant, and what the routes show beside it. */
export interface TenantLotInput extends LotInput {
  /** The wallets derived, sorted: followed by the tenant and past their first sync. */
  owners: string[];
  /** Each followed mint's symbol, ISIN and decimals. */
  names: InstrumentNames;
  /** Declarations the engine could not take (a lot of a mint the ledger does not know), as problems to list. */
  problems: LotProblem[];
}

export async function lotInputs(db: Sql, tenantId: number, opts: LotInputOptions = {}): Promise<TenantLotInput> {
  return db.read(async (tx) => {
    const owners = opts.linkedTo ? await linkedOwners(tx, tenantId, opts.linkedTo, opts.owners) : await tenantOwners(tx, tenantId, opts.owners);
    const changes = (await tx.all(balanceChangeSql.ofOwners, { owners })).map(balanceChangeFromRow);
    const stablecoins = new Set(opts.stablecoins ?? DEFAULT_STABLECOINS);
    const mints = await followedMints(tx, [...new Set(changes.map((c) => c.mint))].filter((m) => !stablecoins.has(m)).sort(), opts.now ?? new Date());
    const parts: OwnerTransactionChanges[] = await readTransactionChanges(tx, owners);
    const movements = tenantMovements({ wallets: new Set(owners), balanceChanges: changes, parts, mints: mints.followed, stablecoins });
    const actions = await bookedActions(tx, owners);
    const declared = declarationsInput(await readCostBasis(tx, owners), (mint, at) => {
      const m = mints.followed.get(mint);
      return m ? { multiplier: liftF64(m.multiplierAt(Math.floor(at / 1000))), decimals: m.decimals } : null;
    });
    const problems: LotProblem[] = declared.unknownMint.map((d) => ({
      owner: d.owner,
      mint: d.mint,
      at: Date.parse(d.acquiredAt),
      code: "declared_lot_unknown_mint",
      message: `a declared lot of ${d.units} units of ${d.mint} cannot be applied: the wallet holds no such mint in the ledger`,
    }));
    return { owners, movements, actions, declaredCosts: declared.declaredCosts, declaredLots: declared.declaredLots, names: mints.names, problems };
  });
}

/** The tenant's wallets whose books it may see (its own first sync finished), limited to `wanted`. */
async function tenantOwners(tx: Sql, tenantId: number, wanted: readonly string[] | undefined): Promise<string[]> {
  const rows = wanted ? await tx.all(tenantWalletSql.ofTenantAmong, { tenantId, owners: wanted }) : await tx.all(tenantWalletSql.ofTenant, { tenantId });
  return rows
    .filter(booksVisible)
    .map((r) => r.owner)
    .sort();
}

/**
 * The tenant's wallets linked to `wanted` by shared transactions (see LotInputOptions.linkedTo),
 * within `among` when given, sorted. Walked out from `wanted` one ring at a time, so the work is
 * the linked wallets' transactions, not the whole tenant's (10,000 wallets that share nothing
 * cost one ring).
 */
async function linkedOwners(tx: Sql, tenantId: number, wanted: readonly string[], among: readonly string[] | undefined): Promise<string[]> {
  const allowed = among ? new Set(among) : null;
  const visible = async (owners: string[]) => (await tenantOwners(tx, tenantId, owners)).filter((o) => !allowed || allowed.has(o));
  const reached = new Set(await visible([...new Set(wanted)]));
  let ring = [...reached];
  while (ring.length) {
    const around = (await tx.all(balanceChangeSql.sharingWith, { owners: ring })).map((r) => r.owner).filter((o) => !reached.has(o));
    ring = around.length ? await visible(around) : [];
    for (const o of ring) reached.add(o);
  }
  return [...reached].sort();
}

/**
 * Each mint's decimals and multiplier path as the booking engine reads them (src/domain/mint-context.ts:
 * the instrument's decimals, else the mint state's, else 8; the multiplier updates that took force),
 * and its names.
 */
async function followedMints(tx: Sql, mints: string[], now: Date): Promise<{ followed: Map<string, FollowedMint>; names: InstrumentNames }> {
  const instruments = new Map((await tx.all(instrumentSql.forEngineOf, { mints })).map((r) => [r.mint, r]));
  const stateDecimals = new Map((await tx.all(mintStateSql.forEngineOf, { mints })).map((r) => [r.mint, r.decimals]));
  const updates = groupBy((await tx.all(multiplierUpdateSql.forEngineOf, { mints })).map(updateFromRow), (u) => u.mint);
  const nowUnix = Math.floor(now.getTime() / 1000);
  const followed = new Map<string, FollowedMint>();
  const names = new Map<string, { symbol: string | null; isin: string | null; decimals: number }>();
  for (const mint of mints) {
    const instrument = instruments.get(mint);
    const decimals = instrument?.decimals ?? stateDecimals.get(mint) ?? 8;
    const activated = effectiveTransitions(buildTransitions(updates.get(mint) ?? [], nowUnix));
    followed.set(mint, { decimals, multiplierAt: (t) => multiplierAt(activated, t) });
    names.set(mint, { symbol: instrument?.symbol ?? null, isin: instrument?.isin ?? null, decimals });
  }
  return { followed, names };
}

/** The wallet's own fields the lot engine reads of an action (the rest are its event's). */
const WALLET_FACTS = ["id", "owner", "usd", "unitsBefore", "unitsAfter", "incomeUnits", "proceedsUsd"] as const;
type EventFacts = Omit<ActionFacts, (typeof WALLET_FACTS)[number]>;

/**
 * What the lot engine reads of each event, by the event's key. An event row is keyed by the
 * SHA-256 of its content (docs/storage.md), so a key names the same facts in any ledger for ever:
 * each event's record (several KiB of revisions and evidence) is parsed once per process, not
 * once per request. Bounded: the oldest entries go first.
 */
const eventFacts = new Map<string, EventFacts>();
const EVENT_FACTS_KEPT = 20_000;

function factsOf(record: string): EventFacts {
  const r = JSON.parse(record) as ActionFacts;
  return {
    mint: r.mint,
    type: r.type,
    treatment: r.treatment,
    category: r.category,
    transitionKey: r.transitionKey,
    effectiveAt: r.effectiveAt,
    lifecycle: { state: r.lifecycle.state },
    chain: { multiplierOld: r.chain.multiplierOld, multiplierNew: r.chain.multiplierNew },
  };
}

/** The actions booked for the wallets, as the lot engine's events (only what took force). */
async function bookedActions(tx: Sql, owners: string[]): Promise<ActionEvent[]> {
  const rows = await tx.all(actionSql.walletsOfOwners, { owners });
  const events = new Map<string, EventFacts>();
  for (const r of rows) {
    const known = eventFacts.get(r.event_sha256);
    if (known) events.set(r.event_sha256, known);
  }
  const unknown = [...new Set(rows.map((r) => r.event_sha256).filter((k) => !events.has(k)))];
  for (const e of unknown.length ? await tx.all(actionEventSql.recordsOf, { sha256s: unknown }) : []) {
    const facts = factsOf(e.record);
    events.set(e.sha256, facts);
    eventFacts.set(e.sha256, facts);
  }
  for (const k of eventFacts.keys()) {
    if (eventFacts.size <= EVENT_FACTS_KEPT) break;
    eventFacts.delete(k);
  }
  return rows.map((r) => actionEventOf({ ...events.get(r.event_sha256)!, ...storedFields(r, WALLET_FACTS) })).filter((a): a is ActionEvent => a !== null);
}
