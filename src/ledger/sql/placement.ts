// Rows placed in key order in SQLite's rowid tables (docs/storage.md#rows-placed-in-key-order).
//
// A rowid table keeps its rows in rowid order, and a row inserted without one gets the next: the
// order rows were first written. Booking re-books wallets in chunks taken in address order, and an
// issuer record re-books every holder of one corporate action at once, so the rows a chunk rewrote
// were scattered over the table and a page was written again by every chunk that had a row on it.
// Where rows are too large for a WITHOUT ROWID table (whose entries hold about 1 KB before the rest
// spills to an overflow page), the rowid is chosen instead: the row's slot in key order, or the
// first free rowid after it when the slot is taken. Placement is only about which page a row sits
// on: nothing reads a rowid, and a row that finds no free rowid gets the next one as before.
// PostgreSQL keeps rows apart from their keys' order whatever is done: there, nothing is chosen.
import { byEngine, ident, type Param, query, SqlFragment, sql } from "./statement.ts";

/** A number written into the statement (a constant of the layout, never a value). */
const literal = (n: number | bigint): SqlFragment => new SqlFragment([String(n)]);

/** Before the values of an INSERT into a placed table: the rowid column, on SQLite. */
export const placedColumn = byEngine({ sqlite: sql`rowid, `, postgres: sql`` });

/**
 * A wallet address as an integer in address order: its first 7 characters, 7 bits each (49 bits).
 * Addresses are ASCII (base58), where text order is byte order, so a < b gives key(a) <= key(b);
 * two addresses alike in their first 7 characters share a key, and then a slot.
 */
const ownerKey = (owner: Param<string>): SqlFragment => {
  const char = (i: number) => sql`((coalesce(unicode(substr(${owner}, ${literal(i + 1)}, 1)), 0) & 127) << ${literal(42 - 7 * i)})`;
  return sql`(${char(0)} | ${char(1)} | ${char(2)} | ${char(3)} | ${char(4)} | ${char(5)} | ${char(6)})`;
};

/**
 * The rowid for a new row whose slot is `at`, searched no further than `before`: the slot when it
 * is free, else the first free rowid after it, else none (NULL: SQLite appends the row). SQLite's.
 */
function placed(table: string, at: SqlFragment, before: SqlFragment): SqlFragment {
  const t = ident(table);
  return sql`(SELECT coalesce(
      (SELECT s.at WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE rowid = s.at)),
      (SELECT r.rowid + 1 FROM ${t} r WHERE r.rowid >= s.at AND r.rowid < s.before - 1 AND NOT EXISTS (SELECT 1 FROM ${t} n WHERE n.rowid = r.rowid + 1) ORDER BY r.rowid LIMIT 1))
     FROM (SELECT ${at} AS at, ${before} AS before) s)`;
}

/** A wallet's rowid in a table with one row per wallet: slots 2^13 apart, in address order. */
export const ownerRowid = (table: "portfolios" | "yields", owner: Param<string>): SqlFragment => placed(table, sql`(${ownerKey(owner)} << 13)`, literal(2n ** 62n));

/**
 * An action's rowid: the rows of one corporate action's event side by side (2^24 rowids an event),
 * in address order within it (the first 24 bits of the address's key). All of an event's holders
 * are re-booked together when its issuer record changes.
 */
export const actionRowid = (eventId: Param<number>, owner: Param<string>): SqlFragment => placed("actions", sql`((${eventId} << 24) | (${ownerKey(owner)} >> 25))`, sql`((${eventId} + 1) << 24)`);

/** The value for `placedColumn` in an INSERT's VALUES: the rowid on SQLite, nothing on PostgreSQL. */
export const placedValue = (rowid: SqlFragment): SqlFragment => byEngine({ sqlite: sql`${rowid}, `, postgres: sql`` });

/**
 * The upgrade's statements for a table with one row per wallet (../upgrades.ts; SQLite's alone):
 * its wallets in address order, and the move of one wallet's row to its place (where it stays
 * when no rowid is free there).
 */
export const ownerPlacement = (table: "portfolios" | "yields") => ({
  placeKeys: query<Record<never, never>, { owner: string }>(() => sql`SELECT owner FROM ${ident(table)} ORDER BY owner`, { engines: ["sqlite"] }),
  place: query<{ owner: string }>((p) => sql`UPDATE ${ident(table)} SET rowid = coalesce(${ownerRowid(table, p.owner)}, rowid) WHERE owner = ${p.owner}`, { engines: ["sqlite"] }),
});
