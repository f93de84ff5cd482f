// Several servers on one PostgreSQL ledger, each with its own connections (as separate
// processes have): migrations at start run once whoever starts first; queue claims (`FOR UPDATE
// SKIP LOCKED`) hand each job to exactly one of them; dirty marks claimed by one are not booked
// by another meanwhile, and a claim ends with its holder's connection; a registration and its
// job are written in one transaction; claims share the slots between tenants (fair share).
import { afterEach, describe, expect, test } from "bun:test";
import { loadDemo } from "../../src/demo/load.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { markEverythingDirty } from "../../src/ledger/dirty.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { migrationStatus } from "../../src/ledger/migrations.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { claimJob, QuotaExceeded, registerAndEnqueue, type JobRow } from "../../src/ledger/queue.ts";
import { address, tempDir } from "../harness/index.ts";
import { freshDatabase } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const open = new Set<Ledger>();
afterEach(async () => {
  for (const l of open) await l.close();
  open.clear();
});

/** `n` ledgers on one database, as `n` servers open it (each its own pool); closed after the test. */
async function servers(url: string, n: number): Promise<Ledger[]> {
  const ledgers = await Promise.all(Array.from({ length: n }, () => openLedger({ dataDir: tempDir(), databaseUrl: url })));
  for (const l of ledgers) open.add(l);
  return ledgers;
}

describe("several servers on one PostgreSQL database", () => {
  test("four starting together on an empty database: the migrations run once", async () => {
    const url = freshDatabase("start_together");
    const [first, ...rest] = await servers(url, 4);
    const status = await migrationStatus(first!.db);
    expect(status.every((m) => m.applied)).toBe(true);
    expect((await first!.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM drizzle."__drizzle_migrations"`))!.n).toBe(status.length);
    for (const l of rest) expect((await migrationStatus(l.db)).every((m) => m.applied)).toBe(true);
  });

  test("three claiming at once from 60 queued jobs: each job goes to exactly one", async () => {
    const url = freshDatabase("claims");
    const ledgers = await servers(url, 3);
    const tenant = await ensureTenant(ledgers[0]!.db, "acme");
    for (let i = 0; i < 60; i++) await registerAndEnqueue(ledgers[0]!.db, tenant, 1000, address(`claims:${i}`));
    const taken: JobRow[][] = ledgers.map(() => []);
    // Every server claims as fast as it can, all at once, until the queue is empty.
    await Promise.all(
      ledgers.map(async (l, i) => {
        for (let job = await claimJob(l.db); job; job = await claimJob(l.db)) taken[i]!.push(job);
      }),
    );
    const ids = taken.flat().map((j) => j.id);
    expect(ids.length).toBe(60);
    expect(new Set(ids).size).toBe(60);
    expect(taken.filter((t) => t.length > 0).length).toBeGreaterThan(1); // they really competed
    expect((await ledgers[0]!.db.all(...q<{ attempts: number }>`SELECT attempts FROM sync_jobs`)).every((j) => j.attempts === 1)).toBe(true);
  });

  test("two servers claiming at once share the slots between tenants: a tenant with 20 queued wallets does not take every one", async () => {
    const url = freshDatabase("fair_claims");
    const [a, b] = await servers(url, 2);
    const [big, small] = [await ensureTenant(a!.db, "big"), await ensureTenant(a!.db, "small")];
    for (let i = 0; i < 20; i++) await registerAndEnqueue(a!.db, big, 1000, address(`fair:big:${i}`));
    for (let i = 0; i < 2; i++) await registerAndEnqueue(a!.db, small, 1000, address(`fair:small:${i}`));
    // Two rounds of one claim per server, each round at once (four slots in all).
    const taken: JobRow[] = [];
    for (let round = 0; round < 2; round++) taken.push(...(await Promise.all([claimJob(a!.db), claimJob(b!.db)])).map((j) => j!));
    expect(new Set(taken.map((j) => j.id)).size).toBe(4);
    expect(taken.filter((j) => j.tenant_id === small).length).toBeGreaterThanOrEqual(1);
  });

  test("a tenant's quota holds when two servers register its wallets at once", async () => {
    const url = freshDatabase("quota");
    const [a, b] = await servers(url, 2);
    const tenant = await ensureTenant(a!.db, "acme");
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => registerAndEnqueue((i % 2 ? a : b)!.db, tenant, 5, address(`quota:${i}`))));
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(5);
    expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof QuotaExceeded)).toBe(true);
    expect((await a!.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM tenant_wallets`))!.n).toBe(5);
    expect((await a!.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM sync_jobs`))!.n).toBe(5); // each registration with its job
  });

  test("dirty marks: a mark one server holds is not another's to book; released, or dead with its holder, it is", async () => {
    const url = freshDatabase("marks");
    const [a, b] = await servers(url, 2);
    await loadDemo(a!, new Date("2026-09-20T00:00:00Z"));
    const owners = (await a!.db.all(...q<{ owner: string }>`SELECT owner FROM tenant_wallets ORDER BY owner`)).map((r) => r.owner);
    const held = await a!.db.claimKeys("dirty_wallet", owners, owners.length);
    expect(held.keys).toEqual(owners);
    expect((await b!.db.claimKeys("dirty_wallet", owners, owners.length)).keys).toEqual([]);
    await held.release();
    const again = await b!.db.claimKeys("dirty_wallet", owners, 1);
    expect(again.keys).toEqual([owners[0]!]);
    // Its holder gone (a server killed: its connections closed), the claim is free as soon as
    // PostgreSQL has ended that session, which it does moments after the client hangs up: the
    // test waits for that (5 s at most), and holding on past it fails.
    const holder = (await servers(url, 1))[0]!;
    expect((await holder.db.claimKeys("dirty_wallet", owners, owners.length)).keys).toEqual(owners.slice(1));
    await again.release();
    await holder.close();
    open.delete(holder);
    const deadline = Date.now() + 5_000;
    let freed: string[] = [];
    for (;;) {
      const claim = await a!.db.claimKeys("dirty_wallet", owners, owners.length);
      freed = claim.keys;
      if (freed.length === owners.length || Date.now() > deadline) break;
      await claim.release();
      await Bun.sleep(20);
    }
    expect(freed).toEqual(owners);
  });

  test("two servers re-booking everything at once book every wallet, append nothing twice, and the ledger verifies", async () => {
    const url = freshDatabase("rebook");
    const [a, b] = await servers(url, 2);
    const now = new Date("2026-09-20T00:00:00Z");
    await loadDemo(a!, now);
    const journal = (await a!.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM journal`))!.n;
    await a!.db.write((tx) => markEverythingDirty(tx, now.toISOString()));
    const [x, y] = await Promise.all([bookEverythingDirty(a!.db, now, { walletsPerChunk: 1, mintsPerChunk: 1 }), bookEverythingDirty(b!.db, now, { walletsPerChunk: 1, mintsPerChunk: 1 })]);
    const booked = [...x, ...y].filter((c) => c.kind === "wallets").reduce((n, c) => n + c.booked, 0);
    // At least once each: a mint booked on one server marks its holders again, so a wallet the other
    // server booked just before is booked once more (seen under load); never at once, since the
    // claim is per wallet, and never appending twice (the journal below).
    expect(booked).toBeGreaterThanOrEqual((await a!.db.all(...q`SELECT DISTINCT owner FROM tenant_wallets`)).length);
    expect((await a!.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM journal`))!.n).toBe(journal); // nothing changed: nothing appended
    expect((await verifyLedger(a!.db)).ok).toBe(true);
  });
});
