// A ledger taken back to the shape its actions had before each corporate action was stored once
// (SQLite's migration 0014, PostgreSQL's 0005): one `actions` row per wallet × action holding its
// canonical payload and the documents it was served as, written exactly as the code of before
// wrote them. The rows are read back from the ledger as it is now (each payload checked against
// its stored hash, each document as the API serves it, which test/fixtures/demo-answers-before.json
// proves byte for byte what that code served), the new tables dropped, and the old table made by
// the old migrations' own statements.
import { Database } from "bun:sqlite";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { splice, storedAction, storedValues, type StoredWallet } from "../../src/ledger/action-rows.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { storeOnceMigration } from "../../src/ledger/tables/actions-before-events.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { hex, q, raw } from "./sql.ts";

/** The migration that stores each corporate action once, per engine. */
export { storeOnceMigration };

const statements = (sql: string) =>
  sql
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter(Boolean);

/** The migrations of the engine before the one that stores each action once. */
export const migrationsBefore = (dialect: Sql["dialect"]) => {
  const all = migrationsOf(dialect);
  return all.slice(
    0,
    all.findIndex((m) => m.tag === storeOnceMigration[dialect]),
  );
};

/**
 * The statements that made the actions table and its indexes as they stood before: SQLite's read
 * back from a scratch database the old migrations ran on; PostgreSQL's are its first migration's
 * (no later one before the change touched the table).
 */
export function actionsTableBefore(dialect: Sql["dialect"]): string[] {
  if (dialect === "postgres") {
    const later = migrationsBefore("postgres")
      .slice(1)
      .flatMap((m) => statements(m.sql));
    if (later.some((s) => s.includes('"actions"'))) throw new Error("a PostgreSQL migration after the first changed the actions table: take it into account here");
    return statements(migrationsBefore("postgres")[0]!.sql).filter((s) => /^CREATE (TABLE|INDEX) "actions[^"]*"( ON "actions")?/.test(s) && /"actions"/.test(s));
  }
  const scratch = new Database(":memory:");
  try {
    for (const m of migrationsBefore("sqlite")) for (const s of statements(m.sql)) scratch.exec(s);
    return (scratch.query("SELECT sql FROM sqlite_master WHERE tbl_name = 'actions' AND sql IS NOT NULL ORDER BY type DESC, name").all() as { sql: string }[]).map((r) => r.sql);
  } finally {
    scratch.close();
  }
}

interface StoredRow extends StoredWallet {
  mint: string;
  type: string;
  treatment: string;
  state: string;
  effective_at: string;
  v1_kind: string | null;
  payload_sha256: string;
  first_observed_active_at: string | null;
  record: string;
  summary: string;
  detail: string;
  v1_entry: string | null;
}

/**
 * What takes a migration's DDL back: the indexes it made on tables that stay go and those it
 * dropped come back as the latest migration before it made them, then the columns it added to
 * tables that stay go and a table it rebuilt is made again as it was, then the tables it made (all
 * in one statement on PostgreSQL, where they may reference each other; their triggers and indexes
 * go with them), and a table it dropped is made again, empty, as it was. An index is dropped and
 * made again only where it is (not) there: a table taken back whole has its own indexes of before.
 */
export function undoStatements(sql: string, dialect: Sql["dialect"], takenBackWhole: readonly string[] = []): string[] {
  // A table made under a new name, then renamed to the name of one it replaces (a SQLite table rebuild): made again as it was.
  const madeAt = (table: string) => sql.search(new RegExp(`CREATE TABLE [\`"]${table}[\`"]`));
  const rebuilt = [...sql.matchAll(/ALTER TABLE [`"]([^`"]+)[`"] RENAME TO [`"]([^`"]+)[`"]/g)]
    .filter((m) => madeAt(m[1]!) >= 0 && madeAt(m[1]!) < m.index)
    .map(([, from, to]) => ({ from: from!, to: to! }));
  const made = [...sql.matchAll(/CREATE TABLE [`"]([^`"]+)[`"]/g)].map(([, table]) => table!).filter((t) => !rebuilt.some((r) => r.from === t));
  const madeIndexes = [...sql.matchAll(/CREATE (?:UNIQUE )?INDEX [`"]([^`"]+)[`"] ON [`"]([^`"]+)[`"]/g)]
    .filter(([, , table]) => !made.includes(table!))
    .map(([, index]) => `DROP INDEX IF EXISTS ${index}`);
  const dropped = [...sql.matchAll(/DROP INDEX [`"]([^`"]+)[`"]/g)].map(([, index]) => indexBefore(sql, index!, dialect).replace(/^CREATE (UNIQUE )?INDEX/, "CREATE $1INDEX IF NOT EXISTS"));
  // Columns of tables the caller takes back whole (as they stood before) are left to it.
  const added = [...sql.matchAll(/ALTER TABLE [`"]([^`"]+)[`"] ADD (?:COLUMN )?[`"]([^`"]+)[`"]/g)]
    .filter(([, table]) => !takenBackWhole.includes(table!))
    .map(([, table, column]) => `ALTER TABLE ${table} DROP COLUMN ${column}`);
  // Columns it dropped: put back from where it moved them, before what it added goes.
  const droppedColumns = new Map<string, string[]>();
  for (const [, table, column] of sql.matchAll(/ALTER TABLE [`"]([^`"]+)[`"] DROP COLUMN [`"]([^`"]+)[`"]/g))
    if (!takenBackWhole.includes(table!)) droppedColumns.set(table!, [...(droppedColumns.get(table!) ?? []), column!]);
  const putBack = [...droppedColumns].flatMap(([table, columns]) => columnsPutBack(sql, table, columns, dialect));
  // A table it dropped and did not make again (a rebuild drops the one it replaces): made again, empty.
  const droppedTables = [...sql.matchAll(/DROP TABLE [`"]([^`"]+)[`"]/g)].map(([, table]) => table!).filter((t) => !made.includes(t) && !rebuilt.some((r) => r.to === t));
  const undone = [
    ...madeIndexes,
    ...dropped,
    ...putBack,
    ...added,
    ...rebuilt.filter((r) => !made.includes(r.to)).flatMap((r) => rebuildAsBefore(sql, r.to, dialect)),
    ...droppedTables.flatMap((t) => tableBefore(sql, t, dialect)),
  ];
  if (!made.length) return undone;
  return [...undone, ...(dialect === "postgres" ? [`DROP TABLE ${made.join(", ")}`] : made.map((t) => `DROP TABLE ${t}`))];
}

/** The time each row of before says it was written (not kept since migration 0026: nothing read it). */
const UPDATED_AT = "2026-01-01T00:00:00.000Z";

/**
 * Where a migration moved the columns it dropped, as SQL over the table's row `t`: put back, each
 * holds what it held (`updated_at`, which nothing read, gets a time of its own).
 */
const movedColumns: Record<string, Record<string, string>> = {
  actions: {
    ...Object.fromEntries(["mint", "type", "treatment", "state", "first_observed_active_at"].map((c) => [c, `(SELECT e.${c} FROM action_events e WHERE e.id = t.event_id)`])),
    updated_at: `'${UPDATED_AT}'`,
  },
};

/**
 * Columns a migration dropped from a table, put back with what they held (`movedColumns`): on
 * SQLite the table is made again as the migrations before left it, its rows (rowids kept) and
 * indexes with it; on PostgreSQL each column is added, filled and made NOT NULL where it was.
 */
function columnsPutBack(sql: string, table: string, columns: string[], dialect: Sql["dialect"]): string[] {
  const moved = movedColumns[table] ?? {};
  const lost = columns.filter((c) => !(c in moved));
  if (lost.length) throw new Error(`a migration dropped ${table}.${lost.join(", ")}: say in movedColumns where it moved them`);
  const [made, ...indexes] = tableBefore(sql, table, dialect);
  if (dialect === "postgres") {
    const notNull = (c: string) => new RegExp(`"${c}" [^,]*NOT NULL`).test(made!);
    return columns.flatMap((c) => [
      `ALTER TABLE ${table} ADD COLUMN ${c} text`,
      `UPDATE ${table} t SET ${c} = ${moved[c]}`,
      ...(notNull(c) ? [`ALTER TABLE ${table} ALTER COLUMN ${c} SET NOT NULL`] : []),
    ]);
  }
  const aside = `${table}_taken_back`;
  const all = [...made!.matchAll(/^\s*`([^`]+)`/gm)].map(([, c]) => c!);
  const values = all.map((c) => (columns.includes(c) ? moved[c]! : `t.${c}`));
  return [
    ...indexes.map((i) => `DROP INDEX IF EXISTS ${i.match(/INDEX [`"]([^`"]+)[`"]/)![1]}`),
    `ALTER TABLE ${table} RENAME TO ${aside}`,
    made!,
    `INSERT INTO ${table} (rowid, ${all.join(", ")}) SELECT t.rowid, ${values.join(", ")} FROM ${aside} t`,
    `DROP TABLE ${aside}`,
    ...indexes,
  ];
}

/**
 * A table made again as the engine's migrations before `sql` left it, with its rows (in the order
 * they were) and its indexes of before. SQLite's alone: only its migrations rebuild a table.
 */
function rebuildAsBefore(sql: string, table: string, dialect: Sql["dialect"]): string[] {
  if (dialect !== "sqlite") throw new Error(`a PostgreSQL migration rebuilt the table ${table}: take it back here`);
  const [made, ...indexes] = tableBefore(sql, table, dialect); // the table first, then its indexes
  const aside = `${table}_taken_back`;
  return [`ALTER TABLE ${table} RENAME TO ${aside}`, made!, `INSERT INTO ${table} SELECT * FROM ${aside}`, `DROP TABLE ${aside}`, ...indexes];
}

/**
 * The statements that made a table and its indexes as the engine's migrations before `sql` left
 * them: SQLite's read back from a scratch database they ran on; PostgreSQL's the latest statement
 * that made it (its key inline) and the indexes made on it after.
 */
function tableBefore(sql: string, table: string, dialect: Sql["dialect"]): string[] {
  const all = migrationsOf(dialect);
  const before = all.slice(
    0,
    all.findIndex((m) => m.sql === sql),
  );
  if (dialect === "postgres") {
    const made = before.flatMap((m) => statements(m.sql)).map((s) => s.replace(/;$/, ""));
    const at = made.findLastIndex((s) => new RegExp(`^CREATE TABLE "${table}"`).test(s));
    if (at < 0) throw new Error(`no migration before this one made the table ${table}`);
    return [made[at]!, ...made.slice(at + 1).filter((s) => new RegExp(`^CREATE (UNIQUE )?INDEX "[^"]+" ON "${table}"`).test(s))];
  }
  const scratch = new Database(":memory:");
  try {
    for (const m of before) for (const s of statements(m.sql)) scratch.exec(s);
    const shape = scratch.query("SELECT type, sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC, name").all(table) as { type: string; sql: string }[];
    if (!shape.some((r) => r.type === "table")) throw new Error(`no migration before this one made the table ${table}`);
    return shape.map((r) => r.sql);
  } finally {
    scratch.close();
  }
}

/** The statement that made an index, in the latest of the engine's migrations before `sql`. */
function indexBefore(sql: string, index: string, dialect: Sql["dialect"]): string {
  const all = migrationsOf(dialect);
  const made = all
    .slice(
      0,
      all.findIndex((m) => m.sql === sql),
    )
    .flatMap((m) => statements(m.sql))
    .filter((s) => new RegExp(`^CREATE (UNIQUE )?INDEX [\`"]${index}[\`"]`).test(s));
  if (!made.length) throw new Error(`no migration before this one made the index ${index}`);
  return made.at(-1)!.replace(/;$/, "");
}

/**
 * Takes the ledger's actions back to their shape before (see above); the migration's record goes
 * too, and so does every later migration, with what it made (the migrator applies what is dated
 * after the last migration it recorded, so a later record would hide this one).
 */
export async function takeActionsBack(db: Sql): Promise<number> {
  const rows = await db.all(
    ...q<StoredRow>`SELECT a.id, a.owner, a.effective_at, a.usd, a.v1_kind, ${hex("a.payload_sha256")}, ${hex("a.evidence_sha256")}, a.wallet_values, a.event_id, e.mint, e.type, e.treatment, e.state, e.first_observed_active_at, e.record, e.summary, e.detail, e.v1_entry
      FROM actions a JOIN action_events e ON e.id = a.event_id ORDER BY a.id`,
  );
  const before = rows.map((r) => {
    const payload = canonicalJson(storedAction(r, r.record));
    if (sha256Hex(payload) !== r.payload_sha256) throw new Error(`action ${r.id}: its payload does not come back to its hash`);
    const values = storedValues(r);
    return q`INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, detail, payload_sha256, evidence_sha256,
      first_observed_active_at, updated_at) VALUES (${r.id}, ${r.owner}, ${r.mint}, ${r.type}, ${r.treatment}, ${r.state}, ${r.effective_at}, ${r.usd}, ${payload},
      ${splice(r.summary, values)}, ${r.v1_entry === null ? null : splice(r.v1_entry, values)}, ${r.v1_kind}, ${splice(r.detail, values)}, ${r.payload_sha256},
      ${r.evidence_sha256}, ${r.first_observed_active_at}, ${UPDATED_AT})`;
  });
  await db.write(async (tx) => {
    await tx.run(...q`DROP TABLE actions`);
    await tx.run(...q`DROP TABLE action_events`);
    for (const s of actionsTableBefore(db.dialect)) await tx.run(...q`${raw(s)}`);
    for (const insert of before) await tx.run(...insert);
    const all = migrationsOf(db.dialect);
    const undone = all.slice(all.findIndex((m) => m.tag === storeOnceMigration[db.dialect]));
    for (const later of undone.slice(1).reverse()) for (const s of undoStatements(later.sql, db.dialect, ["actions", "action_events"])) await tx.run(...q`${raw(s)}`);
    const records = db.dialect === "sqlite" ? ["__drizzle_migrations", "__migrations_applied_at"] : [`drizzle."__drizzle_migrations"`, `drizzle."__migrations_applied_at"`];
    for (const migration of undone) for (const table of records) await tx.run(...q`DELETE FROM ${raw(table)} WHERE hash = ${sha256Hex(migration.sql)}`);
  });
  return before.length;
}

/**
 * The tables that exist only while a migration's data step runs (src/ledger/upgrades.ts), so the
 * step's statements can be prepared on a migrated ledger: the actions of before, renamed as the
 * migration renames them, and the positions of before the portfolio held them.
 */
export function dataStepTables(dialect: Sql["dialect"]): string[] {
  const table = actionsTableBefore(dialect).find((s) => /^CREATE TABLE/.test(s))!;
  const positions = migrationsOf(dialect).find((m) => m.tag.endsWith("_read_models_once"))!;
  return [table.replace(/^CREATE TABLE [`"]?actions[`"]?/, "CREATE TABLE actions_before_events"), ...tableBefore(positions.sql, "positions", dialect)];
}
