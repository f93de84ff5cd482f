// Row seals (src/ledger/seals.ts) on a real demo ledger: every column of a sealed table is
// covered, every write seals what it wrote, a sealed row of an append-only table refuses any
// change, an in-place change outside the writer shows as unsealed, the journal's chain notices a
// removed entry, and a ledger from before seals is sealed at the next start.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { openLedger } from "../../src/ledger/db.ts";
import { brokenSeals, sealedTables } from "../../src/ledger/seals.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { sqliteDb } from "../../src/ledger/sql/sqlite.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { startServer } from "../../src/server.ts";
import { appendCorrection, cli, demoDataDir, removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

let base: string;
beforeAll(async () => {
  base = await demoDataDir();
  await withLedger(base, (l) => appendCorrection(l.db, 0));
});

function copy(): { dir: string; db: Database } {
  const dir = tempDir("cal-seal-");
  copyFileSync(join(base, "ledger.db"), join(dir, "ledger.db"));
  return { dir, db: new Database(join(dir, "ledger.db")) };
}

/** Each broken seal as `table key: problem`, seals elided. */
async function broken(db: Database | Sql): Promise<string[]> {
  const out: string[] = [];
  for await (const b of brokenSeals(db instanceof Database ? sqliteDb(db) : db)) out.push(`${b.table} ${b.key}: ${b.problem.replace(/ [0-9a-f]{64}/g, " …")}`);
  return out;
}

describe("row seals", () => {
  test("each sealed table seals every column it has", () => {
    const { db } = copy();
    for (const t of sealedTables) {
      const columns = (db.query(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map((c) => c.name).filter((c) => c !== "row_sha256");
      expect({ table: t.name, columns: [...t.columns].sort() }).toEqual({ table: t.name, columns: columns.sort() });
    }
    db.close();
  });

  test("the demo load and a correction leave every row sealed and every seal right", async () => {
    const { db } = copy();
    for (const t of sealedTables) expect({ t: t.name, n: (db.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n > 0 }).toEqual({ t: t.name, n: true });
    expect(await broken(db)).toEqual([]);
    db.close();
  });

  test("a sealed journal entry or observation refuses any change, its seal included", () => {
    const { db } = copy();
    for (const sql of ["UPDATE journal SET usd = '1' WHERE id = 1", "UPDATE journal SET row_sha256 = NULL WHERE id = 1",
      "UPDATE mint_states SET authority = NULL WHERE id = 1", "UPDATE issuer_revisions SET ingested_at = '2020-01-01T00:00:00.000Z' WHERE id = 1",
      "UPDATE multiplier_updates SET authority = 'x' WHERE rowid = 1", "DELETE FROM journal WHERE id = 1"]) {
      expect(() => db.exec(sql)).toThrow(/append-only/);
    }
    db.close();
  });

  test("an instrument changed by the store is sealed again; changed by hand it shows as unsealed", async () => {
    const { dir, db } = copy();
    db.close();
    const ledger = await openLedger(dir);
    const row = (await ledger.db.get<{ mint: string; symbol: string; name: string | null; underlying: string | null }>("SELECT mint, symbol, name, underlying FROM instruments LIMIT 1"))!;
    await storeObservations(ledger.db, { instruments: [{ ...row, isin: "US0000000001", decimals: null }] });
    expect(await broken(ledger.db)).toEqual([]);
    await ledger.db.run("UPDATE instruments SET isin = 'US0000000002' WHERE mint = ?", row.mint);
    // A row is named by its primary key.
    expect(await broken(ledger.db)).toEqual([`instruments ${row.mint}: was never sealed`]);
    await ledger.close();
    const v = cli(["verify", "--data-dir", dir]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`FAIL  sealed rows match their seals`);
  });

  test("the journal's chain names the entry after one that was removed", async () => {
    const { db } = copy();
    db.exec("DROP TRIGGER journal_no_delete");
    db.exec("DELETE FROM journal WHERE id = 5");
    expect(await broken(db)).toEqual([`journal 6: hashes to …, sealed …`]);
    db.close();
  });

  test("rows written before seals existed are sealed at the next start, and verify passes", async () => {
    const { dir, db } = copy();
    for (const t of sealedTables) {
      for (const { name } of db.query(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?`).all(t.name) as { name: string }[]) db.exec(`DROP TRIGGER "${name}"`);
      db.exec(`UPDATE "${t.name}" SET row_sha256 = NULL`);
    }
    expect((await broken(db)).length).toBeGreaterThan(100);
    db.close();
    expect(cli(["verify", "--data-dir", dir]).code).toBe(1);
    const srv = await startServer({ port: "0", host: "127.0.0.1", "data-dir": dir }, { env: { LOG_LEVEL: "error" }, quiet: true, offline: true });
    await srv.stop();
    expect(cli(["verify", "--data-dir", dir]).code).toBe(0);
  });
});
