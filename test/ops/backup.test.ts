// Backup is online: taken with the compiled binary while a server (startServer) serves requests
// and a writer keeps appending journal entries on the same data dir, it must still be one
// consistent snapshot: integrity ok, and `ca-ledger verify` passes on it.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openLedger } from "../../src/ledger/db.ts";
import { startServer } from "../../src/server.ts";
import { embeddedMigrations } from "../../migrations/embedded.ts";
import { knownTables } from "../../src/ledger/backup.ts";
import { appendCorrection, cli, cliAsync, count, demoDataDir, removeTempDirs, tempDir, withLedger } from "./helpers.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

describe("ca-ledger backup", () => {
  test("a backup taken while the server serves and a writer appends is consistent and verifies", async () => {
    const dir = await demoDataDir();
    const server = await startServer({ "data-dir": dir, port: "0", "log-level": "error" }, { offline: true, env: {}, quiet: true });
    const writer = await openLedger(dir, { migrate: false });
    const journalBefore = await count(writer.db, q`SELECT count(*) AS n FROM journal`);
    let writing = true,
      appended = 0,
      served = 0;
    // The writer and a reader of the HTTP API run until the backups are done.
    const writes = (async () => {
      while (writing) {
        await appendCorrection(writer.db, appended++);
        await Bun.sleep(1);
      }
    })();
    const reads = (async () => {
      while (writing) {
        const r = await fetch(`${server.url}/v1/health`);
        expect(r.status).toBe(200);
        served++;
      }
    })();
    try {
      const out = tempDir("cal-bak-");
      const results = [];
      for (let i = 0; i < 3; i++) {
        await Bun.sleep(30);
        results.push(await cliAsync(["backup", join(out, `b${i}.db`), "--data-dir", dir, "--json"]));
      }
      writing = false;
      await Promise.all([writes, reads]);
      expect(appended).toBeGreaterThan(3); // the backups really overlapped with writes
      expect(served).toBeGreaterThan(3);

      for (const [i, r] of results.entries()) {
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        const summary = JSON.parse(r.stdout);
        const file = join(out, `b${i}.db`);
        expect(summary.bytes).toBe(statSync(file).size);
        expect(summary.journalRows).toBeGreaterThanOrEqual(journalBefore);
        expect(summary.tables.find((t: { name: string }) => t.name === "journal").rows).toBe(summary.journalRows);

        const db = new Database(file, { readonly: true });
        expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        expect(db.query("SELECT count(*) AS n FROM journal").get()).toEqual({ n: summary.journalRows });
        db.close();
        expect(existsSync(`${file}-wal`)).toBe(false); // a single self-contained file

        // verify runs against a data dir: give the backup one of its own.
        const vdir = tempDir("cal-bakv-");
        copyFileSync(file, join(vdir, "ledger.db"));
        const v = cli(["verify", "--data-dir", vdir, "--json"]);
        const report = JSON.parse(v.stdout);
        expect(report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
        expect(v.code).toBe(0);
      }
      // Later backups saw more of the writer's rows: they are snapshots, not one frozen copy.
      const rows = results.map((r) => JSON.parse(r.stdout).journalRows);
      expect(rows[2]).toBeGreaterThan(rows[0]);
    } finally {
      writing = false;
      await writer.close();
      await server.stop();
    }
  }, 60_000);

  test("prints what it wrote, and never overwrites an existing file", async () => {
    const dir = await demoDataDir();
    const out = tempDir("cal-bak-");
    const file = join(out, "ledger-backup.db");
    const journal = await withLedger(dir, (l) => count(l.db, q<{ n: number }>`SELECT count(*) AS n FROM journal`));
    expect(journal).toBeGreaterThan(0);
    const r = cli(["backup", file, "--data-dir", dir]);
    expect(r.code).toBe(0);
    // + 2: drizzle's __drizzle_migrations and __migrations_applied_at (when each was applied)
    expect(r.stdout).toMatch(new RegExp(`^wrote ${file}: \\d+ bytes, ${knownTables.length + 2} tables, ${journal} journal rows, ${embeddedMigrations.length} migrations`));
    expect(r.stdout).toContain(`journal=${journal}`);

    const before = readFileSync(file);
    const again = cli(["backup", file, "--data-dir", dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(readFileSync(file).equals(before)).toBe(true);

    writeFileSync(join(out, "other"), "not mine");
    expect(cli(["backup", join(out, "other"), "--data-dir", dir]).code).toBe(1);
    expect(readFileSync(join(out, "other"), "utf8")).toBe("not mine");
  });

  test("usage and missing ledgers", () => {
    expect(cli(["backup"]).code).toBe(2);
    const empty = tempDir();
    const r = cli(["backup", join(empty, "x.db"), "--data-dir", join(empty, "nowhere")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no ledger");
    mkdirSync(join(empty, "d"));
    expect(existsSync(join(empty, "x.db"))).toBe(false);
  });
});
