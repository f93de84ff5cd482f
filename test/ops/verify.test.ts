// verify passes on a real ledger (the demo, plus issuer corrections so the journal holds
// reversals) and fails, naming the check, for each way an attacker with write access could
// rewrite history. Tampering the append-only tables means dropping their triggers first.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, copyFileSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { appendCorrection, cli, demoDataDir, removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

let base: string;
async function baseLedger(): Promise<string> {
  if (!base) {
    base = await demoDataDir();
    await withLedger(base, async (l) => { for (let i = 0; i < 3; i++) await appendCorrection(l.db, i); });
  }
  return base;
}

/** A copy of the base ledger with `sql` run on it, verified by the binary. */
async function verifyTampered(sql: (db: Database) => void, afterClose?: () => void): Promise<{ code: number; failed: string[]; out: string }> {
  const dir = tempDir("cal-tamper-");
  copyFileSync(join(await baseLedger(), "ledger.db"), join(dir, "ledger.db"));
  const db = new Database(join(dir, "ledger.db"));
  db.exec("DROP TRIGGER IF EXISTS journal_no_update; DROP TRIGGER IF EXISTS journal_no_delete; DROP TRIGGER IF EXISTS issuer_revisions_no_update");
  sql(db);
  db.close();
  afterClose?.();
  const r = cli(["verify", "--data-dir", dir]);
  return { code: r.code, failed: [...r.stdout.matchAll(/^FAIL {2}(.+?) \(/gm)].map((m) => m[1]!), out: r.stdout };
}

describe("ca-ledger verify", () => {
  test("passes on the demo ledger with corrections, printing each check", async () => {
    const dir = await baseLedger();
    const r = cli(["verify", "--data-dir", dir]);
    expect(r.code).toBe(0);
    for (const name of ["integrity_check", "issuer_revisions.payload_sha256", "actions.payload_sha256", "actions.evidence_sha256", "journal reversals",
      "journal standing recognitions", "income equals journal", "replay matches stored bookings", "sealed rows match their seals", "derived tables match the engine"]) {
      expect(r.stdout).toContain(`ok    ${name} (`);
    }
    const json = JSON.parse(cli(["verify", "--data-dir", dir, "--json"]).stdout);
    expect(json.ok).toBe(true);
    expect(json.checks.find((c: any) => c.name === "journal reversals").checked).toBe(3);
    expect(json.checks.find((c: any) => c.name === "actions.evidence_sha256").checked).toBe(39);
  });

  test("a rewritten issuer payload fails its hash", async () => {
    const r = await verifyTampered((db) => db.exec(`UPDATE issuer_revisions SET payload = json_set(payload, '$.grossCashflowUsd', '5.0') WHERE id = (SELECT max(id) FROM issuer_revisions)`));
    expect(r.code).toBe(1);
    expect(r.failed).toContain("issuer_revisions.payload_sha256");
  });

  test("a rewritten action payload fails its hash; a rehashed one still fails its evidence and the replay", async () => {
    const plain = await verifyTampered((db) => db.exec(`UPDATE actions SET payload = replace(payload, '"rawBalance":"', '"rawBalance":"1') WHERE rowid = 1`));
    expect(plain.code).toBe(1);
    expect(plain.failed).toContain("actions.payload_sha256");

    const rehashed = await verifyTampered((db) => {
      const a = db.query("SELECT id, payload FROM actions ORDER BY id LIMIT 1").get() as { id: string; payload: string };
      const record = JSON.parse(a.payload);
      record.rawBalance = String(BigInt(record.rawBalance) + 1n); // part of the evidence payload
      const payload = canonicalJson(record);
      db.query("UPDATE actions SET payload = ?, payload_sha256 = ? WHERE id = ?").run(payload, sha256Hex(payload), a.id);
    });
    expect(rehashed.code).toBe(1);
    expect(rehashed.failed).not.toContain("actions.payload_sha256");
    expect(rehashed.failed).toEqual(expect.arrayContaining(["actions.evidence_sha256", "replay matches stored bookings"]));
  });

  test("a stored evidence hash that is not the payload's fails", async () => {
    const r = await verifyTampered((db) => db.exec(`UPDATE actions SET evidence_sha256 = '${"0".repeat(64)}' WHERE rowid = 2`));
    expect(r.code).toBe(1);
    expect(r.failed).toContain("actions.evidence_sha256");
  });

  test("a served read model that is not derived from its source fails, by name", async () => {
    const summary = await verifyTampered((db) => db.exec(`UPDATE actions SET summary = json_set(summary, '$.usd', '999') WHERE rowid = (SELECT min(rowid) FROM actions WHERE usd IS NOT NULL)`));
    expect(summary.code).toBe(1);
    expect(summary.failed).toEqual(["read models match their sources"]);
    const detail = await verifyTampered((db) => db.exec(`UPDATE actions SET detail = json_set(detail, '$.type', 'unknown') WHERE rowid = 2`));
    expect(detail.failed).toEqual(["read models match their sources"]);
    const column = await verifyTampered((db) => db.exec(`UPDATE actions SET treatment = 'not_booked' WHERE rowid = (SELECT min(rowid) FROM actions WHERE treatment = 'income')`));
    expect(column.failed).toContain("read models match their sources");
    const total = await verifyTampered((db) => db.exec(`UPDATE income_totals SET usd = '12345' WHERE rowid = (SELECT min(rowid) FROM income_totals)`));
    expect(total.code).toBe(1);
    expect(total.failed).toEqual(["read models match their sources"]);
  });

  test("a stored portfolio one byte off its rendering fails, by name", async () => {
    let owner = "";
    const r = await verifyTampered((db) => {
      const row = db.query("SELECT owner, body FROM portfolios WHERE body LIKE '%\"rawBalance\":\"%' ORDER BY owner LIMIT 1").get() as { owner: string; body: string };
      owner = row.owner;
      // One digit of the first raw balance, so the text still parses as the same shape.
      const at = row.body.indexOf('"rawBalance":"') + '"rawBalance":"'.length;
      const body = row.body.slice(0, at) + (row.body[at] === "9" ? "8" : String(Number(row.body[at]) + 1)) + row.body.slice(at + 1);
      expect(body.length).toBe(row.body.length);
      db.query("UPDATE portfolios SET body = ? WHERE owner = ?").run(body, owner);
    });
    expect(r.code).toBe(1);
    expect(r.failed).toEqual(["read models match their sources"]);
    expect(r.out).toContain(`portfolio of ${owner}: the stored rendering is not the rendering of its positions, income totals and actions`);
  });

  test("journal tampering: amounts, duplicates, lost and forged reversals", async () => {
    const usd = await verifyTampered((db) => db.exec(`UPDATE journal SET usd = '1000000' WHERE id = (SELECT min(id) FROM journal WHERE treatment = 'income' AND usd IS NOT NULL)`));
    expect(usd.code).toBe(1);
    expect(usd.failed).toEqual(expect.arrayContaining(["journal rows match their payload", "income equals journal"]));

    const dup = await verifyTampered((db) => db.exec(
      `INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
       SELECT owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at
       FROM journal WHERE id = (SELECT min(id) FROM journal WHERE treatment = 'income' AND usd IS NOT NULL AND entry_type = 'recognition'
         AND id NOT IN (SELECT reverses_id FROM journal WHERE reverses_id IS NOT NULL))`));
    expect(dup.code).toBe(1);
    expect(dup.failed).toEqual(expect.arrayContaining(["journal standing recognitions", "income equals journal"]));

    const lost = await verifyTampered((db) => db.exec("DELETE FROM journal WHERE id = (SELECT max(id) FROM journal)"));
    expect(lost.code).toBe(1);
    expect(lost.failed).toContain("replay matches stored bookings");

    const badReversal = await verifyTampered((db) => db.exec(`UPDATE journal SET units_delta = '0', payload = json_set(payload, '$.unitsDelta', '0') WHERE id = (SELECT min(id) FROM journal WHERE entry_type = 'reversal')`));
    expect(badReversal.code).toBe(1);
    // The edit also breaks the entry's seal.
    expect(badReversal.failed).toEqual(["sealed rows match their seals", "journal reversals"]);

    const twice = await verifyTampered((db) => db.exec(
      `INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
       SELECT owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at
       FROM journal WHERE id = (SELECT min(id) FROM journal WHERE entry_type = 'reversal')`));
    expect(twice.code).toBe(1);
    expect(twice.failed).toContain("journal reversals");
    expect(twice.out).toMatch(/reversed 2 times/);

    const orphan = await verifyTampered((db) => db.exec("UPDATE journal SET reverses_id = 999999 WHERE id = (SELECT min(id) FROM journal WHERE entry_type = 'reversal')"));
    expect(orphan.code).toBe(1);
    expect(orphan.failed).toContain("journal reversals");
  });

  test("a corrupted page fails integrity_check", async () => {
    let corrupt = { file: "", offset: 0 };
    const r = await verifyTampered((db) => {
      // Scribble over the cell area of an index page: the index no longer matches its table.
      const { rootpage } = db.query("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND name = 'journal_owner'").get() as { rootpage: number };
      const { page_size } = db.query("PRAGMA page_size").get() as { page_size: number };
      corrupt = { file: db.filename, offset: rootpage * page_size - 600 };
    }, () => {
      const fd = openSync(corrupt.file, "r+");
      writeSync(fd, Buffer.alloc(500, 0x41), 0, 500, corrupt.offset);
      closeSync(fd);
    });
    expect(r.code).toBe(1);
    expect(r.failed).toContain("integrity_check");
  });

  test("no ledger: exit 1", () => {
    const dir = mkdtempSync(join(tempDir(), "x"));
    const r = cli(["verify", "--data-dir", join(dir, "none")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no ledger");
  });
});
