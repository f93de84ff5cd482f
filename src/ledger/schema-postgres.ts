// The ledger's tables on PostgreSQL, derived from schema.ts (SQLite), which says once what each
// table and column holds: the same tables, columns, keys, foreign keys and indexes, column for
// column. The engines differ only where they must:
// - text is collated "C" (bytewise, as SQLite compares), so every ORDER BY, range and index
//   orders text the same in both engines whatever the database's own locale: the engine reads
//   its input in the same order and derives the same actions and hashes;
// - integers are bigint (SQLite's are 64-bit); an autoincrement key is an identity column; the
//   flags (SQLite's booleans) are integers holding 0 or 1 as in SQLite, so a flag reads and
//   compares the same in both;
// - exact values (amounts, multipliers, USD) are text decimals and JSON is text, as in SQLite:
//   never numeric, float or jsonb, which would rewrite what was stored and so its hash.
// drizzle-kit generates migrations-postgres/ from this file (drizzle.postgres.config.ts), as it
// generates migrations/ from schema.ts.
import { getTableColumns, is, SQL } from "drizzle-orm";
import { bigint, customType, index, integer, pgTable, primaryKey, uniqueIndex, type PgColumn, type PgColumnBuilderBase, type PgTable } from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteTable, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import * as sqlite from "./schema.ts";

/** Text compared byte by byte, as SQLite compares it. */
const text = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

type SqliteTables = { [K in keyof typeof sqlite as (typeof sqlite)[K] extends SQLiteTable ? K : never]: (typeof sqlite)[K] };

const byName = new Map<string, PgTable>();

/** One SQLite column as PostgreSQL stores it (see the head of this file). */
function column(c: SQLiteColumn, table: SQLiteTable): PgColumnBuilderBase {
  const flag = c.columnType === "SQLiteBoolean";
  const type = c.getSQLType();
  if (type !== "text" && type !== "integer") throw new Error(`${c.name}: a column of type ${type}; the ledger stores text and integers only`);
  // The builders' chained calls change their type parameters; the derived table's column types are not used.
  let b: any = type === "text" ? text(c.name) : flag ? integer(c.name) : bigint(c.name, { mode: "number" });
  if (c.primary) b = b.primaryKey();
  if ((c as { autoIncrement?: boolean }).autoIncrement) b = b.generatedByDefaultAsIdentity();
  if (c.notNull && !c.primary) b = b.notNull();
  if (c.hasDefault && c.default !== undefined) b = b.default(typeof c.default === "boolean" ? Number(c.default) : c.default);
  if (c.isUnique) b = b.unique();
  const fk = getTableConfig(table).foreignKeys.find((f) => f.reference().columns.some((x) => x.name === c.name));
  if (fk) {
    const ref = fk.reference();
    const target = getTableConfig(ref.foreignTable as SQLiteTable).name;
    const targetColumn = ref.foreignColumns[0]!.name;
    b = b.references(() => Object.values(getTableColumns(byName.get(target)!)).find((x) => x.name === targetColumn)! as PgColumn);
  }
  return b;
}

function derive(table: SQLiteTable): PgTable {
  const config = getTableConfig(table);
  const columns = Object.fromEntries(Object.entries(getTableColumns(table)).map(([key, c]) => [key, column(c as SQLiteColumn, table)]));
  const keyOf = new Map(Object.entries(getTableColumns(table)).map(([key, c]) => [c.name, key]));
  const derived = pgTable(config.name, columns, (t: Record<string, PgColumn>) => {
    const on = (cs: { name: string }[]) => cs.map((c) => t[keyOf.get(c.name)!]!) as [PgColumn, ...PgColumn[]];
    // An index on an expression keeps its SQL: it names the columns, which render the same in both.
    const indexed = (cs: ({ name: string } | SQL)[]) => cs.map((c) => (is(c, SQL) ? c : t[keyOf.get(c.name)!]!)) as [PgColumn | SQL, ...(PgColumn | SQL)[]];
    return [
      ...config.primaryKeys.map((k) => primaryKey({ columns: on(k.columns) })),
      ...config.indexes.map((i) => {
        const built = (i.config.unique ? uniqueIndex : index)(i.config.name).on(...indexed(i.config.columns as ({ name: string } | SQL)[]));
        return i.config.where ? built.where(i.config.where as SQL) : built;
      }),
    ];
  });
  byName.set(config.name, derived);
  return derived;
}

const tables = Object.fromEntries((Object.entries(sqlite) as [string, unknown][]).filter((e): e is [string, SQLiteTable] => is(e[1], SQLiteTable)).map(([key, t]) => [key, derive(t)])) as {
  [K in keyof SqliteTables]: PgTable;
};

// Named one by one: drizzle-kit reads the module's exports.
export const {
  tenants,
  apiKeys,
  dashboardSessions,
  tenantWallets,
  syncJobs,
  instruments,
  issuerRevisions,
  issuerRejections,
  mintStates,
  multiplierUpdates,
  tokenAccounts,
  balanceChanges,
  walkCursors,
  ownerScans,
  walletGaps,
  transitionsSeen,
  dirtyWallets,
  dirtyMints,
  actionEvents,
  actions,
  journal,
  referenceRates,
  yields,
  portfolios,
  lineage,
  censusInstances,
  mintSchedule,
  taxonomyCensus,
  datasetLabel,
  ledgerState,
  unbookedRevisions,
  feedStatus,
  transactionChanges,
  costBasisDeclarations,
  eventTemplates,
  events,
  webhookSubscriptions,
  webhookDeliveries,
  calendarTokens,
} = tables;
