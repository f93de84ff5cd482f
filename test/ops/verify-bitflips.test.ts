// `ca-ledger verify` catches a bit flip in every byte the API serves. A demo ledger (with issuer
// corrections, so the journal holds reversals) has one bit flipped at a time, at seeded random
// places in every served column of every table: verify must fail each time. The flips are made
// below SQL's rules (every trigger dropped first), as a disk or a careless tool would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { sqliteDb } from "../../src/ledger/sql/sqlite.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { appendCorrection, cli, demoDataDir, importEcbSample, removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

/** Every column a route reads, by table (write times nothing serves are left out). */
const served: Record<string, string[]> = {
  actions: ["id", "owner", "mint", "type", "treatment", "state", "effective_at", "usd", "payload", "summary", "v1_entry", "v1_kind", "detail",
    "payload_sha256", "evidence_sha256", "first_observed_active_at"],
  journal: ["id", "owner", "action_id", "entry_type", "reverses_id", "mint", "symbol", "type", "treatment", "kind", "units_delta", "principal_units_delta",
    "income_units", "usd", "factor", "effective_at", "change_reason", "evidence_sha256", "payload", "created_at"],
  lineage: ["mint", "payload"],
  taxonomy_census: ["type", "payload"],
  // What the taxonomy is summed from, per mint.
  census_instances: ["transition_key", "mint", "type", "event_id", "version", "reconciled"],
  positions: ["owner", "mint", "payload"],
  yields: ["owner", "payload"],
  income_totals: ["owner", "mint", "usd", "unvalued_events"],
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

interface Cell { rowid: number; type: "text" | "integer"; bytes: Uint8Array; int: bigint }
interface Flip { table: string; column: string; rowid: number; where: string; undo(): void }

/** SQLite stores an integer in 1, 2, 3, 4, 6 or 8 bytes: flip a bit within the stored width. */
function intWidth(v: bigint): number {
  for (const w of [1, 2, 3, 4, 6]) if (v >= -(1n << BigInt(8 * w - 1)) && v < 1n << BigInt(8 * w - 1)) return w;
  return 8;
}

function flipOne(db: Database, table: string, column: string, rand: () => number): Flip | null {
  const cells = db.query(`SELECT rowid AS rowid, typeof("${column}") AS type, CAST("${column}" AS BLOB) AS bytes, "${column}" AS v FROM "${table}" WHERE "${column}" IS NOT NULL`).all() as
    { rowid: number; type: string; bytes: Uint8Array; v: unknown }[];
  if (!cells.length) return null;
  const c = cells[Math.floor(rand() * cells.length)]!;
  const set = db.query(`UPDATE "${table}" SET "${column}" = ${c.type === "text" ? "CAST(? AS TEXT)" : "?"} WHERE rowid = ?`);
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      if (c.type === "text") {
        const at = Math.floor(rand() * c.bytes.length), bit = Math.floor(rand() * 8);
        const flipped = Uint8Array.from(c.bytes);
        flipped[at]! ^= 1 << bit;
        set.run(flipped, c.rowid);
        return { table, column, rowid: c.rowid, where: `byte ${at} bit ${bit}`, undo: () => set.run(c.bytes, c.rowid) };
      }
      const v = BigInt(c.v as number), w = intWidth(v), bit = Math.floor(rand() * 8 * w);
      set.run(BigInt.asIntN(8 * w, v ^ (1n << BigInt(bit))), c.rowid);
      return { table, column, rowid: c.rowid, where: `integer ${v} bit ${bit}`, undo: () => set.run(v, c.rowid) };
    } catch (e) {
      if (!/constraint/i.test(String(e))) throw e; // a flipped key that collides with another row: flip another bit
    }
  }
  return null;
}

let base: string;
beforeAll(async () => {
  base = await demoDataDir();
  await withLedger(base, async (l) => {
    for (let i = 0; i < 2; i++) await appendCorrection(l.db, i);
    await importEcbSample(l.db);
  });
});

/** A copy of the base ledger with every trigger dropped, so a flip can land anywhere. */
function rawCopy(): { dir: string; db: Database } {
  const dir = tempDir("cal-flip-");
  copyFileSync(join(base, "ledger.db"), join(dir, "ledger.db"));
  const db = new Database(join(dir, "ledger.db"));
  for (const { name } of db.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]) db.exec(`DROP TRIGGER "${name}"`);
  return { dir, db };
}

describe("verify against random bit flips", () => {
  test("the untouched copy verifies (so every failure below is the flip's)", async () => {
    const { dir, db } = rawCopy();
    const report = await verifyLedger(sqliteDb(db));
    db.close();
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(cli(["verify", "--data-dir", dir]).code).toBe(0);
  });

  test(`${trialsPerColumn} seeded flips in each served column: verify fails every time`, async () => {
    const { db } = rawCopy();
    const ledger = sqliteDb(db);
    const rand = random(20260913);
    const missed: string[] = [];
    const empty = new Set<string>();
    let trials = 0;
    try {
      for (const [table, columns] of Object.entries(served)) {
        for (const column of columns) {
          for (let i = 0; i < trialsPerColumn; i++) {
            const flip = flipOne(db, table, column, rand);
            if (!flip) { empty.add(`${table}.${column}`); break; }
            trials++;
            if ((await verifyLedger(ledger)).ok) missed.push(`${table}.${column} rowid ${flip.rowid} ${flip.where}`);
            flip.undo();
          }
        }
      }
    } finally {
      db.close();
    }
    expect([...empty]).toEqual(emptyInDemo);
    expect(trials).toBe((Object.values(served).flat().length - empty.size) * trialsPerColumn);
    expect(missed).toEqual([]);
  }, 60_000);

  test("the binary exits 1 on a flip in each table", async () => {
    const rand = random(7);
    for (const [table, columns] of Object.entries(served)) {
      const { dir, db } = rawCopy();
      const held = columns.filter((c) => !emptyInDemo.includes(`${table}.${c}`));
      const flip = flipOne(db, table, held[Math.floor(rand() * held.length)]!, rand)!;
      db.close();
      const r = cli(["verify", "--data-dir", dir]);
      expect({ flip: `${flip.table}.${flip.column} ${flip.where}`, code: r.code }).toEqual({ flip: `${flip.table}.${flip.column} ${flip.where}`, code: 1 });
    }
  }, 30_000);
});
