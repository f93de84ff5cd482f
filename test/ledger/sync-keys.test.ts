// The sync's keys stored once (docs/storage.md#the-syncs-keys-stored-once), on a real SQLite file:
// `owner_scans` (nothing but its key) and `walk_cursors` (read by its key alone) are WITHOUT ROWID
// tables, each row stored once, in its key's order, with no separate index of the key. A ledger
// from before (SQLite's migration 0025 taken back: rowid tables, each key an index of its own)
// upgrades in place with every row as it was. SQLite's alone: PostgreSQL keeps a table and its
// key's index apart whatever is done.
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { migrationsOf } from "../../src/ledger/migrations.ts";
import { ownerScanSql } from "../../src/ledger/tables/owner-scans.ts";
import { walkCursorSql } from "../../src/ledger/tables/walk-cursors.ts";
import { undoStatements } from "../support/actions-before.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

const migrations = migrationsOf("sqlite");
const at = migrations.findIndex((m) => m.tag.endsWith("_sync_keys_stored_once"));
const TABLES = ["owner_scans", "walk_cursors"];

/** Each table's statement and the indexes on it, as `sqlite_master` says. */
const shapeOf = (db: Database) =>
  db.query(`SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('owner_scans', 'walk_cursors') ORDER BY type, name`).all() as { type: string; name: string; sql: string | null }[];
const rowsOf = (db: Database) => ({
  owner_scans: db.query("SELECT * FROM owner_scans ORDER BY owner, signature").all(),
  walk_cursors: db.query("SELECT * FROM walk_cursors ORDER BY scope, address").all(),
});

describe("the sync's keys stored once", () => {
  test("is dated after the migration before it", () => {
    expect(at).toBeGreaterThan(0);
    expect(migrations[at]!.when).toBeGreaterThan(migrations[at - 1]!.when);
  });

  test("a new ledger: each table is its key's index, with no other; the sync's statements read back what they wrote", async () => {
    const l = await openLedger(tempDir("cal-sync-keys-"));
    try {
      const db = sqliteOf(l);
      const shape = shapeOf(db);
      expect(shape.map((r) => [r.type, r.name])).toEqual([
        ["table", "owner_scans"],
        ["table", "walk_cursors"],
      ]);
      for (const r of shape) expect(r.sql).toEndWith("WITHOUT ROWID");
      const owner = "Own".padEnd(44, "1");
      await l.db.write(async (tx) => {
        await tx.run(ownerScanSql.insert, { owner, signatures: ["s2", "s1", "s2"] });
        await tx.run(walkCursorSql.upsert, { scope: "owner", address: owner, newest: "s2", newestSlot: 7, before: null, until: null, resumeNewest: null, at: "2026-11-27T00:00:00.000Z" });
        await tx.run(walkCursorSql.upsert, { scope: "owner", address: owner, newest: "s3", newestSlot: 9, before: "s1", until: null, resumeNewest: "s3", at: "2026-11-27T00:01:00.000Z" });
      });
      expect(await l.db.all(ownerScanSql.scanned, { owner, signatures: ["s1", "s2", "s4"] })).toEqual([{ signature: "s1" }, { signature: "s2" }]);
      expect(await l.db.get(walkCursorSql.read, { scope: "owner", address: owner })).toEqual({ newest_signature: "s3", newest_slot: 9, resume_before: "s1", resume_until: null, resume_newest: "s3" });
    } finally {
      await l.close();
    }
  });

  test("a ledger from before upgrades in place: the same rows, in tables of their keys", async () => {
    const dir = tempDir("cal-sync-keys-up-");
    let l = await openLedger(dir);
    let before: ReturnType<typeof rowsOf>;
    try {
      const db = sqliteOf(l);
      db.transaction(() => {
        for (let i = 0; i < 50; i++) {
          const owner = `Own${i}x`.padEnd(44, "1");
          for (let s = 0; s < 3; s++) db.query("INSERT INTO owner_scans (owner, signature) VALUES (?, ?)").run(owner, `sig${(i * 7 + s) % 13}`);
          db.query("INSERT INTO walk_cursors (scope, address, newest_signature, newest_slot, resume_before, resume_until, resume_newest, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
            i % 2 ? "owner" : "token",
            owner,
            `sig${i}`,
            i % 3 ? i * 10 : null,
            i % 4 ? null : `b${i}`,
            null,
            `n${i}`,
            "2026-11-27T00:00:00.000Z",
          );
        }
        // Taken back: the tables as the migrations before made them, with their rows; the
        // migration's record goes, and every later one's (taken back first).
        for (const m of migrations.slice(at).reverse()) {
          for (const s of undoStatements(m.sql, "sqlite")) db.exec(s);
          for (const t of ["__drizzle_migrations", "__migrations_applied_at"]) db.query(`DELETE FROM ${t} WHERE hash = ?`).run(sha256Hex(m.sql));
        }
      })();
      const old = shapeOf(db);
      expect(old.filter((r) => r.type === "index").map((r) => r.name)).toEqual(["sqlite_autoindex_owner_scans_1", "sqlite_autoindex_walk_cursors_1"]);
      for (const r of old.filter((r) => r.type === "table")) expect(r.sql).not.toContain("WITHOUT ROWID");
      before = rowsOf(db);
      expect(before.owner_scans.length).toBeGreaterThan(100);
      expect(before.walk_cursors).toHaveLength(50);
    } finally {
      await l.close();
    }
    l = await openLedger(dir); // the migration runs
    try {
      const db = sqliteOf(l);
      expect(shapeOf(db).map((r) => r.name)).toEqual(TABLES);
      expect(rowsOf(db)).toEqual(before);
    } finally {
      await l.close();
    }
  });
});
