// Incremental booking on the demo ledger (a real SQLite file): chunks of bounded size, a mark
// bumped meanwhile is left for the next chunk, and a wallet the engine fails on is held back
// without holding up the others.
import { afterAll, describe, expect, test } from "bun:test";
import { bookEverythingDirty, bookMarks } from "../../src/ledger/booking.ts";
import { dirtyBacklog, markDirty, readDirty } from "../../src/ledger/dirty.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { opsStatus } from "../../src/ledger/queries/ops.ts";
import { createLogger } from "../../src/log.ts";
import { createBooker } from "../../src/sync/booker.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";

afterAll(removeTempDirs);

const count = (l: ReturnType<typeof openLedger>, sql: string, ...p: string[]) => (l.sqlite.query(sql).get(...p) as { n: number }).n;

describe("incremental booking", () => {
  test("each chunk books at most its share of wallets, each in its own transaction", async () => {
    const l = openLedger(await demoDataDir());
    const owners = (l.sqlite.query("SELECT DISTINCT owner FROM tenant_wallets").all() as { owner: string }[]).map((r) => r.owner);
    expect(owners.length).toBeGreaterThanOrEqual(2);
    const now = new Date();
    l.sqlite.transaction(() => markDirty(l.sqlite, "wallet", owners, now.toISOString())).immediate();
    const chunks = bookEverythingDirty(l.sqlite, now, { walletsPerChunk: 1 });
    expect(chunks.map((c) => [c.kind, c.booked])).toEqual(owners.map(() => ["wallets", 1]));
    // Nothing changed since the demo was booked: every action is recognised as unchanged.
    expect(chunks.every((c) => c.actionsWritten === 0 && c.recognitions === 0 && c.actionsUnchanged > 0)).toBe(true);
    l.close();
  });

  test("a mark bumped by newer observations after the chunk read it is not cleared: the wallet is booked again", async () => {
    const l = openLedger(await demoDataDir());
    const [owner] = (l.sqlite.query("SELECT owner FROM tenant_wallets LIMIT 1").all() as { owner: string }[]).map((r) => r.owner);
    const now = new Date();
    l.sqlite.transaction(() => markDirty(l.sqlite, "wallet", [owner!], now.toISOString())).immediate();
    const read = readDirty(l.sqlite, "wallet", 10, now);
    l.sqlite.transaction(() => markDirty(l.sqlite, "wallet", [owner!], now.toISOString())).immediate(); // observations arrive meanwhile
    const chunk = bookMarks(l.sqlite, "wallet", read, now);
    expect(chunk).toMatchObject({ booked: 0, deferred: 1 });
    expect(dirtyBacklog(l.sqlite, now).wallets).toBe(1);
    expect(bookEverythingDirty(l.sqlite, now).map((c) => c.booked)).toEqual([1]);
    expect(dirtyBacklog(l.sqlite, now).wallets).toBe(0);
    l.close();
  });

  test("a wallet the engine fails on is held back and named; the other wallets are booked", async () => {
    const l = openLedger(await demoDataDir());
    const owners = (l.sqlite.query("SELECT DISTINCT owner FROM tenant_wallets ORDER BY owner").all() as { owner: string }[]).map((r) => r.owner);
    const [bad, ...good] = owners;
    // A stored balance that is not a number (a damaged row): loading the wallet throws.
    const mint = (l.sqlite.query("SELECT mint FROM balance_changes WHERE owner = ? LIMIT 1").get(bad!) as { mint: string }).mint;
    l.sqlite.query("INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw) VALUES ('damaged', 'acct', ?, ?, 1, 1, 'x', 'y')").run(bad!, mint);
    const now = new Date();
    l.sqlite.transaction(() => markDirty(l.sqlite, "wallet", owners, now.toISOString())).immediate();
    const logs: string[] = [];
    const booker = createBooker(l.sqlite, createLogger("error", (line) => logs.push(line)), { now: () => now });
    await booker.request();
    expect(booker.stats().chunks.filter((c) => c.kind === "wallets").reduce((n, c) => n + c.booked, 0)).toBe(good.length);
    expect(count(l, "SELECT count(*) AS n FROM dirty_wallets WHERE owner = ? AND not_before IS NOT NULL", bad!)).toBe(1);
    expect(dirtyBacklog(l.sqlite, now)).toMatchObject({ wallets: 0, deferred: 1 });
    expect(JSON.parse(logs[0]!)).toMatchObject({ level: "error", msg: "booking failed; retried later", kind: "wallet", key: bad });
    const check = opsStatus(l.sqlite, { now, issuerPollSeconds: 3600, mintPollSeconds: 300, jobDeadlineSeconds: 1800, rpcErrors: () => ({ errors: 0, total: 0 }) }).checks.find((c) => c.name === "booking_failures");
    expect(check).toMatchObject({ status: "warn", value: 1 });
    l.close();
  });
});
