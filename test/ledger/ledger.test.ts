// The ledger on a real SQLite file: migrations, append-only triggers, the demo loaded through
// the store and the replay, idempotent replays, and income = the sum of the journal.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, openLedger } from "../../src/ledger/db.ts";
import { migrationStatus } from "../../src/ledger/migrations.ts";
import { loadDemo, demoOwners } from "../../src/demo/load.ts";
import { bookEverythingDirty, rebookEverything, totalsOf } from "../../src/ledger/booking.ts";
import { dirtyBacklog } from "../../src/ledger/dirty.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { portfolioQueries } from "../../src/ledger/queries/portfolio.ts";
import { instrumentQueries } from "../../src/ledger/queries/instruments.ts";
import { actionRecords } from "../../src/ledger/queries/actions.ts";
import { add, formatExact, parseDecimal, ZERO } from "../../src/domain/numbers.ts";
import { usdForPeople } from "../../src/domain/display.ts";
import type { ActionRecord } from "../../src/domain/types.ts";
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cal-ledger-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("database", async () => {
  test("migrations apply once and report as applied", async () => {
    const dir = tempDir();
    const l = await openLedger(ledgerTarget(dir));
    expect(await applyMigrations(l)).toBe(0); // already applied at open
    expect((await migrationStatus(l.db)).every((m) => m.applied)).toBe(true);
    await l.close();
    const again = await openLedger(ledgerTarget(dir));
    expect(await applyMigrations(again)).toBe(0);
    expect((await migrationStatus(again.db)).map((m) => m.applied)).toEqual((await migrationStatus(again.db)).map(() => true));
    await again.close();
  });

  test("a SQLite ledger runs in WAL mode with its statement journals in memory, its migrations recorded where drizzle keeps them", async () => {
    const l = await openLedger(tempDir()); // a data dir alone: SQLite, whatever the test run's engine
    expect(((await l.db.get(...q`PRAGMA journal_mode`)) as { journal_mode: string }).journal_mode).toBe("wal");
    // 2: MEMORY (booking's statement journals would otherwise be temporary files, docs/storage.md#figures).
    expect(((await l.db.get(...q`PRAGMA temp_store`)) as { temp_store: number }).temp_store).toBe(2);
    expect(((await l.db.get(...q`SELECT count(*) AS n FROM __drizzle_migrations`)) as { n: number }).n).toBe((await migrationStatus(l.db)).length);
    await l.close();
  });

  test("journal and evidence tables refuse UPDATE and DELETE", async () => {
    const l = await openLedger(ledgerTarget(tempDir()));
    await loadDemo(l, new Date("2026-09-20T00:00:00Z"));
    for (const sql of ["UPDATE journal SET usd = '0'", "DELETE FROM journal", "UPDATE issuer_revisions SET payload = '{}'", "DELETE FROM multiplier_updates", "DELETE FROM balance_changes"]) {
      await expect(l.db.exec(sql)).rejects.toThrow(/append-only/);
    }
    await l.close();
  });

  test("the validations served are read again once the census changes, whoever wrote it", async () => {
    const dir = tempDir();
    const reader = await openLedger(ledgerTarget(dir));
    await loadDemo(reader, new Date("2026-09-20T00:00:00Z"));
    const validations = instrumentQueries(reader.db).validations;
    const type = [...(await validations()).keys()][0]!;
    expect(await validations()).toBe(await validations()); // unchanged: the cached map itself
    const writer = await openLedger(ledgerTarget(dir)); // another connection, as the worker's is
    const row = (await writer.db.get(...q<{ payload: string }>`SELECT payload FROM taxonomy_census WHERE type = ${type}`))!;
    const entry = { ...JSON.parse(row.payload), validation: { marker: "changed elsewhere" } };
    await writer.db.run(...q`UPDATE taxonomy_census SET payload = ${JSON.stringify(entry)} WHERE type = ${type}`);
    await writer.close();
    expect((await validations()).get(type)).toBe(JSON.stringify({ marker: "changed elsewhere" }));
    await reader.close();
  });
});

describe("demo ledger synced through the adapters, store and replay", async () => {
  const now = new Date("2026-09-20T00:00:00Z");
  const l = await openLedger(ledgerTarget(tempDir()));
  const ready = loadDemo(l, now);

  test("covers the cases docs/demo.md#what-it-shows lists", async () => {
    await ready;
    const actions = await actionRecords(l.db);
    const types = new Set(actions.map((a) => a.type));
    for (const t of ["cash_dividend", "withholding_adjustment", "forward_split", "reverse_split", "stock_dividend", "spin_off", "rights_distribution", "identity_change", "unknown"]) {
      expect(types.has(t as ActionRecord["type"])).toBe(true);
    }
    // An implausible issuer cash figure gives USD null with a warning, never a number (STRCx 2025-11-30).
    const strc = actions.find((a) => a.symbol === "STRCx" && a.effectiveAt?.startsWith("2025-11-30"));
    expect(strc?.usd).toBeNull();
    expect(strc?.warnings.join(" ")).toMatch(/implausible/i);
    // A multiplier change with no issuer record is `unknown` with the reason.
    expect(actions.some((a) => a.type === "unknown" && /no issuer record/i.test(a.reason))).toBe(true);
    // A cancelled and corrected record: AZNx 2026-08-07 matched to v6, every revision kept.
    const azn = actions.find((a) => a.symbol === "AZNx" && a.effectiveAt?.startsWith("2026-08-07"));
    expect(azn?.matched?.version).toBe(6);
    expect(azn!.revisions.length).toBeGreaterThanOrEqual(5);
  });

  test("re-booking everything again appends nothing and rewrites no action", async () => {
    await ready;
    const before = ((await l.db.get(...q`SELECT count(*) AS n FROM journal`)) as { n: number }).n;
    expect(before).toBeGreaterThan(0);
    const r = await rebookEverything(l.db, now);
    expect(r.booked).toBeGreaterThan(0);
    expect(r).toMatchObject({ recognitions: 0, reversals: 0, actionsWritten: 0 });
    expect(r.actionsUnchanged).toBe(((await l.db.get(...q`SELECT count(*) AS n FROM actions`)) as { n: number }).n);
    expect(((await l.db.get(...q`SELECT count(*) AS n FROM journal`)) as { n: number }).n).toBe(before);
  });

  test("portfolio income equals the v2 income-treatment USD of the same wallet", async () => {
    await ready;
    const portfolios = portfolioQueries(l.db);
    for (const owner of demoOwners()) {
      const v2 = (
        (await l.db.all(
          ...q`SELECT a.usd FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ${owner} AND e.treatment = 'income' AND a.usd IS NOT NULL AND a.v1_kind IS NOT NULL`,
        )) as { usd: string }[]
      ).reduce((s, r) => add(s, parseDecimal(r.usd)), ZERO);
      // The total is the sum of the exact values, rounded once for people.
      const { totals } = JSON.parse(await portfolios.portfolio(owner));
      expect(totals.exact.incomeUsd).toBe(formatExact(v2));
      expect(totals.incomeUsd).toBe(usdForPeople(v2));
    }
  });

  test("stored observations mark their mint dirty in their transaction; booking clears it after re-booking the holders", async () => {
    await ready;
    expect(await dirtyBacklog(l.db, now)).toMatchObject({ wallets: 0, mints: 0 });
    const row = (await l.db.get(...q`SELECT payload, symbol FROM issuer_revisions ORDER BY id LIMIT 1`)) as { payload: string; symbol: string };
    await storeObservations(l.db, { issuerRecords: [{ ...JSON.parse(row.payload), version: 999, notes: "a later revision" }] });
    expect(await dirtyBacklog(l.db, now)).toMatchObject({ wallets: 0, mints: 1 }); // a crash here is booked at the next start
    const chunks = await bookEverythingDirty(l.db, now);
    const holders = (await l.db.get(...q`SELECT count(DISTINCT owner) AS n FROM token_accounts WHERE mint IN (SELECT mint FROM instruments WHERE symbol = ${row.symbol})`)) as { n: number };
    expect(chunks.map((c) => [c.kind, c.booked])).toEqual([
      ["mints", 1],
      ["wallets", holders.n],
    ]);
    expect(await dirtyBacklog(l.db, now)).toMatchObject({ wallets: 0, mints: 0 });
  });

  test("an issuer correction after activation appends a reversal and a replacement; nothing is rewritten", async () => {
    await ready;
    const { id } = (await l.db.get(...q<{ id: string }>`SELECT min(a.id) AS id FROM actions a JOIN action_events e ON e.id = a.event_id WHERE e.type = 'cash_dividend' AND a.usd IS NOT NULL`))!;
    const [before] = await actionRecords(l.db, { id });
    const row = { id: before!.id };
    // The action names its issuer revisions by hash; the records are stored once, in issuer_revisions.
    const matched = JSON.parse(((await l.db.get(...q`SELECT payload FROM issuer_revisions WHERE payload_sha256 = ${before!.matched!.sha256}`)) as { payload: string }).payload);
    const journalBefore = (await l.db.all(...q`SELECT * FROM journal WHERE action_id = ${row.id} ORDER BY id`)) as {
      id: number;
      entry_type: string;
      reverses_id: number | null;
      usd: string;
      change_reason: string | null;
    }[];
    const later = new Date(now.getTime() + 86_400_000);
    // The net amount changes (a revision that changes no figure books nothing: docs/journal.md#revisions-that-change-no-figure).
    await storeObservations(
      l.db,
      { issuerRecords: [{ ...matched, version: matched.version + 1, status: "Corrected", grossCashflowUsd: "0.5", netCashflowUsd: "0.4", withholdingTaxRate: "0.2" }] },
      later,
    );
    expect(totalsOf(await bookEverythingDirty(l.db, later))).toMatchObject({ recognitions: 1, reversals: 1 });
    const journal = (await l.db.all(...q`SELECT id, entry_type, reverses_id, usd, change_reason FROM journal WHERE action_id = ${row.id} ORDER BY id`)) as {
      id: number;
      entry_type: string;
      reverses_id: number | null;
      usd: string;
      change_reason: string | null;
    }[];
    expect(journal.slice(0, journalBefore.length)).toEqual(journalBefore.map((j) => ({ id: j.id, entry_type: j.entry_type, reverses_id: j.reverses_id, usd: j.usd, change_reason: j.change_reason })));
    const [reversal, replacement] = journal.slice(journalBefore.length);
    expect(reversal).toMatchObject({ entry_type: "reversal", reverses_id: journalBefore.at(-1)!.id, usd: "-" + before!.usd, change_reason: "issuer correction" });
    expect(replacement).toMatchObject({ entry_type: "recognition", reverses_id: null, change_reason: "issuer correction" });
    const [after] = await actionRecords(l.db, { id: row.id });
    expect(after!.matched!.version).toBe(matched.version + 1);
    expect(after!.lifecycle.state).toBe("corrected");
    expect(replacement!.usd).toBe(after!.usd!);
  });

  test("an issuer record edited without a new version is stored again and flagged", async () => {
    await ready;
    const row = (await l.db.get(...q`SELECT payload FROM issuer_revisions WHERE event_id LIKE 'b32055bf%' AND version = 6`)) as { payload: string };
    const record = JSON.parse(row.payload);
    const first = await storeObservations(l.db, { issuerRecords: [record] });
    expect(first.issuerRevisionsAdded).toBe(0); // same content: nothing new
    const edited = await storeObservations(l.db, { issuerRecords: [{ ...record, notes: "edited in place" }] });
    expect(edited).toMatchObject({ issuerRevisionsAdded: 1, editedRevisions: 1 });
    const rows = (await l.db.all(...q`SELECT edited FROM issuer_revisions WHERE event_id = ${record.eventId} AND version = 6 ORDER BY id`)) as { edited: number }[];
    expect(rows.map((r) => r.edited)).toEqual([0, 1]);
  });
});
