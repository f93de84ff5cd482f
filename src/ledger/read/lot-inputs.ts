// What the lot engine (src/domain/lots) derives one tenant's lots from, read from the ledger
// (docs/lots.md#what-the-sync-stores): the movements of every wallet the tenant follows, priced
// by the stored transaction parts and recognising own transfers across those wallets; the actions
// booked for them; the cost-basis declarations the operator imported; and what the ledger knows
// of each mint (symbol, ISIN, decimals). Nothing derived is stored: the routes derive per request.
import { actionEventOf, type ActionEvent, DEFAULT_STABLECOINS, type LotInput, type LotProblem } from "../../domain/lots/index.ts";
import { declarationsInput } from "../../domain/lots/declarations.ts";
import type { OwnerTransactionChanges } from "../../domain/lots/owner-changes.ts";
import type { InstrumentNames } from "../../domain/lots/present.ts";
import { type FollowedMint, tenantMovements } from "../../domain/lots/tenant-movements.ts";
import { liftF64 } from "../../domain/numbers.ts";
import { buildTransitions, effectiveTransitions, multiplierAt } from "../../domain/timeline.ts";
import { groupBy } from "../group.ts";
import { actionRecords } from "../queries/actions.ts";
import type { Sql } from "../sql/port.ts";
import { balanceChangeFromRow, balanceChangeSql } from "../tables/balance-changes.ts";
import { instrumentSql } from "../tables/instruments.ts";
import { mintStateSql } from "../tables/mint-states.ts";
import { multiplierUpdateSql, updateFromRow } from "../tables/multiplier-updates.ts";
import { tenantWalletSql } from "../tables/tenant-wallets.ts";
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
    let owners = await tenantOwners(tx, tenantId, opts.owners);
    if (opts.linkedTo) owners = await linkedOwners(tx, owners, opts.linkedTo);
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
async function tenantOwners(tx: Sql, tenantId: number, wanted: string[] | undefined): Promise<string[]> {
  const rows = await tx.all(tenantWalletSql.ofTenant, { tenantId });
  const keep = wanted ? new Set(wanted) : null;
  return rows
    .filter((r) => r.first_synced_at !== null)
    .map((r) => r.owner)
    .filter((o) => !keep || keep.has(o));
}

/** The wallets among `owners` linked to `wanted` by shared transactions (see LotInputOptions.linkedTo), sorted. */
async function linkedOwners(tx: Sql, owners: string[], wanted: string[]): Promise<string[]> {
  const known = new Set(owners);
  const pairs = await tx.all(balanceChangeSql.sharedAmong, { owners });
  const bySignature = groupBy(pairs, (p) => p.signature);
  const neighbours = new Map<string, Set<string>>();
  for (const rows of bySignature.values()) {
    for (const a of rows) for (const b of rows) if (a.owner !== b.owner) (neighbours.get(a.owner) ?? neighbours.set(a.owner, new Set()).get(a.owner)!).add(b.owner);
  }
  const reached = new Set(wanted.filter((w) => known.has(w)));
  const queue = [...reached];
  while (queue.length)
    for (const n of neighbours.get(queue.pop()!) ?? [])
      if (!reached.has(n)) {
        reached.add(n);
        queue.push(n);
      }
  return owners.filter((o) => reached.has(o));
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

/** The actions booked for the wallets, as the lot engine's events (only what took force). */
async function bookedActions(tx: Sql, owners: string[]): Promise<ActionEvent[]> {
  const records = await actionRecords(tx, { owners });
  return records.map(actionEventOf).filter((a): a is ActionEvent => a !== null);
}
