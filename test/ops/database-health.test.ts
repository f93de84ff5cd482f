// The database under a serving binary: a corrupted page, a deleted or replaced ledger.db and a
// scribbled header are each noticed. The request that meets damage answers 503 `unavailable`
// (never 500), /v1/health answers 503, the ops `database` check is critical, and the server logs
// it once; a ledger whose file is gone answers 503 everywhere but health and ops.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, copyFileSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { classifyDatabaseError } from "../../src/ledger/health.ts";
import { cli, demoDataDir, removeTempDirs, serveBinary, tempDir, type Serving } from "./helpers.ts";

afterAll(removeTempDirs);

// One demo ledger with an ops key, copied for each test.
let base: Promise<{ dir: string; key: string; mint: string }> | null = null;
function demoBase() {
  return (base ??= (async () => {
    const dir = await demoDataDir();
    const key = JSON.parse(cli(["keys", "create", "ops", "--tenant", "demo", "--scopes", "assets:read,ledger:read,ops:read", "--json", "--data-dir", dir]).stdout).key;
    const db = new Database(join(dir, "ledger.db"), { readonly: true });
    const mint = (db.query("SELECT mint FROM lineage LIMIT 1").get() as { mint: string }).mint;
    db.close();
    return { dir, key, mint };
  })());
}

async function demoWithKey(): Promise<{ dir: string; key: string; mint: string }> {
  const b = await demoBase();
  const dir = tempDir("cal-health-");
  copyFileSync(join(b.dir, "ledger.db"), join(dir, "ledger.db"));
  return { ...b, dir };
}

async function get(srv: Serving, path: string, key?: string) {
  const r = await fetch(srv.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: r.status, body: JSON.parse(await r.text()), retryAfter: r.headers.get("retry-after") };
}

async function databaseCheck(srv: Serving, key: string) {
  const ops = await get(srv, "/v1/ops/status", key);
  expect(ops.status).toBe(200);
  return { status: ops.body.status, database: ops.body.checks.find((c: { name: string }) => c.name === "database") };
}

async function until<T>(what: () => Promise<T> | T, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  for (const started = Date.now(); ; await Bun.sleep(50)) {
    const v = await what();
    if (ok(v) || Date.now() - started > ms) return v;
  }
}

const unusable = (srv: Serving) =>
  srv
    .stderr()
    .split("\n")
    .filter((l) => l.includes('"msg":"ledger database unusable"'));

describe("the database under a serving binary", () => {
  test("a corrupted page: the request answers 503 unavailable; health 503, ops critical, one log line", async () => {
    const { dir, key, mint } = await demoWithKey();
    const db = new Database(join(dir, "ledger.db"), { readonly: true });
    const { payload } = db.query("SELECT payload FROM lineage WHERE mint = ?").get(mint) as { payload: string };
    const { page_size } = db.query("PRAGMA page_size").get() as { page_size: number };
    db.close();
    // The b-tree page that holds this mint's lineage row (the table may span several pages).
    const at = readFileSync(join(dir, "ledger.db")).indexOf(Buffer.from(payload));
    expect(at).toBeGreaterThan(0);
    const page = Math.floor(at / page_size);
    const srv = await serveBinary(dir, ["--demo"]); // a demo data dir is served with --demo
    try {
      expect((await get(srv, "/v1/health")).status).toBe(200);
      // Scribble over that page past its 8-byte header, cell pointers and cells (the server has not read it yet, so nothing is cached).
      const fd = openSync(join(dir, "ledger.db"), "r+");
      writeSync(fd, Buffer.alloc(page_size - 8, 0x41), 0, page_size - 8, page * page_size + 8);
      closeSync(fd);

      const hit = await get(srv, `/v2/instruments/${mint}/lineage`, key);
      expect({ status: hit.status, code: hit.body.code }).toEqual({ status: 503, code: "unavailable" });
      expect(hit.retryAfter).not.toBeNull();
      const health = await get(srv, "/v1/health");
      expect({ status: health.status, code: health.body.code }).toEqual({ status: 503, code: "unavailable" });
      expect(health.body.error).toMatch(/malformed/);
      expect(await databaseCheck(srv, key)).toEqual({ status: "critical", database: expect.objectContaining({ status: "critical", value: "damaged" }) });
      // Damage is local: the rest of the ledger still answers.
      expect((await get(srv, "/v2/taxonomy", key)).status).toBe(200);
      await get(srv, `/v2/instruments/${mint}/lineage`, key);
      expect(unusable(srv)).toHaveLength(1);
      expect(srv.stderr()).not.toContain('"code":"internal_error"');
      expect(srv.stderr()).not.toContain("unhandled error");
    } finally {
      await srv.kill();
    }
  });

  test("ledger.db deleted while serving: logged without any request, health 503, ops critical, ledger routes 503", async () => {
    const { dir, key } = await demoWithKey();
    const srv = await serveBinary(dir, ["--demo"]); // a demo data dir is served with --demo
    try {
      expect((await get(srv, "/v1/assets", key)).status).toBe(200);
      rmSync(join(dir, "ledger.db"));
      // No request: the server's own timer notices.
      const logged = await until(
        () => unusable(srv),
        (l) => l.length > 0,
      );
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({ level: "error", kind: "missing", reason: expect.stringMatching(/deleted/) });

      const health = await get(srv, "/v1/health");
      expect({ status: health.status, code: health.body.code }).toEqual({ status: 503, code: "unavailable" });
      expect(await databaseCheck(srv, key)).toEqual({ status: "critical", database: expect.objectContaining({ status: "critical", value: "missing" }) });
      // The old inode still answers, but nothing is served from it: writes would be lost, and a key
      // revoked meanwhile (in whatever file now sits at the path) would still be accepted.
      for (const path of ["/v1/assets", "/v1/wallets", "/v2/taxonomy"]) {
        const r = await get(srv, path, key);
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 503, code: "unavailable" });
      }
      expect(unusable(srv)).toHaveLength(1);
    } finally {
      await srv.kill();
    }
  });

  test("ledger.db replaced by another file while serving: health 503, ops critical", async () => {
    const { dir, key } = await demoWithKey();
    const other = tempDir();
    const srv = await serveBinary(dir, ["--demo"]); // a demo data dir is served with --demo
    try {
      copyFileSync(join(dir, "ledger.db"), join(other, "ledger.db"));
      renameSync(join(other, "ledger.db"), join(dir, "ledger.db"));
      const health = await until(
        () => get(srv, "/v1/health"),
        (h) => h.status === 503,
      );
      expect({ status: health.status, error: health.body.error }).toEqual({ status: 503, error: expect.stringMatching(/replaced/) });
      expect((await databaseCheck(srv, key)).database.value).toBe("missing");
    } finally {
      await srv.kill();
    }
  });

  test("a scribbled file header: health 503, ops critical", async () => {
    const { dir, key } = await demoWithKey();
    const srv = await serveBinary(dir, ["--demo"]); // a demo data dir is served with --demo
    try {
      // The demo's worker polls once as it starts; its writes would race the scribble below.
      await until(
        () => get(srv, "/v1/ops/status", key),
        (o) => ["issuer_feed_freshness", "mint_poll_freshness"].every((name) => o.body.checks?.find((c: { name: string }) => c.name === name)?.value !== null),
      );
      const fd = openSync(join(dir, "ledger.db"), "r+");
      writeSync(fd, Buffer.from("not a database!!"), 0, 16, 0);
      closeSync(fd);
      const health = await until(
        () => get(srv, "/v1/health"),
        (h) => h.status === 503,
      );
      expect({ status: health.status, code: health.body.code }).toEqual({ status: 503, code: "unavailable" });
      expect((await databaseCheck(srv, key)).database.value).toBe("damaged");
    } finally {
      await srv.kill();
    }
  });
});

describe("classifying SQLite's own errors", () => {
  const error = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    throw new Error("no error");
  };

  test("SQLITE_NOTADB and SQLITE_CORRUPT are damage; a lock is unavailable; the rest is not the database's", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "garbage.db"), Buffer.alloc(8192, 0x42));
    expect(classifyDatabaseError(error(() => new Database(join(dir, "garbage.db")).query("SELECT * FROM sqlite_master").all()))).toBe("damaged");

    const path = join(dir, "corrupt.db");
    const db = new Database(path);
    db.exec("CREATE TABLE t (x TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO t SELECT hex(randomblob(100)) FROM n");
    db.close();
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(3000, 0x41), 0, 3000, 4096);
    closeSync(fd);
    expect(classifyDatabaseError(error(() => new Database(path).query("SELECT count(*), max(x) FROM t").all()))).toBe("damaged");

    const a = new Database(join(dir, "locked.db"));
    a.exec("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
    const b = new Database(join(dir, "locked.db"));
    expect(classifyDatabaseError(error(() => b.exec("BEGIN IMMEDIATE")))).toBe("unavailable");
    a.exec("ROLLBACK");
    a.close();
    b.close();

    expect(classifyDatabaseError(new Error("x is not a function"))).toBeNull();
    expect(classifyDatabaseError(error(() => new Database(":memory:").query("SELECT * FROM nope").all()))).toBeNull();
  });
});
