// A pinned read on SQLite (Db.pinReads, docs/sql.md#pinned-reads): the connection's own reads
// join one read transaction until unpinReads; whoever needs the connection for anything else ends
// it first instead of waiting, so it never blocks (and never deadlocks a request that writes while
// pinned); a pin asked for again keeps the snapshot while the change mark says nothing was
// committed. SQLite's alone: on PostgreSQL pinReads and unpinReads do nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { openLedger, sqliteOf, type Ledger } from "../../src/ledger/db.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

/**
 * Runs `work` on a ledger with a scratch table, pinned from the start with its value read (it
 * holds 'before'), and a second connection to it (another process's, as the CLI's).
 */
async function withPinnedReader(work: (reader: Ledger, writer: Ledger) => Promise<void>): Promise<void> {
  const dir = tempDir("cal-pin-");
  const reader = await openLedger(dir);
  await reader.db.exec("CREATE TABLE scratch (k INTEGER PRIMARY KEY, v TEXT); INSERT INTO scratch VALUES (1, 'before')");
  const writer = await openLedger(dir);
  try {
    reader.db.pinReads();
    expect(await storedValue(reader)).toBe("before");
    await work(reader, writer);
  } finally {
    await Promise.all([reader.close(), writer.close()]);
  }
}

const storedValue = async (l: Ledger) => (await l.db.get(...q<{ v: string }>`SELECT v FROM scratch WHERE k = 1`))!.v;
const writeElsewhere = (l: Ledger, v: string) => l.db.run(...q`UPDATE scratch SET v = ${v} WHERE k = 1`);

describe("a pinned read", () => {
  test("its reads see one snapshot: a commit made meanwhile shows once it is unpinned", async () => {
    await withPinnedReader(async (reader, writer) => {
      await writeElsewhere(writer, "after");
      expect(await storedValue(reader)).toBe("before");
      // A read transaction inside it joins it rather than waiting for it to end.
      expect(await reader.db.read(async (tx) => (await tx.get(...q<{ v: string }>`SELECT v FROM scratch WHERE k = 1`))!.v)).toBe("before");
      reader.db.unpinReads();
      expect(sqliteOf(reader).inTransaction).toBe(false);
      expect(await storedValue(reader)).toBe("after");

      // A pin asked for while one is pinned reads what is committed now, not the older snapshot.
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("after");
      await writeElsewhere(writer, "later");
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("later");
      reader.db.unpinReads();
      expect(sqliteOf(reader).inTransaction).toBe(false);
    });
  });

  test("a pin asked for again keeps its snapshot while nothing was committed through the port, and takes a new one after any commit", async () => {
    await withPinnedReader(async (reader, writer) => {
      // Below the port (no change mark): the snapshot is kept, which shows it is the same one.
      const below = new Database(sqliteOf(writer).filename);
      try {
        below.run("UPDATE scratch SET v = 'below the port' WHERE k = 1");
      } finally {
        below.close();
      }
      reader.db.pinReads();
      expect(sqliteOf(reader).inTransaction).toBe(true);
      expect(await storedValue(reader)).toBe("before");
      // A commit through the port, by another connection (another process's, as the CLI's): the
      // next pin reads what is committed now, the write below the port included.
      await writeElsewhere(writer, "through the port");
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("through the port");
      // The reader's own commits, too (here one the pin gave way to).
      await reader.db.run(...q`UPDATE scratch SET v = 'its own' WHERE k = 1`);
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("its own");
      reader.db.unpinReads();
      expect(sqliteOf(reader).inTransaction).toBe(false);
    });
  });

  test("a write asked for meanwhile ends it and runs at once, and the reads after it see the write", async () => {
    await withPinnedReader(async (reader, writer) => {
      await writeElsewhere(writer, "elsewhere");
      await reader.db.write((tx) => tx.run(...q`UPDATE scratch SET v = 'here' WHERE k = 1`));
      expect(await storedValue(reader)).toBe("here");
      reader.db.unpinReads(); // already ended by the write: nothing left to end
      expect(sqliteOf(reader).inTransaction).toBe(false);

      // A write outside a transaction too: it is kept, not undone with the pin.
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("here");
      await reader.db.run(...q`UPDATE scratch SET v = 'autocommit' WHERE k = 1`);
      expect(sqliteOf(reader).inTransaction).toBe(false);
      reader.db.unpinReads();
      expect(await storedValue(writer)).toBe("autocommit");

      // A skippable write (a key's last-used minute) too: it is not skipped for the pin.
      reader.db.pinReads();
      expect(await storedValue(reader)).toBe("autocommit");
      expect(await reader.db.writeIfFree((tx) => tx.run(...q`UPDATE scratch SET v = 'skippable' WHERE k = 1`))).toBe(true);
      expect(sqliteOf(reader).inTransaction).toBe(false);
      expect(await storedValue(reader)).toBe("skippable");
      reader.db.unpinReads();
    });
  });

  test("an iteration or a transaction of the connection's ends it first; a pin asked for inside a transaction is none", async () => {
    await withPinnedReader(async (reader, writer) => {
      await writeElsewhere(writer, "committed");
      const seen: string[] = [];
      for await (const r of reader.db.iterate(...q<{ v: string }>`SELECT v FROM scratch`)) seen.push(r.v);
      expect(seen).toEqual(["committed"]);

      await reader.db.read(async (tx) => {
        reader.db.pinReads(); // the transaction holds the connection: its reads are its own
        expect(await tx.get(...q`SELECT 1 AS one`)).toEqual({ one: 1 });
        reader.db.unpinReads();
        expect(sqliteOf(reader).inTransaction).toBe(true);
      });
      expect(sqliteOf(reader).inTransaction).toBe(false);

      // A pin that cannot begin (a transaction opened under the port, by hand) fails and lets the
      // connection go: the queries after it run, they do not wait on a pin that never was.
      sqliteOf(reader).exec("BEGIN");
      expect(() => reader.db.pinReads()).toThrow(/transaction/);
      sqliteOf(reader).exec("ROLLBACK");
      expect(await storedValue(reader)).toBe("committed");
      await reader.db.write((tx) => tx.run(...q`UPDATE scratch SET v = 'after a failed pin' WHERE k = 1`));
      expect(await storedValue(writer)).toBe("after a failed pin");
    });
  });
});
