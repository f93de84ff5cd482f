// Incremental booking on the demo ledger (a real SQLite file): chunks of bounded size, a mark
// bumped meanwhile is left for the next chunk, and a wallet the engine fails on is held back
// without holding up the others.
import { afterAll, describe, expect, test } from "bun:test";
import { bookEverythingDirty, bookMarks } from "../../src/ledger/booking.ts";
import { dirtyBacklog, markDirty, readDirty } from "../../src/ledger/dirty.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { opsStatus } from "../../src/ledger/queries/ops.ts";
import { createLogger } from "../../src/log.ts";
import { createBooker } from "../../src/sync/booker.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";
import { ledgerTarget } from "../support/engine.ts";
import { q, type Statement } from "../support/sql.ts";

afterAll(removeTempDirs);

const count = async (l: Ledger, [stmt, values]: Statement<{ n: number }>) => (await l.db.get(stmt, values))!.n;

describe("incremental booking", async () => {
  test("each chunk books at most its share of wallets, each in its own transaction", async () => {
    const l = await openLedger(ledgerTarget(await demoDataDir()));
    const owners = ((await l.db.all(...q`SELECT DISTINCT owner FROM tenant_wallets`)) as { owner: string }[]).map((r) => r.owner);
    expect(owners.length).toBeGreaterThanOrEqual(2);
    const now = new Date();
    await l.db.write((tx) => markDirty(tx, "wallet", owners, now.toISOString()));
    const chunks = await bookEverythingDirty(l.db, now, { walletsPerChunk: 1 });
    expect(chunks.map((c) => [c.kind, c.booked])).toEqual(owners.map(() => ["wallets", 1]));
    // Nothing changed since the demo was booked: every action is recognised as unchanged.
    expect(chunks.every((c) => c.actionsWritten === 0 && c.recognitions === 0 && c.actionsUnchanged > 0)).toBe(true);
    await l.close();
  });

  test("a booking that changes nothing rewrites no portfolio: only the yields row, which says when the wallet was booked", async () => {
    const l = await openLedger(ledgerTarget(await demoDataDir()));
    const rows = async () => ({
      portfolios: await l.db.all(...q`SELECT owner, body, updated_at FROM portfolios ORDER BY owner`),
    });
    const before = await rows();
    expect(before.portfolios.length).toBeGreaterThan(0);
    const owners = ((await l.db.all(...q`SELECT DISTINCT owner FROM tenant_wallets`)) as { owner: string }[]).map((r) => r.owner);
    const later = new Date(Date.parse((await l.db.get(...q<{ at: string }>`SELECT max(updated_at) AS at FROM yields`))!.at) + 1000);
    await l.db.write((tx) => markDirty(tx, "wallet", owners, later.toISOString()));
    const chunks = await bookEverythingDirty(l.db, later);
    expect(chunks.reduce((n, c) => n + c.booked, 0)).toBe(owners.length);
    expect(await rows()).toEqual(before);
    expect(await l.db.all(...q`SELECT DISTINCT updated_at FROM yields`)).toEqual([{ updated_at: later.toISOString() }]);
    await l.close();
  });

  test("a mark bumped by newer observations after the chunk read it is not cleared: the wallet is booked again", async () => {
    const l = await openLedger(ledgerTarget(await demoDataDir()));
    const [owner] = ((await l.db.all(...q`SELECT owner FROM tenant_wallets LIMIT 1`)) as { owner: string }[]).map((r) => r.owner);
    const now = new Date();
    await l.db.write((tx) => markDirty(tx, "wallet", [owner!], now.toISOString()));
    const read = await readDirty(l.db, "wallet", 10, now);
    await l.db.write((tx) => markDirty(tx, "wallet", [owner!], now.toISOString())); // observations arrive meanwhile
    const chunk = await bookMarks(l.db, "wallet", read, now);
    expect(chunk).toMatchObject({ booked: 0, deferred: 1 });
    expect((await dirtyBacklog(l.db, now)).wallets).toBe(1);
    expect((await bookEverythingDirty(l.db, now)).map((c) => c.booked)).toEqual([1]);
    expect((await dirtyBacklog(l.db, now)).wallets).toBe(0);
    await l.close();
  });

  test("a wallet the engine fails on is held back and named; the other wallets are booked", async () => {
    const l = await openLedger(ledgerTarget(await demoDataDir()));
    const owners = ((await l.db.all(...q`SELECT DISTINCT owner FROM tenant_wallets ORDER BY owner`)) as { owner: string }[]).map((r) => r.owner);
    const [bad, ...good] = owners;
    // A stored balance that is not a number (a damaged row): loading the wallet throws.
    const mint = ((await l.db.get(...q`SELECT mint FROM balance_changes WHERE owner = ${bad!} LIMIT 1`)) as { mint: string }).mint;
    await l.db.run(...q`INSERT INTO balance_changes (signature, token_account, owner, mint, slot, block_time, pre_raw, post_raw) VALUES ('damaged', 'acct', ${bad!}, ${mint}, 1, 1, 'x', 'y')`);
    const now = new Date();
    await l.db.write((tx) => markDirty(tx, "wallet", owners, now.toISOString()));
    const logs: string[] = [];
    const booker = createBooker(
      l.db,
      createLogger("error", (line) => logs.push(line)),
      { now: () => now },
    );
    await booker.request();
    expect(
      booker
        .stats()
        .chunks.filter((c) => c.kind === "wallets")
        .reduce((n, c) => n + c.booked, 0),
    ).toBe(good.length);
    expect(await count(l, q`SELECT count(*) AS n FROM dirty_wallets WHERE owner = ${bad!} AND not_before IS NOT NULL`)).toBe(1);
    expect(await dirtyBacklog(l.db, now)).toMatchObject({ wallets: 0, deferred: 1 });
    expect(JSON.parse(logs[0]!)).toMatchObject({ level: "error", msg: "booking failed; retried later", kind: "wallet", key: bad });
    const check = (await opsStatus(l.db, { now, issuerPollSeconds: 3600, mintPollSeconds: 300, jobDeadlineSeconds: 1800, rpcErrors: () => ({ errors: 0, total: 0 }) })).checks.find(
      (c) => c.name === "booking_failures",
    );
    expect(check).toMatchObject({ status: "warn", value: 1 });
    await l.close();
  });
});
