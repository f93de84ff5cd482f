// Row seals (src/ledger/seals.ts) on a real demo ledger: every column of a sealed table is
// covered, every write seals what it wrote, a sealed row of an append-only table refuses any
// change, an in-place change outside the writer shows as unsealed, the journal's chain notices a
// removed entry, and a ledger from before seals is sealed at the next start.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { brokenSeals, sealedTables } from "../../src/ledger/seals.ts";
import { columnNames, triggerNames } from "../../src/ledger/sql/dialect.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { storeCostBasis } from "../../src/ledger/cost-basis.ts";
import { startServer } from "../../src/server.ts";
import { copyLedger, dropTrigger, ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { appendCorrection, cli, demoDataDir, importEcbSample, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { importRates } from "../../src/ledger/reference-rates.ts";
import { parseEcbHistory } from "../../src/domain/reference-rates.ts";
import { q, raw } from "../support/sql.ts";

afterAll(removeTempDirs);

let base: string;
beforeAll(async () => {
  base = await demoDataDir();
  await withLedger(base, async (l) => {
    await appendCorrection(l.db, 0);
    await importEcbSample(l.db);
    // An operator's cost-basis declaration (docs/lots.md#declared-cost-basis), so that table has a row to seal too.
    const first = (await l.db.get(...q<{ owner: string; signature: string }>`SELECT owner, signature FROM balance_changes ORDER BY slot, signature LIMIT 1`))!;
    await storeCostBasis(l.db, [{ kind: "cost", owner: first.owner, signature: first.signature, costUsd: "100" }]);
  });
});

/** A copy of the base ledger, open. */
async function copy(): Promise<{ dir: string; ledger: Ledger; db: Sql }> {
  const dir = tempDir("cal-seal-");
  copyLedger(base, dir);
  const ledger = await openLedger(ledgerTarget(dir), { migrate: false });
  return { dir, ledger, db: ledger.db };
}

/** Each broken seal as `table key: problem`, seals elided. */
async function broken(db: Sql): Promise<string[]> {
  const out: string[] = [];
  for await (const b of brokenSeals(db)) out.push(`${b.table} ${b.key}: ${b.problem.replace(/ [0-9a-f]{64}/g, " …")}`);
  return out;
}

describe("row seals", () => {
  test("each sealed table seals every column it has", async () => {
    const { ledger, db } = await copy();
    for (const t of sealedTables) {
      const columns = (await columnNames(db, t.name)).filter((c) => c !== "row_sha256");
      expect({ table: t.name, columns: [...t.columns].sort() }).toEqual({ table: t.name, columns: columns.sort() });
    }
    await ledger.close();
  });

  test("the demo load and a correction leave every row sealed and every seal right", async () => {
    const { ledger, db } = await copy();
    for (const t of sealedTables) expect({ t: t.name, n: (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM "${raw(t.name)}"`))!.n > 0 }).toEqual({ t: t.name, n: true });
    expect(await broken(db)).toEqual([]);
    await ledger.close();
  });

  test("a sealed journal entry or observation refuses any change, its seal included", async () => {
    const { ledger, db } = await copy();
    for (const sql of [
      "UPDATE journal SET usd = '1' WHERE id = 1",
      "UPDATE journal SET row_sha256 = NULL WHERE id = 1",
      "UPDATE mint_states SET authority = NULL WHERE id = 1",
      "UPDATE issuer_revisions SET ingested_at = '2020-01-01T00:00:00.000Z' WHERE id = 1",
      "UPDATE multiplier_updates SET authority = 'x' WHERE signature = (SELECT min(signature) FROM multiplier_updates)",
      "DELETE FROM journal WHERE id = 1",
      "DELETE FROM balance_changes WHERE signature = (SELECT min(signature) FROM balance_changes)",
    ]) {
      await expect(db.run(...q`${raw(sql)}`)).rejects.toThrow(/append-only/);
    }
    await ledger.close();
  });

  test("an instrument changed by the store is sealed again; changed by hand it shows as unsealed", async () => {
    const { dir, ledger } = await copy();
    const row = (await ledger.db.get(...q<{ mint: string; symbol: string; name: string | null; underlying: string | null }>`SELECT mint, symbol, name, underlying FROM instruments LIMIT 1`))!;
    await storeObservations(ledger.db, { instruments: [{ ...row, isin: "US0000000001", decimals: null }] });
    expect(await broken(ledger.db)).toEqual([]);
    await ledger.db.run(...q`UPDATE instruments SET isin = 'US0000000002' WHERE mint = ${row.mint}`);
    // A row is named by its primary key.
    expect(await broken(ledger.db)).toEqual([`instruments ${row.mint}: was never sealed`]);
    await ledger.close();
    const v = cli(["verify", "--data-dir", dir]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`FAIL  sealed rows match their seals`);
  });

  test("a quote a later rates file corrects is sealed again; changed by hand it shows as broken", async () => {
    const { dir, ledger, db } = await copy();
    const corrected = parseEcbHistory("Date,USD,GBP,\n2026-01-09,1.1650,0.8700,\n", "2026-01-09");
    const r = await importRates(db, corrected);
    expect(r.changed).toBeGreaterThan(0);
    expect(await broken(db)).toEqual([]);
    await db.run(...q`UPDATE reference_rates SET per_eur = '0.8701' WHERE currency = 'GBP' AND date = '2026-01-09'`);
    expect(await broken(db)).toEqual(["reference_rates GBP 2026-01-09: hashes to …, sealed …"]);
    await ledger.close();
    const v = cli(["verify", "--data-dir", dir]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`FAIL  sealed rows match their seals`);
  });

  test("the journal's chain names the entry after one that was removed", async () => {
    const { ledger, db } = await copy();
    await dropTrigger(db, "journal", "journal_no_delete");
    await db.run(...q`DELETE FROM journal WHERE id = 5`);
    expect(await broken(db)).toEqual([`journal 6: hashes to …, sealed …`]);
    await ledger.close();
  });

  test("rows written before seals existed are sealed at the next start, and verify passes", async () => {
    const { dir, ledger, db } = await copy();
    for (const t of sealedTables) {
      for (const name of await triggerNames(db, t.name)) await dropTrigger(db, t.name, name);
      await db.run(...q`UPDATE "${raw(t.name)}" SET row_sha256 = NULL`);
    }
    expect((await broken(db)).length).toBeGreaterThan(100);
    await ledger.close();
    expect(cli(["verify", "--data-dir", dir]).code).toBe(1);
    const srv = await startServer({ port: "0", host: "127.0.0.1", ...ledgerFlags(dir) }, { env: { LOG_LEVEL: "error" }, quiet: true, offline: true });
    await srv.stop();
    expect(cli(["verify", "--data-dir", dir]).code).toBe(0);
  });
});
