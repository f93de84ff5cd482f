// Restore: a round trip through backup gives back the same ledger; every refusal leaves the
// data dir untouched.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "../../src/server.ts";
import { knownTables } from "../../src/ledger/backup.ts";
import { rowKey } from "../support/sqlite-rows.ts";
import { cli, demoDataDir, removeTempDirs, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

/** Every table's rows, as text, so two ledgers can be compared whole. */
function dump(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  const names = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const out = Object.fromEntries(names.map((n) => [n, JSON.stringify(db.query(`SELECT * FROM "${n}" ORDER BY ${rowKey(db, n).join(", ")}`).all())]));
  db.close();
  return out;
}

async function backupOfDemo(): Promise<{ source: string; file: string }> {
  const source = await demoDataDir();
  const file = join(tempDir("cal-bak-"), "backup.db");
  expect(cli(["backup", file, "--data-dir", source]).code).toBe(0);
  return { source, file };
}

describe("ca-ledger restore", () => {
  test("round trip: backup, restore into an empty data dir, same rows, verify passes", async () => {
    const { source, file } = await backupOfDemo();
    const target = tempDir("cal-restore-");
    const r = cli(["restore", file, "--data-dir", target]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // + 2: drizzle's __drizzle_migrations and __migrations_applied_at (when each was applied)
    const sourceDb = new Database(join(source, "ledger.db"), { readonly: true });
    const journal = (sourceDb.query("SELECT count(*) AS n FROM journal").get() as { n: number }).n;
    sourceDb.close();
    expect(journal).toBeGreaterThan(0);
    expect(r.stdout).toMatch(new RegExp(`^restored .*ledger\\.db: \\d+ bytes, ${knownTables.length + 2} tables, ${journal} journal rows`));
    expect(dump(join(target, "ledger.db"))).toEqual(dump(join(source, "ledger.db")));
    expect(readdirSync(target)).toEqual(["ledger.db"]); // no temp file left beside it
    expect(cli(["verify", "--data-dir", target]).code).toBe(0);
  });

  test("refuses to replace a ledger holding data without --force; with it, keeps the old one", async () => {
    const { file } = await backupOfDemo();
    const target = await demoDataDir();
    const db = new Database(join(target, "ledger.db"));
    db.exec("DROP TRIGGER issuer_revisions_no_delete; DELETE FROM issuer_revisions WHERE id > 70"); // make it differ from the backup
    db.close();
    const before = dump(join(target, "ledger.db"));

    const refused = cli(["restore", file, "--data-dir", target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--force");
    expect(dump(join(target, "ledger.db"))).toEqual(before);

    const forced = cli(["restore", file, "--data-dir", target, "--force"]);
    expect(forced.code).toBe(0);
    const kept = /previous ledger kept as (\S+)/.exec(forced.stdout)![1]!;
    expect(dump(kept)).toEqual(before);
    expect(dump(join(target, "ledger.db"))).toEqual(dump(file));
  });

  test("stale -wal/-shm beside the old ledger are folded in first and never replayed onto the new file", async () => {
    const { file } = await backupOfDemo();
    const target = tempDir("cal-restore-");
    // A crashed process's ledger: committed rows live only in its WAL.
    const child = Bun.spawnSync([
      process.execPath,
      "-e",
      `
      const { Database } = require("bun:sqlite");
      const db = new Database(${JSON.stringify(join(target, "ledger.db"))}, { create: true });
      db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE note (t TEXT); INSERT INTO note VALUES ('only in the wal')");
      process.kill(process.pid, "SIGKILL");`,
    ]);
    expect(child.signalCode).toBe("SIGKILL");
    expect(existsSync(join(target, "ledger.db-wal"))).toBe(true);
    const r = cli(["restore", file, "--data-dir", target]); // the crashed ledger holds no ledger data
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(existsSync(join(target, "ledger.db-wal"))).toBe(false);
    expect(dump(join(target, "ledger.db"))).toEqual(dump(file));
    expect(cli(["verify", "--data-dir", target]).code).toBe(0);
  });

  test("refuses while a server holds the data dir", async () => {
    const { file } = await backupOfDemo();
    const target = tempDir("cal-restore-");
    const server = await startServer({ "data-dir": target, port: "0", "log-level": "error" }, { offline: true, env: {}, quiet: true });
    try {
      // Read through SQLite only: a plain read()+close() of ledger.db in this process would drop
      // the server's POSIX locks on it (fcntl semantics), which is what restore detects.
      const before = dump(join(target, "ledger.db"));
      const r = cli(["restore", file, "--data-dir", target, "--force"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("open in another process");
      expect(dump(join(target, "ledger.db"))).toEqual(before);
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(cli(["restore", file, "--data-dir", target]).code).toBe(0); // stopped: now it may
  });

  test("refuses files that are not a ca-ledger database this build knows", async () => {
    const { file } = await backupOfDemo();
    const scratch = tempDir("cal-bad-");
    const target = tempDir("cal-restore-");
    const cases: [string, () => string, RegExp][] = [
      ["missing", () => join(scratch, "nope.db"), /does not exist/],
      ["text", () => (writeFileSync(join(scratch, "t.db"), "hello"), join(scratch, "t.db")), /not a SQLite database/],
      [
        "other sqlite",
        () => {
          const p = join(scratch, "o.db");
          const db = new Database(p, { create: true });
          db.exec("CREATE TABLE users (id INTEGER)");
          db.close();
          return p;
        },
        /no __drizzle_migrations table/,
      ],
      [
        "missing table",
        () => {
          const p = join(scratch, "m.db");
          copyFileSync(file, p);
          const db = new Database(p);
          db.exec("DROP TABLE yields");
          db.close();
          return p;
        },
        /missing table\(s\): yields/,
      ],
      [
        "newer version",
        () => {
          const p = join(scratch, "n.db");
          copyFileSync(file, p);
          const db = new Database(p);
          db.exec("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('ffff', 9999999999999)");
          db.close();
          return p;
        },
        /unknown to this build/,
      ],
      [
        "corrupt",
        () => {
          const p = join(scratch, "c.db");
          const bytes = readFileSync(file);
          // Scribble over the middle pages (b-tree pages of the tables): the header still says SQLite.
          for (let i = 8192; i < bytes.length - 8192; i += 997) bytes[i] = 0xa5;
          writeFileSync(p, bytes);
          return p;
        },
        /integrity_check|cannot be read|malformed/,
      ],
    ];
    for (const [name, make, message] of cases) {
      const r = cli(["restore", make(), "--data-dir", target]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect(r.stderr).toMatch(message);
      expect(readdirSync(target)).toEqual([]);
    }
    expect(cli(["restore"]).code).toBe(2);
  });
});
