// Tenant isolation: tenant B cannot read, count or infer tenant A's wallets through any route,
// header, error or metric; another tenant's wallet answers exactly like an unknown one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { address, allScopes, call, randomAddress, registerWallet, seedWallet, startTestServer, type Answer, type TestServer } from "../harness/index.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { q } from "../support/sql.ts";

let srv: TestServer;
let keyA: string;
let keyB: string;
let opsB: string;
let actionIdA: string;
const walletA = address("tenancy:a"); // registered by acme only, with ledger rows
const walletB = address("tenancy:b"); // registered by globex only
const unknown = address("tenancy:unknown"); // registered by nobody

beforeAll(async () => {
  srv = await startTestServer();
  keyA = (await srv.key([...allScopes], "acme")).key;
  keyB = (await srv.key([...allScopes], "globex")).key;
  opsB = (await srv.key(["ops:read"], "globex")).key;
  await registerWallet(srv.db, "acme", walletA, "complete");
  // A synced once (its books are visible) and is re-syncing now.
  await srv.db.run(...q`UPDATE sync_jobs SET status = 'running' WHERE owner = ${walletA}`);
  actionIdA = (await seedWallet(srv.db, walletA, 4)).actions[0]!.id;
  await registerWallet(srv.db, "globex", walletB, "complete");
  await seedWallet(srv.db, walletB, 2);
});
afterAll(async () => {
  await srv?.close();
});

const walletRoutes = (w: string) => [
  `/v1/wallets/${w}/status`,
  `/v1/portfolio?owner=${w}`,
  `/v1/income?owner=${w}`,
  `/v1/income/${actionIdA}?owner=${w}`,
  `/v1/journal?owner=${w}`,
  `/v1/yield?owner=${w}`,
  `/v1/export?owner=${w}`,
  `/v1/export?owner=${w}&dataset=income`,
  `/v2/actions?owner=${w}`,
  `/v2/actions/${actionIdA}?owner=${w}`,
  `/v1/income?owner=${w}&limit=3&offset=1`,
];

/** What a response shows apart from its per-request id, date and rate-limit counters. */
function visible(a: Answer) {
  const headers = [...a.headers.entries()].filter(([k]) => !["x-request-id", "date", "ratelimit-remaining", "ratelimit-reset"].includes(k));
  return { status: a.status, text: a.text, headers: Object.fromEntries(headers) };
}

describe("tenant isolation", () => {
  test("tenant A reads its own wallet on every wallet route", async () => {
    for (const path of walletRoutes(walletA)) {
      const a = await call(srv.url, path, { key: keyA });
      expect({ path, status: a.status }).toEqual({ path, status: 200 });
    }
  });

  test("tenant B gets exactly the unknown-wallet answer for A's wallet on every wallet route", async () => {
    for (const [i, path] of walletRoutes(walletA).entries()) {
      const theirs = await call(srv.url, path, { key: keyB });
      const none = await call(srv.url, walletRoutes(unknown)[i]!, { key: keyB });
      expect(theirs.status).toBe(404);
      expect(theirs.body.code).toBe("wallet_not_registered");
      expect(visible(theirs)).toEqual(visible(none));
    }
  });

  test("A's wallet never appears in B's wallet list, and B's quota counts only B", async () => {
    const b = await call(srv.url, "/v1/wallets", { key: keyB });
    expect(b.body.tenant).toBe("globex");
    expect(b.body.wallets.map((w: { owner: string }) => w.owner)).toEqual([walletB]);
    expect(b.text).not.toContain(walletA);
    const a = await call(srv.url, "/v1/wallets", { key: keyA });
    expect(a.text).not.toContain(walletB);
  });

  test("B registering A's wallet reads as a first registration with a fresh job, not A's", async () => {
    const before = (await srv.db.get(...q<{ requested_at: string }>`SELECT requested_at FROM sync_jobs j JOIN tenants t ON t.id = j.tenant_id WHERE t.slug = 'acme' AND owner = ${walletA}`))!;
    await Bun.sleep(5);
    const r = await call(srv.url, "/v1/wallets/sync", { key: keyB, body: { owner: walletA } });
    // A has a running job for this wallet; B must not learn it (no already_registered, no already_pending, no running).
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ owner: walletA, registration: "registered", status: "queued", job: "enqueued" });
    const st = await call(srv.url, `/v1/wallets/${walletA}/status`, { key: keyB });
    expect(st.status).toBe(200);
    expect(st.body.status).toBe("queued");
    expect(st.body.requestedAt).not.toBe(before.requested_at);
    expect(st.body.startedAt).toBeNull();
    expect(st.body.attempts).toBe(0);
    // A's view is unchanged by B's request.
    const stA = await call(srv.url, `/v1/wallets/${walletA}/status`, { key: keyA });
    expect(stA.body.status).toBe("running");
    expect(stA.body.requestedAt).toBe(before.requested_at);
    // A registering the same wallet again sees its own registration, not B's.
    const again = await call(srv.url, "/v1/wallets/sync", { key: keyA, body: { owner: walletA } });
    expect(again.body).toEqual({ owner: walletA, registration: "already_registered", status: "running", job: "already_pending" });
  });

  test("a wallet both tenants registered is readable by both; B's wallet stays hidden from A", async () => {
    expect((await call(srv.url, `/v1/portfolio?owner=${walletA}`, { key: keyB })).status).toBe(200);
    for (const [i, path] of walletRoutes(walletB).entries()) {
      const theirs = await call(srv.url, path, { key: keyA });
      const none = await call(srv.url, walletRoutes(unknown)[i]!, { key: keyA });
      expect(visible(theirs)).toEqual(visible(none));
    }
  });

  test("a quota refusal says nothing about other tenants' wallets", async () => {
    const solo = await startTestServer({ MAX_WALLETS_PER_TENANT: "1" });
    try {
      const k = (await solo.key(["wallets:sync"], "solo")).key;
      await registerWallet(solo.db, "acme", walletA, "complete");
      expect((await call(solo.url, "/v1/wallets/sync", { key: k, body: { owner: randomAddress() } })).status).toBe(202);
      const refusedKnown = await call(solo.url, "/v1/wallets/sync", { key: k, body: { owner: walletA } });
      const refusedUnknown = await call(solo.url, "/v1/wallets/sync", { key: k, body: { owner: randomAddress() } });
      expect(refusedKnown.body.code).toBe("wallet_quota_exceeded");
      expect(visible(refusedKnown)).toEqual(visible(refusedUnknown));
    } finally {
      await solo.close();
    }
  });

  test("ops status and metrics name no tenant, wallet or key", async () => {
    // Generate traffic with owners and keys in paths, queries and headers, including refused ones.
    await call(srv.url, `/v1/wallets/${walletA}/status`, { key: keyB });
    await call(srv.url, `/v1/portfolio?owner=${walletA}`, { key: keyA });
    await call(srv.url, `/v1/nothing/${walletA}`, { key: keyA });
    await call(srv.url, `/v1/assets`, { key: keyA + "x" });
    const status = await call(srv.url, "/v1/ops/status", { key: opsB });
    const metrics = await call(srv.url, "/v1/ops/metrics", { key: opsB });
    expect(status.status).toBe(200);
    expect(metrics.status).toBe(200);
    for (const text of [status.text, metrics.text]) {
      for (const secret of [walletA, walletB, unknown, keyA, keyB, opsB, keyA.slice(0, 12), "acme", "globex", "solo"]) {
        expect(text).not.toContain(secret);
      }
    }
    // Metric labels carry route templates only.
    const routes = new Set([...metrics.text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    for (const r of routes) expect(r).toMatch(/^(\/v[12]\/[a-z/.:_]*|unmatched)$/);
    expect(routes).toContain("/v1/wallets/:owner/status");
  });

  test("an ops:read key reads no ledger data", async () => {
    for (const path of [...walletRoutes(walletB), "/v1/wallets", "/v1/assets", "/v2/taxonomy"]) {
      const a = await call(srv.url, path, { key: opsB });
      expect({ path, status: a.status, code: a.body?.code }).toEqual({ path, status: 403, code: "missing_scope" });
    }
  });
});

describe("instruments found in wallets", () => {
  test("a mint no feed lists is shown only to tenants whose wallets hold or held it, after their own first sync", async () => {
    const s = await startTestServer();
    try {
      const [acme, globex] = [(await s.key(["assets:read"], "acme")).key, (await s.key(["assets:read"], "globex")).key];
      const [walletA, walletB] = [address("found:a"), address("found:b")];
      const [feed, onlyA, onlyB, nobody] = ["found:feed", "found:onlyA", "found:onlyB", "found:nobody"].map(address) as [string, string, string, string];
      await registerWallet(s.db, "acme", walletA, "complete");
      await registerWallet(s.db, "globex", walletB, "complete");
      const named = (mint: string, symbol: string) => ({
        mint,
        symbol,
        name: `${symbol} Corp`,
        underlying: null,
        isin: null,
        decimals: 6,
        source: "token-metadata" as const,
        uri: `https://issuer.example/${symbol}.json`,
      });
      await storeObservations(s.db, {
        instruments: [{ mint: feed, symbol: "FEEDx", name: "Feed xStock", underlying: "FEED", isin: null, decimals: 8 }, named(onlyA, "AONLY"), named(onlyB, "BONLY"), named(nobody, "NOONE")],
        // A's account of its mint is closed (balance 0): held once is enough.
        tokenAccounts: [
          { owner: walletA, tokenAccount: address("found:ata-a"), mint: onlyA, rawBalance: 0n, slot: 10 },
          { owner: walletB, tokenAccount: address("found:ata-b"), mint: onlyB, rawBalance: 5n, slot: 10 },
        ],
      });
      const mintsSeenBy = async (key: string) => ((await call(s.url, "/v1/assets", { key })).body.assets as { mint: string }[]).map((a) => a.mint).sort();
      expect(await mintsSeenBy(acme)).toEqual([feed, onlyA].sort());
      expect(await mintsSeenBy(globex)).toEqual([feed, onlyB].sort());

      // Another tenant's mint reads exactly like a mint nobody holds, and like no mint at all.
      expect((await call(s.url, `/v2/instruments/${onlyA}/lineage`, { key: acme })).status).toBe(200);
      expect((await call(s.url, `/v2/instruments/${feed}/lineage`, { key: globex })).status).toBe(200);
      const theirs = await call(s.url, `/v2/instruments/${onlyA}/lineage`, { key: globex });
      expect(theirs.body.code).toBe("not_found");
      expect(visible(theirs)).toEqual(visible(await call(s.url, `/v2/instruments/${nobody}/lineage`, { key: globex })));
      expect(visible(theirs)).toEqual(visible(await call(s.url, `/v2/instruments/${address("found:unknown")}/lineage`, { key: globex })));

      // Globex registering A's wallet learns nothing until its own first sync of it has finished.
      await registerWallet(s.db, "globex", walletA, "queued");
      expect(await mintsSeenBy(globex)).toEqual([feed, onlyB].sort());
      expect((await call(s.url, `/v2/instruments/${onlyA}/lineage`, { key: globex })).status).toBe(404);
      await s.db.run(...q`UPDATE tenant_wallets SET first_synced_at = ${new Date().toISOString()} WHERE owner = ${walletA} AND tenant_id = (SELECT id FROM tenants WHERE slug = 'globex')`);
      expect(await mintsSeenBy(globex)).toEqual([feed, onlyA, onlyB].sort());
      expect((await call(s.url, `/v2/instruments/${onlyA}/lineage`, { key: globex })).status).toBe(200);
      expect(await mintsSeenBy(acme)).toEqual([feed, onlyA].sort());
    } finally {
      await s.close();
    }
  });
});
