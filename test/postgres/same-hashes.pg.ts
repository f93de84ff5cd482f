// One history, two engines: the embedded demo synced through the same adapters into a SQLite
// ledger and a PostgreSQL one, on the same clock, then an issuer correction, stores the same rows
// byte for byte: every
// observation, issuer revision and its hash, every action and its evidence hash, every journal
// entry and its chained seal, every derived table. Exact values come back as the same text and
// integers, JSON as the same bytes, flags as the same 0 or 1.
import { afterAll, expect, test } from "bun:test";
import { demoOwners, loadDemo } from "../../src/demo/load.ts";
import { storeCostBasis } from "../../src/ledger/cost-basis.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { tableNames } from "../../src/ledger/sql/dialect.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { tempDir } from "../harness/index.ts";
import { appendCorrection } from "../ops/helpers.ts";
import { freshDatabase } from "../support/engine.ts";
import { everyRowOf, hex, q } from "../support/sql.ts";

const now = new Date("2026-09-20T00:00:00Z");
const ledgers: Ledger[] = [];
afterAll(async () => {
  for (const l of ledgers) await l.close();
});

async function demoOn(target: Parameters<typeof openLedger>[0]): Promise<Ledger> {
  const ledger = await openLedger(target);
  ledgers.push(ledger);
  await loadDemo(ledger, now);
  // An operator's cost-basis declaration (docs/lots.md#declared-cost-basis): the demo has none of its own.
  const owner = demoOwners()[0]!;
  const signature = (await ledger.db.get(...q<{ signature: string }>`SELECT signature FROM balance_changes WHERE owner = ${owner} ORDER BY slot, signature LIMIT 1`))!.signature;
  await storeCostBasis(ledger.db, [{ kind: "cost", owner, signature, costUsd: "1234.5" }], now);
  return ledger;
}

/** A followed wallet's next sync is jittered at random (±20%): the one value not derived from the history. */
const random = new Set(["sync_jobs.next_sync_at"]);

/** Every row of a table, in the order of all its columns. */
const rows = (l: Ledger, table: string) => everyRowOf(l.db, table, (c) => random.has(`${table}.${c}`));

test("the demo stored by SQLite and by PostgreSQL: the same rows, hashes and seals in every table", async () => {
  const sqlite = await demoOn(tempDir());
  const postgres = await demoOn({ dataDir: tempDir(), databaseUrl: freshDatabase("same_hashes") });
  for (const l of [sqlite, postgres]) await appendCorrection(l.db, 1, now); // reversals and replacements too
  const tables = await tableNames(sqlite.db);
  expect(await tableNames(postgres.db)).toEqual(tables.filter((t) => !t.startsWith("__"))); // drizzle's records live in their own schema there
  let compared = 0;
  for (const table of tables.filter((t) => !t.startsWith("__"))) {
    const [a, b] = [await rows(sqlite, table), await rows(postgres, table)];
    expect({ table, rows: b }).toEqual({ table, rows: a });
    compared += a.length;
  }
  expect(compared).toBeGreaterThan(400);
  const seals = await sqlite.db.all(...q`SELECT id, ${hex("row_sha256")} FROM journal ORDER BY id`);
  expect(seals.length).toBeGreaterThan(10);
  expect(await postgres.db.all(...q`SELECT id, ${hex("row_sha256")} FROM journal ORDER BY id`)).toEqual(seals);
});

test("verify passes on the PostgreSQL ledger after an issuer correction, every check having rows to look at", async () => {
  const postgres = await demoOn({ dataDir: tempDir(), databaseUrl: freshDatabase("verify") });
  await appendCorrection(postgres.db, 1); // a reversal and its replacement in the journal
  const report = await verifyLedger(postgres.db);
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.checks.filter((c) => c.checked === 0).map((c) => c.name)).toEqual([]);
});
