// verify passes on a real ledger (the demo, plus issuer corrections so the journal holds
// reversals) and fails, naming the check, for each way an attacker with write access could
// rewrite history. Tampering goes through the ledger's port, so every test but the corrupted page
// runs on either engine; the append-only tables' triggers are dropped first, as such an attacker
// could.
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { eventSha256, WALLET_VALUES } from "../../src/ledger/action-rows.ts";
import { actionRecords } from "../../src/ledger/queries/actions.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { copyLedger, dropTrigger, ledgerArgs, testEngine } from "../support/engine.ts";
import { appendCorrection, cli, demoDataDir, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { q, raw } from "../support/sql.ts";

afterAll(removeTempDirs);

let base: string;
async function baseLedger(): Promise<string> {
  if (!base) {
    base = await demoDataDir();
    await withLedger(base, async (l) => {
      for (let i = 0; i < 3; i++) await appendCorrection(l.db, i);
    });
  }
  return base;
}

/** `ca-ledger verify` on a data dir's ledger: the SQLite file, or on PostgreSQL runs its database. */
const verify = (dir: string, ...args: string[]) => cli(["verify", ...ledgerArgs(dir), ...args]);

/** The triggers that keep the rows tampered with below append-only. */
const APPEND_ONLY = [
  ["journal", "journal_no_update"],
  ["journal", "journal_no_delete"],
  ["issuer_revisions", "issuer_revisions_no_update"],
] as const;

/** A copy of the base ledger tampered with by `tamper`, verified by the binary. */
async function verifyTampered(tamper: (db: Sql, dir: string) => Promise<unknown>, afterClose?: () => void): Promise<{ code: number; failed: string[]; out: string }> {
  const dir = tempDir("cal-tamper-");
  copyLedger(await baseLedger(), dir);
  await withLedger(dir, async ({ db }) => {
    for (const [table, name] of APPEND_ONLY) await dropTrigger(db, table, name);
    await tamper(db, dir);
  });
  afterClose?.();
  const r = verify(dir);
  return { code: r.code, failed: [...r.stdout.matchAll(/^FAIL {2}(.+?) \(/gm)].map((m) => m[1]!), out: r.stdout };
}

/**
 * Rewrites the JSON in one column of the row of `table` whose id `id` (SQL) selects, by hand:
 * parsed, edited and written back as text, nothing else of the row changed.
 */
async function editJson(db: Sql, table: "issuer_revisions" | "journal", column: string, id: string, edit: (value: any) => void): Promise<void> {
  const row = await db.get(...q<{ id: string | number; json: string }>`SELECT id, ${raw(column)} AS json FROM ${raw(table)} WHERE id = ${raw(id)}`);
  if (!row) throw new Error(`no ${table} row with id ${id}`);
  const value = JSON.parse(row.json);
  edit(value);
  await db.run(...q`UPDATE ${raw(table)} SET ${raw(column)} = ${JSON.stringify(value)} WHERE id = ${row.id}`);
}

/** The id of the n-th action (from 0) in id order. */
const nthAction = (n: number) => `(SELECT id FROM actions ORDER BY id LIMIT 1 OFFSET ${n})`;

/** Rewrites one of an action's own values (action-rows.ts WALLET_VALUES) in its row, by hand. */
async function editWalletValue(db: Sql, id: string, name: (typeof WALLET_VALUES)[number], edit: (value: any) => unknown): Promise<void> {
  const row = (await db.get(...q<{ id: string; wallet_values: string }>`SELECT id, wallet_values FROM actions WHERE id = ${raw(id)}`))!;
  const values = row.wallet_values.split("\u0001");
  const at = WALLET_VALUES.indexOf(name) - 4; // the first four are the row's columns
  values[at] = JSON.stringify(edit(JSON.parse(values[at]!)));
  await db.run(...q`UPDATE actions SET wallet_values = ${values.join("\u0001")} WHERE id = ${row.id}`);
}

/**
 * Rewrites a text column of the event row the action `id` shows; `rehash` keys the row by its
 * new content, as a careful hand would.
 */
async function editEvent(db: Sql, id: string, column: "record" | "summary" | "detail" | "v1_entry", edit: (text: string) => string, rehash: boolean): Promise<void> {
  const e = (await db.get(...q<Record<string, string> & { id: number }>`SELECT e.* FROM action_events e WHERE e.id = (SELECT event_id FROM actions WHERE id = ${raw(id)})`))!;
  const edited = { ...e, [column]: edit(e[column]!) };
  expect(edited[column]).not.toBe(e[column]);
  const sha256 = rehash ? eventSha256(edited.record!, edited.summary!, edited.detail!, edited.v1_entry ?? null) : e.sha256!;
  await db.run(...q`UPDATE action_events SET ${raw(column)} = ${edited[column]!}, sha256 = ${sha256} WHERE id = ${e.id}`);
}

describe("ca-ledger verify", () => {
  test("passes on the demo ledger with corrections, printing each check", async () => {
    const dir = await baseLedger();
    const r = verify(dir);
    expect(r.code).toBe(0);
    for (const name of [
      "integrity_check",
      "issuer_revisions.payload_sha256",
      "actions.payload_sha256",
      "actions.evidence_sha256",
      "action_events.sha256",
      "journal reversals",
      "journal standing recognitions",
      "income equals journal",
      "replay matches stored bookings",
      "sealed rows match their seals",
      "derived tables match the engine",
    ]) {
      expect(r.stdout).toContain(`ok    ${name} (`);
    }
    const json = JSON.parse(verify(dir, "--json").stdout);
    expect(json.ok).toBe(true);
    expect(json.checks.find((c: any) => c.name === "journal reversals").checked).toBe(3);
    const actions = await withLedger(dir, async (l) => Number((await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM actions`))!.n));
    expect(actions).toBeGreaterThan(0);
    expect(json.checks.find((c: any) => c.name === "actions.evidence_sha256").checked).toBe(actions);
  });

  test("a rewritten issuer payload fails its hash", async () => {
    const r = await verifyTampered((db) => editJson(db, "issuer_revisions", "payload", "(SELECT max(id) FROM issuer_revisions)", (p) => void (p.grossCashflowUsd = "5.0")));
    expect(r.code).toBe(1);
    expect(r.failed).toContain("issuer_revisions.payload_sha256");
  });

  test("a rewritten action payload fails its hash; a rehashed one still fails its evidence and the replay", async () => {
    // The wallet's raw balance, one of the values its payload is put back together from.
    const plain = await verifyTampered((db) => editWalletValue(db, nthAction(0), "rawBalance", (v: string) => `1${v}`));
    expect(plain.code).toBe(1);
    expect(plain.failed).toContain("actions.payload_sha256");
    // The event's record, the rest of it: every action showing the event fails.
    const record = await verifyTampered((db) => editEvent(db, nthAction(0), "record", (r) => r.replace('"reason":"', '"reason":"x'), true));
    expect(record.code).toBe(1);
    expect(record.failed).toContain("actions.payload_sha256");
    expect(record.failed).not.toContain("action_events.sha256");

    const rehashed = await verifyTampered(async (db) => {
      const id = (await db.get(...q<{ id: string }>`SELECT ${raw(nthAction(0))} AS id`))!.id;
      await editWalletValue(db, `'${id}'`, "rawBalance", (v: string) => String(BigInt(v) + 1n)); // part of the evidence payload
      const [a] = await actionRecords(db, { id });
      await db.run(...q`UPDATE actions SET payload_sha256 = ${sha256Hex(canonicalJson(a))} WHERE id = ${id}`);
    });
    expect(rehashed.code).toBe(1);
    expect(rehashed.failed).not.toContain("actions.payload_sha256");
    expect(rehashed.failed).toEqual(expect.arrayContaining(["actions.evidence_sha256", "replay matches stored bookings"]));
  });

  test("a stored evidence hash that is not the payload's fails", async () => {
    const r = await verifyTampered((db) => db.run(...q`UPDATE actions SET evidence_sha256 = '${raw("0".repeat(64))}' WHERE id = ${raw(nthAction(1))}`));
    expect(r.code).toBe(1);
    expect(r.failed).toContain("actions.evidence_sha256");
  });

  test("an event row whose content is not what it is keyed by, or that no action shows, fails, by name", async () => {
    const edited = await verifyTampered((db) => editEvent(db, nthAction(2), "detail", (d) => d.replace('"reason":"', '"reason":"x'), false));
    expect(edited.code).toBe(1);
    expect(edited.failed).toEqual(["action_events.sha256", "read models match their sources"]);
    const unshown = await verifyTampered((db) =>
      db.run(
        ...q`INSERT INTO action_events (sha256, mint, transition_key, record, summary, detail, v1_entry)
      SELECT ${"0".repeat(64)}, mint, transition_key, record, summary, detail, v1_entry FROM action_events WHERE id = (SELECT min(id) FROM action_events)`,
      ),
    );
    expect(unshown.code).toBe(1);
    expect(unshown.failed).toEqual(["action_events.sha256"]);
    expect(unshown.out).toContain("stored, but no action shows it");
  });

  test("a served document that is not derived from its source fails, by name", async () => {
    const incomeAction = "(SELECT min(id) FROM actions WHERE usd IS NOT NULL)";
    // The list item's template, with the event keyed by its new content.
    const summary = await verifyTampered((db) => editEvent(db, incomeAction, "summary", (t) => t.replace('"category":"income"', '"category":"basis"'), true));
    expect(summary.code).toBe(1);
    expect(summary.failed).toEqual(["read models match their sources"]);
    // A value the wallet shows people, not part of its payload.
    const shown = await verifyTampered((db) => editWalletValue(db, incomeAction, "shown.usd", () => "999"));
    expect(shown.failed).toEqual(["read models match their sources"]);
  });

  test("a served detail or a column that is not derived from its source fails, by name", async () => {
    const detail = await verifyTampered((db) => editEvent(db, nthAction(1), "detail", (t) => t.replace(/"type":"[a-z_]+"/, '"type":"unknown"'), true));
    expect(detail.failed).toEqual(["read models match their sources"]);
    // The event's column, which every action showing the event reads.
    const column = await verifyTampered((db) => db.run(...q`UPDATE action_events SET treatment = 'not_booked' WHERE id = (SELECT min(id) FROM action_events WHERE treatment = 'income')`));
    expect(column.failed).toContain("read models match their sources");
  });

  test("a stored portfolio one byte off its rendering fails, by name", async () => {
    let owner = "";
    const r = await verifyTampered(async (db) => {
      const row = (await db.get(...q<{ owner: string; body: string }>`SELECT owner, body FROM portfolios WHERE body LIKE '%"rawBalance":"%' ORDER BY owner LIMIT 1`))!;
      owner = row.owner;
      // One digit of the first raw balance, so the text still parses as the same shape.
      const at = row.body.indexOf('"rawBalance":"') + '"rawBalance":"'.length;
      const body = row.body.slice(0, at) + (row.body[at] === "9" ? "8" : String(Number(row.body[at]) + 1)) + row.body.slice(at + 1);
      expect(body.length).toBe(row.body.length);
      await db.run(...q`UPDATE portfolios SET body = ${body} WHERE owner = ${owner}`);
    });
    expect(r.code).toBe(1);
    expect(r.failed).toEqual(["read models match their sources"]);
    expect(r.out).toContain(`portfolio of ${owner}: the stored rendering is not the rendering of its positions, income totals and actions`);
  });

  test("journal tampering: amounts, duplicates, lost and forged reversals", async () => {
    const usd = await verifyTampered((db) => db.run(...q`UPDATE journal SET usd = '1000000' WHERE id = (SELECT min(id) FROM journal WHERE treatment = 'income' AND usd IS NOT NULL)`));
    expect(usd.code).toBe(1);
    // The entry holds its USD once, in its column (docs/storage.md#the-journal): its booking is put
    // back with the changed amount, which its seal, the income totals and the replay all catch.
    expect(usd.failed).toEqual(expect.arrayContaining(["sealed rows match their seals", "income equals journal", "replay matches stored bookings"]));

    const dup = await verifyTampered((db) =>
      db.run(
        ...q`INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
       SELECT owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at
       FROM journal WHERE id = (SELECT min(id) FROM journal WHERE treatment = 'income' AND usd IS NOT NULL AND entry_type = 'recognition'
         AND id NOT IN (SELECT reverses_id FROM journal WHERE reverses_id IS NOT NULL))`,
      ),
    );
    expect(dup.code).toBe(1);
    expect(dup.failed).toEqual(expect.arrayContaining(["journal standing recognitions", "income equals journal"]));

    const lost = await verifyTampered((db) => db.run(...q`DELETE FROM journal WHERE id = (SELECT max(id) FROM journal)`));
    expect(lost.code).toBe(1);
    expect(lost.failed).toContain("replay matches stored bookings");

    const firstReversal = "(SELECT min(id) FROM journal WHERE entry_type = 'reversal')";
    const badReversal = await verifyTampered(async (db) => {
      await db.run(...q`UPDATE journal SET units_delta = '0' WHERE id = ${raw(firstReversal)}`);
      await editJson(db, "journal", "payload", firstReversal, (b) => void (b.unitsDelta = "0"));
    });
    expect(badReversal.code).toBe(1);
    // The edit also breaks the entry's seal.
    expect(badReversal.failed).toEqual(["sealed rows match their seals", "journal reversals"]);

    const twice = await verifyTampered((db) =>
      db.run(
        ...q`INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
       SELECT owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at
       FROM journal WHERE id = ${raw(firstReversal)}`,
      ),
    );
    expect(twice.code).toBe(1);
    expect(twice.failed).toContain("journal reversals");
    expect(twice.out).toMatch(/reversed 2 times/);

    const orphan = await verifyTampered((db) => db.run(...q`UPDATE journal SET reverses_id = 999999 WHERE id = ${raw(firstReversal)}`));
    expect(orphan.code).toBe(1);
    expect(orphan.failed).toContain("journal reversals");
  });

  // SQLite's own: `PRAGMA integrity_check` reads the file's pages, which a test can scribble on.
  // A PostgreSQL ledger's pages belong to its server (verify's check there is a read of every
  // table, which the first test sees pass), so this test runs only when the ledger is a file.
  if (testEngine === "sqlite") {
    test("a corrupted page fails integrity_check", async () => {
      let corrupt = { file: "", offset: 0 };
      const r = await verifyTampered(
        async (db, dir) => {
          // Scribble over the cell area of an index page: the index no longer matches its table.
          const { rootpage } = (await db.get(...q<{ rootpage: number }>`SELECT rootpage FROM sqlite_master WHERE type = 'index' AND name = 'journal_owner_effective'`))!;
          const { page_size } = (await db.get(...q<{ page_size: number }>`PRAGMA page_size`))!;
          corrupt = { file: join(dir, "ledger.db"), offset: rootpage * page_size - 600 };
        },
        () => {
          const fd = openSync(corrupt.file, "r+");
          writeSync(fd, Buffer.alloc(500, 0x41), 0, 500, corrupt.offset);
          closeSync(fd);
        },
      );
      expect(r.code).toBe(1);
      expect(r.failed).toContain("integrity_check");
    });
  }

  test("no ledger: exit 1", () => {
    const dir = mkdtempSync(join(tempDir(), "x"));
    const r = verify(join(dir, "none"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no ledger");
  });
});
