// The key lookup and the registration check remember what they read between requests only while
// nothing is committed (docs/performance.md#the-key-lookup): a revocation or a removal made on
// another connection, as `ca-ledger keys revoke` and `ca-ledger wallets remove` make them in their
// own process, shows at the very next lookup, however many times it was answered before. The
// commit marks are SQLite's data_version and the connection's total_changes()
// (src/ledger/sql/commit-marks.ts); a PostgreSQL ledger has none and reads every time (the same
// tests run there).
import { afterAll, describe, expect, test } from "bun:test";
import { openLedger } from "../../src/ledger/db.ts";
import { createKey, ensureTenant, keyLookup, revokeKey } from "../../src/ledger/keys.ts";
import { registrationLookup } from "../../src/ledger/queries/common.ts";
import { registerAndEnqueue, unregisterWallet } from "../../src/ledger/queue.ts";
import { whileUncommitted } from "../../src/ledger/sql/commit-marks.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { tenantWalletSql } from "../../src/ledger/tables/tenant-wallets.ts";
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

describe("whileUncommitted", () => {
  test("reads again once anything is committed: by another connection, or by its own", async () => {
    const dir = tempDir("cal-commit-marks-");
    const l = await openLedger(ledgerTarget(dir));
    const other = await openLedger(ledgerTarget(dir)); // another connection, as another process has
    try {
      const tenantId = await ensureTenant(l.db, "acme");
      let reads = 0;
      const remembered = whileUncommitted<number>(l.db, 10);
      const wallets = (on: Sql) => {
        reads++;
        return on.get(tenantWalletSql.countOfTenant, { tenantId }).then((r) => r!.n);
      };
      expect(await remembered.get("n", wallets)).toBe(0);
      expect(await remembered.get("n", wallets)).toBe(0);
      // SQLite answers the second from memory; PostgreSQL has no commit marks and reads each time.
      expect(reads).toBe(testEngine === "sqlite" ? 1 : 2);
      await registerAndEnqueue(other.db, tenantId, 10, randomAddress());
      expect(await remembered.get("n", wallets)).toBe(1);
      await registerAndEnqueue(l.db, tenantId, 10, randomAddress()); // its own connection
      expect(await remembered.get("n", wallets)).toBe(2);
      expect(await remembered.get("n", wallets)).toBe(2);
      expect(reads).toBe(testEngine === "sqlite" ? 3 : 5);
      // Inside a transaction in progress it reads on the transaction, and sees the transaction's own writes.
      await l.db.write(async (tx) => {
        await registerAndEnqueue(tx, tenantId, 10, randomAddress());
        expect(await remembered.get("n", wallets, undefined, tx)).toBe(3);
      });
    } finally {
      await other.close();
      await l.close();
    }
  });
});
