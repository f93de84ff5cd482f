// The key lookup remembers a key between requests only while nothing is committed
// (docs/performance.md#the-key-lookup): a revocation made on another connection, as
// `ca-ledger keys revoke` makes it in its own process, is refused at the very next lookup, however
// many times the key was answered before. The commit marks it relies on are read from SQLite's
// WAL-index; a PostgreSQL ledger has none and reads the row every time (the same test runs there).
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { ledgerPath, openLedger } from "../../src/ledger/db.ts";
import { createKey, keyLookup, revokeKey } from "../../src/ledger/keys.ts";
import { walIndexMarks } from "../../src/ledger/sql/commit-marks.ts";
import { ledgerTarget, testEngine } from "../support/engine.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

const minute = Date.parse("2026-11-27T10:00:00Z");

describe("the key lookup", () => {
  test("a key answered again and again is refused at the next lookup once another connection revokes it", async () => {
    const dir = tempDir("cal-key-lookup-");
    const server = await openLedger(ledgerTarget(dir));
    const cli = await openLedger(ledgerTarget(dir));
    try {
      const k = await createKey(server.db, { name: "k", tenant: "acme", scopes: ["ledger:read"] });
      const lookup = keyLookup(server.db);
      // The first lookup writes the key's last-used minute; the later ones, in the same minute, commit nothing.
      for (let i = 0; i < 4; i++) expect((await lookup(k.key, minute + i))?.keyId).toBe(k.id);
      expect(await revokeKey(cli.db, k.id)).toBe(true);
      expect(await lookup(k.key, minute + 5)).toBeNull();
      expect(await lookup(k.key, minute + 6)).toBeNull();
    } finally {
      await cli.close();
      await server.close();
    }
  });

  test("an unknown or malformed key is refused, and a valid one beside it still answers", async () => {
    const dir = tempDir("cal-key-lookup-");
    const l = await openLedger(ledgerTarget(dir));
    try {
      const k = await createKey(l.db, { name: "k", tenant: "acme", scopes: ["ledger:read"] });
      const lookup = keyLookup(l.db);
      expect((await lookup(k.key, minute))?.tenant).toBe("acme");
      expect(await lookup(k.key.slice(0, -1) + (k.key.endsWith("A") ? "B" : "A"), minute)).toBeNull();
      expect(await lookup("cal_short", minute)).toBeNull();
      expect((await lookup(k.key, minute))?.scopes).toEqual(["ledger:read"]);
    } finally {
      await l.close();
    }
  });
});

// SQLite's alone: the marks are its WAL-index header.
describe.if(testEngine === "sqlite")("commit marks", () => {
  test("stay unchanged until a connection of its own commits, and change with a checkpoint that restarts the WAL", async () => {
    const dir = tempDir("cal-commit-marks-");
    const l = await openLedger(dir);
    try {
      const marks = l.db.commits()!;
      expect(marks).not.toBeNull();
      const other = new Database(ledgerPath(dir)); // another connection, as another process has
      try {
        const m = marks.mark();
        other.query("SELECT count(*) FROM api_keys").get();
        expect(marks.unchanged(m)).toBe(true); // reading commits nothing
        other.exec("CREATE TABLE scratch (x)");
        expect(marks.unchanged(m)).toBe(false);
        const n = marks.mark();
        other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        other.exec("INSERT INTO scratch VALUES (1)"); // the first commit of a restarted WAL
        expect(marks.unchanged(n)).toBe(false);
      } finally {
        other.close();
      }
      const last = marks.mark();
      await l.close();
      expect(marks.unchanged(last)).toBe(false); // none is trusted once the connection is closed
    } finally {
      await l.close().catch(() => {});
    }
  });

  test("a database without a WAL-index has none", () => {
    expect(walIndexMarks(`${tempDir("cal-commit-marks-")}/absent.db-shm`)).toBeNull();
  });
});
