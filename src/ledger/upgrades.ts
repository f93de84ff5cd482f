// The data steps of migrations: rows the SQL alone cannot rewrite, moved in TypeScript right after
// their migration's SQL and in its transaction (migrations.ts runs them), so a ledger is upgraded
// in place whole or not at all.
import { canonicalJson } from "../domain/evidence.ts";
import type { ActionRecord, PositionRecord } from "../domain/types.ts";
import { actionRow, storedAction, WALLET_VALUES } from "./action-rows.ts";
import { storePortfolios } from "./portfolio-render.ts";
import { actionDetailBase } from "./projections.ts";
import { markDirty } from "./dirty.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql } from "./tables/actions.ts";
import { actionsBeforeEventsSql } from "./tables/actions-before-events.ts";
import { portfolioSql } from "./tables/portfolios.ts";
import { positionsBeforeSql } from "./tables/positions-before.ts";
import { yieldSql } from "./tables/yields.ts";
import { eventRowIds } from "./writers.ts";

/** By migration tag (each engine's own); each returns how many rows it moved. */
export const dataSteps: Record<string, (tx: Sql) => Promise<number>> = {
  "0015_action_events": storeEachActionOnce,
  "0006_action_events": storeEachActionOnce,
  "0020_rows_placed_in_key_order": placeRowsInKeyOrder,
  "0021_portfolios_hold_positions": portfoliosFromPositions,
  "0010_portfolios_hold_positions": portfoliosFromPositions,
};

const ROWS_PER_READ = 500;

/**
 * Moves each action row of before (its payload and the documents it was served as, in
 * actions_before_events) into the wallet's row and the event row it shows (docs/storage.md), then
 * drops that table. The documents are carried as they were served, byte for byte, and so are the
 * row's columns and hashes; only the payload is not kept as text: it is the event's record with
 * the wallet's values put back. A payload that does not come back byte for byte (written before
 * every field it has now existed) gets its wallet booked again. The rows are written as the
 * tables stood at this migration (later ones changed them: 0026 moved the event's columns to its
 * row), each event row once, by the first action that shows it.
 */
async function storeEachActionOnce(tx: Sql): Promise<number> {
  const eventId = eventRowIds(tx, actionsBeforeEventsSql.insertEvent);
  const rebook = new Set<string>();
  let moved = 0;
  for (let after = ""; ; ) {
    const rows = await tx.all(actionsBeforeEventsSql.page, { after, limit: ROWS_PER_READ });
    for (const r of rows) {
      const a = JSON.parse(r.payload) as ActionRecord;
      const fields = a as unknown as Record<string, unknown>;
      for (const f of WALLET_VALUES) if (!f.startsWith("shown.") && fields[f] === undefined) fields[f] = null;
      // Rows from before migration 0004 have no detail: it was projected per request, as here.
      const docs = { summary: JSON.parse(r.summary), detail: r.detail === null ? actionDetailBase(a) : JSON.parse(r.detail), v1: r.v1_entry === null ? null : JSON.parse(r.v1_entry) };
      const { event, columns } = actionRow(a, r.payload, r.payload_sha256, docs);
      const { payload: _p, summary: _s, v1_entry: _v, detail: _d, ...kept } = r;
      await tx.run(actionsBeforeEventsSql.insertAction, { ...kept, wallet_values: columns.walletValues, event_id: await eventId(event) });
      const back = storedAction({ ...r, wallet_values: columns.walletValues }, event.record);
      if (canonicalJson(back) !== r.payload) rebook.add(r.owner);
      moved++;
    }
    if (rows.length < ROWS_PER_READ) break;
    after = rows.at(-1)!.id;
  }
  await tx.run(actionsBeforeEventsSql.drop);
  if (rebook.size) await markDirty(tx, "wallet", [...rebook], new Date().toISOString());
  return moved;
}

/**
 * Moves the rows of actions, portfolios and yields to their places in key order, each found as a
 * new row's is (sql/placement.ts), so a ledger made before re-books in contiguous pages from its
 * first booking after the upgrade. Rows are moved in key order; none is read by its rowid.
 */
async function placeRowsInKeyOrder(tx: Sql): Promise<number> {
  let moved = 0;
  for (const a of await tx.all(actionSql.placeKeys)) moved += (await tx.run(actionSql.place, { id: a.id, eventId: a.event_id, owner: a.owner })).changes;
  for (const table of [portfolioSql, yieldSql]) for (const { owner } of await tx.all(table.placeKeys)) moved += (await tx.run(table.place, { owner })).changes;
  return moved;
}

/**
 * Stores the portfolio of each wallet that has positions but none stored (not booked since a
 * ledger from before the portfolio read model was upgraded: until then the route rendered it from
 * the positions), rendered from them, before the next migration drops them; the wallet's income
 * and actions are read as booking reads them.
 */
async function portfoliosFromPositions(tx: Sql): Promise<number> {
  const positions = new Map<string, PositionRecord[]>();
  for (const r of await tx.all(positionsBeforeSql.withoutPortfolio)) {
    const held = positions.get(r.owner) ?? [];
    held.push(JSON.parse(r.payload) as PositionRecord);
    positions.set(r.owner, held);
  }
  await storePortfolios(tx, positions, new Date().toISOString());
  return positions.size;
}
