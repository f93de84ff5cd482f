// `ca-ledger compact` (the compiled binary): the ledger file rewritten packed, at its page size or
// another, with every answer, hash and seal as it was; refused while a server has the ledger open
// (the file untouched), and on PostgreSQL, whose engine reclaims space itself
// (docs/storage.md#compacting-a-ledger). SQLite's alone: it works on the SQLite file.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { PAGE_SIZE } from "../../src/ledger/db.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { startServer } from "../../src/server.ts";
import { demoAnswers, loadCorrectedDemo } from "../support/demo-answers.ts";
import { testEngine } from "../support/engine.ts";
import { cli, ledgerFileWithPages, pageSizeOfFile, removeTempDirs, tempDir, withLedger } from "./helpers.ts";

afterAll(removeTempDirs);

/** The demo, corrected twice, on a ledger made with 4 KiB pages (as every ledger was before 8 KiB). */
async function demoAt4KiB(): Promise<string> {
  const dir = tempDir("cal-compact-");
  ledgerFileWithPages(dir, 4096);
  await loadCorrectedDemo(dir);
  // Free pages, as a migration that drops a table leaves them (the demo's own tables are too small
  // to be left part full reliably: a page each).
  const db = new Database(join(dir, "ledger.db"));
  try {
    db.exec(
      "CREATE TABLE scratch (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO scratch SELECT randomblob(1000) FROM n; DROP TABLE scratch; PRAGMA wal_checkpoint(TRUNCATE)",
    );
  } finally {
    db.close();
  }
  return dir;
}

if (testEngine === "sqlite")
  describe("ca-ledger compact", () => {
    test("rewrites a ledger packed at its page size, then at 8 KiB pages: every answer, hash and seal the same, verify passes", async () => {
      const dir = await demoAt4KiB();
      const path = join(dir, "ledger.db");
      expect(pageSizeOfFile(path)).toBe(4096);
      const before = await demoAnswers(dir);
      const packed = cli(["compact", "--data-dir", dir, "--json"]);
      expect(packed.code).toBe(0);
      const first = JSON.parse(packed.stdout) as { bytesBefore: number; bytesAfter: number; pageSizeBefore: number; pageSize: number };
      expect({ from: first.pageSizeBefore, to: first.pageSize }).toEqual({ from: 4096, to: 4096 });
      expect(first.bytesAfter).toBeLessThan(first.bytesBefore); // the free pages given back
      expect(statSync(path).size).toBe(first.bytesAfter);
      const moved = cli(["compact", "--data-dir", dir, "--page-size", String(PAGE_SIZE)]);
      expect(moved.code).toBe(0);
      expect(moved.stdout).toContain(`pages of 4096 → ${PAGE_SIZE} bytes`);
      expect(pageSizeOfFile(path)).toBe(PAGE_SIZE);
      const after = await demoAnswers(dir);
      expect(after.answers).toEqual(before.answers);
      expect(after.hashes).toEqual(before.hashes);
      await withLedger(dir, async (l) => {
        const report = await verifyLedger(l.db);
        expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      });
      // In WAL mode again: a server and the CLI share it as before.
      const db = new Database(path);
      try {
        expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
      } finally {
        db.close();
      }
    }, 120_000);

    test("refuses while a server has the ledger open, and leaves the file as it was", async () => {
      const dir = tempDir("cal-compact-");
      await loadCorrectedDemo(dir);
      const server = await startServer({ "data-dir": dir, port: "0", "log-level": "error" }, { offline: true, env: {}, quiet: true });
      try {
        const before = statSync(join(dir, "ledger.db")).size;
        const r = cli(["compact", "--data-dir", dir]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("open in another process");
        expect(statSync(join(dir, "ledger.db")).size).toBe(before);
        expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
      } finally {
        await server.stop();
      }
      expect(cli(["compact", "--data-dir", dir]).code).toBe(0); // stopped: now it may
    }, 120_000);

    test("no ledger, PostgreSQL and usage errors", () => {
      const empty = tempDir("cal-compact-");
      const missing = cli(["compact", "--data-dir", join(empty, "nowhere")]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("no ledger");
      const pg = cli(["compact", "--data-dir", empty, "--database-url", "postgres://nobody@127.0.0.1:1/none"]);
      expect(pg.code).toBe(1);
      expect(pg.stderr).toContain("PostgreSQL reclaims space");
      expect(cli(["compact", "--data-dir", empty, "--nope"]).code).toBe(2);
      const odd = cli(["compact", "--data-dir", empty, "--page-size", "5000"]);
      expect(odd.code).toBe(2);
      expect(odd.stderr).toContain("power of two");
    });
  });
