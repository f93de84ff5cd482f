// `ca-ledger verify` catches a bit flip in every byte the API serves. A demo ledger (with issuer
// corrections, so the journal holds reversals) has one bit flipped at a time, at seeded random
// places in every served column of every table: verify must fail each time. The flips are made
// below SQL's rules (every trigger dropped first), as a disk or a careless tool would. Both
// engines share the columns, the seeded generator and the loop; only the flip is each engine's:
// SQLite's in the file's bytes of the value, PostgreSQL's through the port, in a character of a
// text (kept valid UTF-8, as PostgreSQL requires) or an integer within its type's width.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { tableNames, triggerNames } from "../../src/ledger/sql/dialect.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { copyLedger, dropTrigger, ledgerArgs, ledgerTarget } from "../support/engine.ts";
import { appendCorrection, cli, demoDataDir, importEcbSample, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { q, raw } from "../support/sql.ts";
import { rowKey } from "../support/sqlite-rows.ts";

afterAll(removeTempDirs);

/** Every column a route reads, by table (write times nothing serves are left out). */
const served: Record<string, string[]> = {
  actions: ["id", "owner", "effective_at", "usd", "v1_kind", "payload_sha256", "evidence_sha256", "wallet_values", "event_id"],
  // What every wallet holding a corporate action shows alike, stored once (docs/storage.md).
  action_events: ["id", "sha256", "mint", "transition_key", "type", "treatment", "state", "first_observed_active_at", "record", "summary", "detail", "v1_entry"],
  journal: [
    "id",
    "owner",
    "action_id",
    "entry_type",
    "reverses_id",
    "mint",
    "symbol",
    "type",
    "treatment",
    "kind",
    "units_delta",
    "principal_units_delta",
    "income_units",
    "usd",
    "factor",
    "effective_at",
    "change_reason",
    "evidence_sha256",
    "payload",
    "created_at",
  ],
  lineage: ["mint", "payload"],
  taxonomy_census: ["type", "payload"],
  // What the taxonomy is summed from, per mint.
  census_instances: ["transition_key", "mint", "type", "event_id", "version", "reconciled"],
  yields: ["owner", "payload"],
  portfolios: ["owner", "body"],
  instruments: ["mint", "symbol", "name", "underlying", "isin", "decimals", "updated_at"],
  mint_states: ["mint", "slot", "decimals", "authority", "multiplier", "new_multiplier", "new_multiplier_effective_ts", "observed_at"],
  multiplier_updates: ["signature", "ix_index", "mint", "slot", "block_time", "multiplier", "effective_ts", "authority"],
  issuer_revisions: ["event_id", "version", "symbol", "payload", "payload_sha256", "edited", "ingested_at"],
  dataset_label: ["kind", "description", "created_at"],
  // The year report converts with these (the ECB sample is imported below).
  reference_rates: ["currency", "date", "per_eur"],
};
const trialsPerColumn = 4;
// The recorded asset list has no names, and decimals come from the chain (mint_states): the two
// served columns the demo leaves empty.
const emptyInDemo = ["instruments.name", "instruments.decimals"];

/** mulberry32: a small seeded generator, so a failing flip can be replayed exactly. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A flipped cell, and how to write its value back. */
interface Flip {
  table: string;
  column: string;
  row: string;
  where: string;
  undo(): Promise<unknown>;
}

/**
 * What a flip needs from an engine: a column's cells (those with a bit to flip: not null, not
 * empty, as a journal amount that names the entry's units is), a flipped value for one, and a write.
 */
interface FlipSite<Cell> {
  cells(table: string, column: string): Promise<Cell[]>;
  /** The cell's value with one bit flipped (`rand` picks the bit), and where, for the message. */
  flipped(cell: Cell, rand: () => number): { value: unknown; where: string };
  /** Writes `value` into the cell; returns what writes the cell's own value back. */
  write(table: string, column: string, cell: Cell, value: unknown): Promise<() => Promise<unknown>>;
  label(cell: Cell): string;
}

/** One bit flipped in a seeded cell of `table.column`, or null when the column holds nothing. */
async function flipWith<Cell>(site: FlipSite<Cell>, table: string, column: string, rand: () => number): Promise<Flip | null> {
  const cells = await site.cells(table, column);
  if (!cells.length) return null;
  const c = cells[Math.floor(rand() * cells.length)]!;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const { value, where } = site.flipped(c, rand);
      return { table, column, row: site.label(c), where, undo: await site.write(table, column, c, value) };
    } catch (e) {
      if (!/constraint/i.test(String(e))) throw e; // a flipped key that collides with another row: flip another bit
    }
  }
  return null;
}

/** SQLite stores an integer in 1, 2, 3, 4, 6 or 8 bytes: flip a bit within the stored width. */
function intWidth(v: bigint): number {
  for (const w of [1, 2, 3, 4, 6]) if (v >= -(1n << BigInt(8 * w - 1)) && v < 1n << BigInt(8 * w - 1)) return w;
  return 8;
}

/** Flips `bit` of a two's-complement integer `width` bytes wide. */
const flipInt = (v: bigint, width: number, bit: number) => BigInt.asIntN(8 * width, v ^ (1n << BigInt(bit)));

/**
 * SQLite: the bytes of the file's value, written back as they are (a hash kept as bytes is
 * written back as bytes, src/ledger/sql/hash-bytes.ts). A text's flipped byte may make
 * it invalid UTF-8, which SQLite stores as given (as a disk would leave it). A row is found by its
 * rowid, or in a table without one by its primary key's bytes (test/support/sqlite-rows.ts), so a
 * key a flip left invalid UTF-8 is found again to undo it.
 */
function sqliteSite(db: Database): FlipSite<{ key: unknown[]; type: string; bytes: Uint8Array; v: unknown }> {
  const keyOf = (table: string) => rowKey(db, table).map((k) => (k === "rowid" ? k : `CAST(${k} AS BLOB)`));
  const keyColumns = (table: string) => keyOf(table).map((k, i) => `${k} AS k${i}`);
  const keyValues = (table: string, row: Record<string, unknown>) => keyOf(table).map((_, i) => row[`k${i}`]);
  return {
    cells: async (table, column) =>
      (
        db
          .query(
            `SELECT ${keyColumns(table).join(", ")}, typeof("${column}") AS type, CAST("${column}" AS BLOB) AS bytes, "${column}" AS v FROM "${table}" WHERE length(CAST("${column}" AS BLOB)) > 0`,
          )
          .all() as Record<string, unknown>[]
      ).map((r) => ({ key: keyValues(table, r), type: r.type as string, bytes: r.bytes as Uint8Array, v: r.v })),
    flipped(c, rand) {
      if (c.type !== "integer") {
        const at = Math.floor(rand() * c.bytes.length),
          bit = Math.floor(rand() * 8);
        const value = Uint8Array.from(c.bytes);
        value[at]! ^= 1 << bit;
        return { value, where: `byte ${at} bit ${bit}` };
      }
      const v = BigInt(c.v as number),
        width = intWidth(v),
        bit = Math.floor(rand() * 8 * width);
      return { value: flipInt(v, width, bit), where: `integer ${v} bit ${bit}` };
    },
    async write(table, column, c, value) {
      // RETURNING the row's key: an INTEGER PRIMARY KEY is the rowid, and a flip of a key moves the row.
      const set = db.query(
        `UPDATE "${table}" SET "${column}" = ${c.type === "text" ? "CAST(? AS TEXT)" : "?"} WHERE ${keyOf(table)
          .map((k) => `${k} = ?`)
          .join(" AND ")} RETURNING ${keyColumns(table).join(", ")}`,
      );
      const moved = keyValues(table, set.get(value as Uint8Array | bigint, ...(c.key as never[])) as Record<string, unknown>);
      return async () => set.get(c.type === "integer" ? BigInt(c.v as number) : c.bytes, ...(moved as never[]));
    },
    label: (c) => `key ${c.key.map((k) => (k instanceof Uint8Array ? new TextDecoder().decode(k) : String(k))).join(" ")}`,
  };
}

/** How many bits of a code point its UTF-8 length carries (7, 11, 16 or 21). */
const payloadBits = (cp: number) => (cp < 0x80 ? 7 : cp < 0x800 ? 11 : cp < 0x10000 ? 16 : 21);

/**
 * A bit of one character of `text` flipped, the text staying valid UTF-8 (PostgreSQL refuses
 * anything else): a bit the character's UTF-8 bytes carry, so its length in bytes is kept, drawn
 * again when it would give NUL, a surrogate or a code point past Unicode's last.
 */
function flipCharacter(text: string, rand: () => number): { value: string; where: string } {
  const chars = [...text];
  const at = Math.floor(rand() * chars.length),
    cp = chars[at]!.codePointAt(0)!;
  for (;;) {
    const bit = Math.floor(rand() * payloadBits(cp)),
      flipped = cp ^ (1 << bit);
    if (flipped === 0 || (flipped >= 0xd800 && flipped <= 0xdfff) || flipped > 0x10ffff) continue;
    chars[at] = String.fromCodePoint(flipped);
    return { value: chars.join(""), where: `character ${at} bit ${bit}` };
  }
}

/**
 * PostgreSQL, through the port: a text's character (flipCharacter), or an integer's bit within
 * its type's width (8 bytes for bigint, 4 for the 0/1 flags). Rows have no stable rowid there:
 * each cell is found by its row's physical place (ctid, which a write moves, so the write returns
 * the new one), and cells are listed in the order of their rows' text, so a seed picks the same
 * cell every run.
 */
function postgresSite(db: Sql): FlipSite<{ ctid: string; type: string; width: number; v: string }> {
  return {
    cells: (table, column) =>
      db.all(
        ...q<{ ctid: string; type: string; width: number; v: string }>`SELECT CAST(ctid AS TEXT) AS ctid, CAST(pg_typeof("${raw(column)}") AS TEXT) AS type, pg_column_size("${raw(column)}") AS width,
      CAST("${raw(column)}" AS TEXT) AS v FROM "${raw(table)}" AS r WHERE CAST("${raw(column)}" AS TEXT) <> '' ORDER BY CAST(r AS TEXT) COLLATE "C"`,
      ),
    flipped(c, rand) {
      if (c.type === "text") return flipCharacter(c.v, rand);
      const bit = Math.floor(rand() * 8 * c.width);
      return { value: String(flipInt(BigInt(c.v), c.width, bit)), where: `integer ${c.v} bit ${bit}` };
    },
    async write(table, column, c, value) {
      const set = (v: string, ctid: string) =>
        db.get(
          ...q<{
            ctid: string;
          }>`UPDATE "${raw(table)}" SET "${raw(column)}" = CAST(CAST(${v} AS TEXT) AS ${raw(c.type)}) WHERE ctid = CAST(CAST(${ctid} AS TEXT) AS tid) RETURNING CAST(ctid AS TEXT) AS ctid`,
        );
      const moved = await set(value as string, c.ctid);
      if (!moved) throw new Error(`no row at ${c.ctid}`);
      return () => set(c.v, moved.ctid);
    },
    label: (c) => `ctid ${c.ctid}`,
  };
}

/** One bit flipped below SQL's rules, on the ledger's engine. */
const flipOne = (l: Ledger, table: string, column: string, rand: () => number): Promise<Flip | null> =>
  l.engine === "sqlite" ? flipWith(sqliteSite(l.sqlite), table, column, rand) : flipWith(postgresSite(l.db), table, column, rand);

let base: string;
beforeAll(async () => {
  base = await demoDataDir();
  await withLedger(base, async (l) => {
    for (let i = 0; i < 2; i++) await appendCorrection(l.db, i);
    await importEcbSample(l.db);
  });
});

/**
 * A copy of the base ledger with every trigger dropped and foreign keys no longer enforced (an
 * action's event_id may then name no event), so a flip can land anywhere.
 */
async function rawCopy(): Promise<{ dir: string; ledger: Ledger }> {
  const dir = tempDir("cal-flip-");
  copyLedger(base, dir);
  const ledger = await openLedger(ledgerTarget(dir), { migrate: false });
  for (const table of await tableNames(ledger.db)) for (const name of await triggerNames(ledger.db, table)) await dropTrigger(ledger.db, table, name);
  if (ledger.engine === "sqlite") ledger.sqlite.exec("PRAGMA foreign_keys = OFF");
  else await ledger.db.run(...q`ALTER TABLE "actions" DROP CONSTRAINT "actions_event_id_action_events_id_fk"`);
  return { dir, ledger };
}

/** `ca-ledger verify` on a data dir's ledger, by the compiled binary. */
const verify = (dir: string) => cli(["verify", ...ledgerArgs(dir)]);

describe("verify against random bit flips", () => {
  test("the untouched copy verifies (so every failure below is the flip's)", async () => {
    const { dir, ledger } = await rawCopy();
    const report = await verifyLedger(ledger.db);
    await ledger.close();
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(verify(dir).code).toBe(0);
  });

  test(`${trialsPerColumn} seeded flips in each served column: verify fails every time`, async () => {
    const { ledger } = await rawCopy();
    const rand = random(20260913);
    const missed: string[] = [];
    const empty = new Set<string>();
    let trials = 0;
    try {
      for (const [table, columns] of Object.entries(served)) {
        for (const column of columns) {
          for (let i = 0; i < trialsPerColumn; i++) {
            const flip = await flipOne(ledger, table, column, rand);
            if (!flip) {
              empty.add(`${table}.${column}`);
              break;
            }
            trials++;
            if ((await verifyLedger(ledger.db)).ok) missed.push(`${table}.${column} ${flip.row} ${flip.where}`);
            await flip.undo();
          }
        }
      }
    } finally {
      await ledger.close();
    }
    expect([...empty]).toEqual(emptyInDemo);
    expect(trials).toBe((Object.values(served).flat().length - empty.size) * trialsPerColumn);
    expect(missed).toEqual([]);
  }, 300_000 /* room on a loaded machine: it took 52 s at a load of 12 on two cores */);

  test("the binary exits 1 on a flip in each table", async () => {
    const rand = random(7);
    for (const [table, columns] of Object.entries(served)) {
      const { dir, ledger } = await rawCopy();
      const held = columns.filter((c) => !emptyInDemo.includes(`${table}.${c}`));
      const flip = (await flipOne(ledger, table, held[Math.floor(rand() * held.length)]!, rand))!;
      await ledger.close();
      const r = verify(dir);
      expect({ flip: `${flip.table}.${flip.column} ${flip.where}`, code: r.code }).toEqual({ flip: `${flip.table}.${flip.column} ${flip.where}`, code: 1 });
    }
  }, 180_000);
});
