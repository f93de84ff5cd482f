// A SQLite ledger booked before spin-offs and rights distributions said what they distributed
// (its lineage and those actions as commit eec23e4 stored them, test/fixtures/lineage-demo-before.json)
// upgrades: its stored read models no longer match the engine (verify says so), migration 0013
// marks every booked mint for one re-booking, verify passes while they wait and after they are
// booked again, the rows are the new ones, and no evidence hash moves.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { sha256Hex } from "../../src/domain/evidence.ts";
import type { ActionRecord } from "../../src/domain/types.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { actionRow } from "../../src/ledger/writers.ts";
import golden from "../fixtures/lineage-demo-before.json" with { type: "json" };
import { serveDemo } from "../support/demo-server.ts";
import { demoDataDir, removeTempDirs, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

const migration = embeddedMigrations.find((m) => m.tag === "0013_rebook_lineage_distributed")!;
const oldActions = golden.actions as Record<string, { reason: string; lineageLink: null }>;

/** The demo ledger with the lineage and actions rows that commit stored. */
async function demoWithOldRows(): Promise<{ dir: string; evidence: Map<string, string> }> {
  const dir = await demoDataDir();
  const db = new Database(join(dir, "ledger.db"));
  const evidence = new Map(db.query<{ id: string; evidence_sha256: string }, []>("SELECT id, evidence_sha256 FROM actions").all().map((r) => [r.id, r.evidence_sha256]));
  for (const [mint, payload] of Object.entries(golden.lineage)) expect(db.query("UPDATE lineage SET payload = ? WHERE mint = ?").run(payload, mint).changes).toBe(1);
  for (const [id, old] of Object.entries(oldActions)) {
    const { payload } = db.query<{ payload: string }, [string]>("SELECT payload FROM actions WHERE id = ?").get(id)!;
    const row = actionRow({ ...(JSON.parse(payload) as ActionRecord), ...old });
    const [, , , , , , , , oldPayload, summary, , , hash] = row.values;
    db.query("UPDATE actions SET payload = ?, summary = ?, detail = ?, payload_sha256 = ? WHERE id = ?").run(oldPayload as string, summary as string, row.detail, hash as string, id);
  }
  db.close();
  return { dir, evidence };
}

/** Takes the ledger back to before migration 0013 (it adds no table: only its record goes). */
function beforeMigration(dir: string): void {
  const db = new Database(join(dir, "ledger.db"));
  expect(db.query("DELETE FROM __drizzle_migrations WHERE hash = ?").run(sha256Hex(migration.sql)).changes).toBe(1);
  db.query("DELETE FROM __migrations_applied_at WHERE hash = ?").run(sha256Hex(migration.sql));
  db.close();
}

describe("upgrading a ledger booked before distributions were described", () => {
  test("0013 is dated after 0012", () => {
    const at = embeddedMigrations.findIndex((m) => m.tag === migration.tag);
    expect(embeddedMigrations[at - 1]!.tag).toBe("0012_portfolio_read_model");
    expect(migration.when).toBeGreaterThan(embeddedMigrations[at - 1]!.when);
  });

  test("stale lineage and actions fail verify; after 0013 they wait for their re-booking, are booked anew, and verify passes; no evidence hash moves", async () => {
    const { dir, evidence } = await demoWithOldRows();
    // Not marked for re-booking, the old rows are not what the engine derives: verify names each.
    const stale = await withLedger(dir, (l) => verifyLedger(l.db));
    const problems = stale.checks.filter((c) => !c.ok).flatMap((c) => c.problems);
    for (const mint of Object.keys(golden.lineage)) expect(problems.some((p) => p.includes(`lineage ${mint}`))).toBe(true);
    for (const id of Object.keys(oldActions)) expect(problems.some((p) => p.includes(`action ${id}`))).toBe(true);

    beforeMigration(dir);
    const srv = await serveDemo(dir); // applies 0013
    const waiting = await verifyLedger(srv.ledger.db);
    expect(waiting.checks.filter((c) => !c.ok)).toEqual([]); // the marked mints and their wallets wait their booking
    try {
      const db = srv.ledger.db;
      expect((await db.all<{ mint: string }>("SELECT mint FROM dirty_mints ORDER BY mint")).map((r) => r.mint)).toEqual(
        (await db.all<{ mint: string }>("SELECT mint FROM mint_schedule ORDER BY mint")).map((r) => r.mint),
      );
      await bookEverythingDirty(db);
      const report = await verifyLedger(db);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.checks.find((c) => c.name === "derived tables match the engine")!.problemCount).toBe(0);
      const honx = JSON.parse((await db.get<{ payload: string }>("SELECT payload FROM lineage WHERE mint = 'XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2'"))!.payload);
      expect(honx.links[0].distributed.description).toBe("a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by the issuer)");
      for (const id of Object.keys(oldActions)) {
        const a = JSON.parse((await db.get<{ payload: string }>("SELECT payload FROM actions WHERE id = ?", id))!.payload) as ActionRecord;
        expect(a.lineageLink?.actionId).toBe(id);
      }
      const after = new Map((await db.all<{ id: string; evidence_sha256: string }>("SELECT id, evidence_sha256 FROM actions")).map((r) => [r.id, r.evidence_sha256]));
      expect(after).toEqual(evidence);
    } finally {
      await srv.stop();
    }
  });
});
