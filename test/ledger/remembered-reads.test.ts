// The key lookup and the registration check remember what they read between requests only while
// nothing is committed (docs/performance.md#the-key-lookup): a revocation or a removal made on
// another connection, as `ca-ledger keys revoke` and `ca-ledger wallets remove` make them in their
// own process, shows at the very next lookup, however many times it was answered before. The
// commit marks they rely on are read from SQLite's WAL-index; a PostgreSQL ledger has none and
// reads the rows every time (the same tests run there).
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { ledgerPath, openLedger } from "../../src/ledger/db.ts";
import { createKey, ensureTenant, keyLookup, revokeKey } from "../../src/ledger/keys.ts";
import { registrationLookup } from "../../src/ledger/queries/common.ts";
import { registerAndEnqueue, unregisterWallet } from "../../src/ledger/queue.ts";
import { walIndexMarks } from "../../src/ledger/sql/commit-marks.ts";
import { randomAddress } from "../harness/index.ts";
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

describe("the registration check", () => {
  test("a wallet read again and again reads as unregistered at the next check once another connection removes it", async () => {
    const dir = tempDir("cal-registration-");
    const server = await openLedger(ledgerTarget(dir));
    const cli = await openLedger(ledgerTarget(dir));
    try {
      const tenantId = await ensureTenant(server.db, "acme");
      const owner = randomAddress();
      const registration = registrationLookup(server.db);
      expect(await registration(tenantId, owner)).toBeNull();
      await registerAndEnqueue(cli.db, tenantId, 10, owner);
      for (let i = 0; i < 3; i++) expect(await registration(tenantId, owner)).toEqual({ booksVisible: false });
      expect(await registration(tenantId + 1, owner)).toBeNull(); // another tenant's view of it
      expect((await unregisterWallet(cli.db, tenantId, owner)).removed).toBe(true);
      expect(await registration(tenantId, owner)).toBeNull();
    } finally {
      await cli.close();
      await server.close();
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
