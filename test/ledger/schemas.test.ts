// PostgreSQL's schema (src/ledger/schema-postgres.ts) is derived from SQLite's (schema.ts); this
// checks the derivation: both describe the same ledger, with the same tables, columns (name, kind, nullability,
// default), keys, unique columns, foreign keys and indexes (columns, uniqueness, partial
// condition). Kinds compare as the ledger stores them: text is text (collated bytewise on
// PostgreSQL), every integer an integer (64-bit in both, flags 0 or 1). Each identifier fits
// PostgreSQL's 63 bytes, and both engines' migrations install the same append-only triggers.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { is, SQL } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqlite from "../../src/ledger/schema.ts";
import * as postgres from "../../src/ledger/schema-postgres.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { triggerNames, tableNames } from "../../src/ledger/sql/dialect.ts";
import { tempDir } from "../harness/index.ts";

const root = join(import.meta.dir, "..", "..");

/** A column's kind as the ledger uses it. */
function kind(sqlType: string): "text" | "integer" {
  if (/^text( COLLATE "C")?$/.test(sqlType)) return "text";
  if (/^(integer|bigint)$/.test(sqlType)) return "integer";
  throw new Error(`a column of type ${sqlType}: the ledger stores text and integers only`);
}

/** Booleans stored as 0/1: a default of false is 0. */
const defaultOf = (v: unknown) => (v === false ? 0 : v === true ? 1 : (v ?? null));

/** The SQL text of a partial index's condition. */
function whereText(where: unknown): string | null {
  if (!where) return null;
  if (!is(where, SQL)) throw new Error("an index condition that is not plain SQL");
  return (where.queryChunks as { value?: string[]; name?: string }[])
    .map((c) => c.value?.join("") ?? c.name ?? "")
    .join("")
    .trim();
}

type Config = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>;

function describeTable(config: Config) {
  return {
    columns: config.columns.map((c) => ({
      name: c.name,
      kind: kind(c.getSQLType()),
      notNull: c.notNull,
      primary: c.primary,
      unique: c.isUnique,
      default: defaultOf(c.default),
      identity: Boolean((c as { autoIncrement?: boolean }).autoIncrement || (c as { generatedIdentity?: unknown }).generatedIdentity),
    })),
    primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name)),
    foreignKeys: config.foreignKeys.map((f) => {
      const r = f.reference();
      return { columns: r.columns.map((c) => c.name), references: r.foreignColumns.map((c) => `${(c.table as unknown as { [k: symbol]: string })[Symbol.for("drizzle:Name")]}.${c.name}`) };
    }),
    indexes: config.indexes.map((i) => ({
      name: i.config.name,
      unique: i.config.unique,
      where: whereText(i.config.where),
      // An index on an expression: its SQL, the columns it names by name.
      columns: (i.config.columns as { name: string }[]).map((c) => (is(c, SQL) ? `(${whereText(c)})` : c.name)),
    })),
  };
}

const tablesOf = <T>(schema: Record<string, unknown>, isTable: (t: unknown) => t is T, config: (t: T) => Config) =>
  new Map(
    Object.values(schema)
      .filter(isTable)
      .map((t) => [config(t).name, describeTable(config(t))]),
  );

const sqliteTables = tablesOf(sqlite, (t): t is SQLiteTable => is(t, SQLiteTable), sqliteConfig);
const postgresTables = tablesOf(postgres, (t): t is PgTable => is(t, PgTable), pgConfig);

describe("the SQLite and PostgreSQL schemas", () => {
  test("have the same tables", () => {
    expect([...postgresTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
    expect(sqliteTables.size).toBeGreaterThan(25);
  });

  for (const [name, table] of sqliteTables) {
    test(`${name}: the same columns, keys and indexes`, () => {
      expect(postgresTables.get(name)).toEqual(table);
    });
  }

  test("every identifier fits PostgreSQL's 63 bytes (longer ones are cut, and two could collide)", () => {
    const sql = readdirSync(join(root, "migrations-postgres"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => readFileSync(join(root, "migrations-postgres", f), "utf8"))
      .join("\n");
    const identifiers = [...sql.matchAll(/"([a-z0-9_]+)"/g)].map((m) => m[1]!);
    expect(identifiers.length).toBeGreaterThan(100);
    expect(identifiers.filter((i) => Buffer.byteLength(i) > 63)).toEqual([]);
  });

  test("both engines' migrations install the same append-only triggers", async () => {
    const ledger = await openLedger(tempDir()); // SQLite: its migrations applied in order
    const sqliteTriggers = new Set<string>();
    for (const table of await tableNames(ledger.db)) for (const t of await triggerNames(ledger.db, table)) sqliteTriggers.add(`${table}.${t}`);
    await ledger.close();
    const pgSql = readdirSync(join(root, "migrations-postgres"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => readFileSync(join(root, "migrations-postgres", f), "utf8"))
      .join("\n");
    const pgTriggers = new Set([...pgSql.matchAll(/CREATE TRIGGER (\w+) \w+ \w+ ON (\w+)/g)].map((m) => `${m[2]}.${m[1]}`));
    expect([...pgTriggers].sort()).toEqual([...sqliteTriggers].sort());
    expect(sqliteTriggers.size).toBe(20); // with transaction_changes and cost_basis_declarations (docs/lots.md#what-the-sync-stores), events and event_templates (docs/events.md)
  });
});
