// DELETE /v1/wallets/{owner} against the real server: 204 and every read of that tenant answers
// 404 at once, a second removal is 404, its quota place is free, its queued job is gone (never
// claimed), another tenant following the same wallet is untouched, the ledger keeps every row;
// the route's refusals (scope, owner, method) and its metrics label; the client's removeWallet.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, createClient } from "../../client/src/index.ts";
import { claimJob } from "../../src/ledger/queue.ts";
import { address, call, registerWallet, seedWallet, startTestServer, type TestServer } from "../harness/index.ts";
import { q, type Statement } from "../support/sql.ts";

let srv: TestServer;
let acme: string, globex: string, reader: string;
const shared = address("remove:shared");

beforeAll(async () => {
  srv = await startTestServer({ MAX_WALLETS_PER_TENANT: "2" });
  acme = (await srv.key(["wallets:sync", "ledger:read", "ops:read"], "acme")).key;
  globex = (await srv.key(["wallets:sync", "ledger:read"], "globex")).key;
  reader = (await srv.key(["ledger:read"], "acme")).key;
  await registerWallet(srv.db, "acme", shared);
  await registerWallet(srv.db, "globex", shared);
  await seedWallet(srv.db, shared, 6);
});
afterAll(async () => {
  await srv?.close();
});

const count = async ([stmt, values]: Statement<{ n: number }>) => (await srv.db.get(stmt, values))!.n;
const del = (owner: string, key: string) => call(srv.url, `/v1/wallets/${owner}`, { key, method: "DELETE" });

describe("DELETE /v1/wallets/{owner}", () => {
  test("204 with no body; the tenant's reads answer 404 at once; the other tenant and every ledger row are untouched", async () => {
    const rows = { journal: await count(q`SELECT count(*) AS n FROM journal WHERE owner = ${shared}`), actions: await count(q`SELECT count(*) AS n FROM actions WHERE owner = ${shared}`) };
    const globexBefore = (await call(srv.url, `/v1/journal?owner=${shared}`, { key: globex })).body;
    expect(rows.journal).toBeGreaterThan(0);
    expect((await call(srv.url, `/v1/income?owner=${shared}`, { key: acme })).status).toBe(200);

    const a = await del(shared, acme);
    expect({ status: a.status, text: a.text }).toEqual({ status: 204, text: "" });
    for (const path of [
      `/v1/wallets/${shared}/status`,
      `/v1/portfolio?owner=${shared}`,
      `/v1/income?owner=${shared}`,
      `/v1/journal?owner=${shared}`,
      `/v1/yield?owner=${shared}`,
      `/v1/export?owner=${shared}`,
      `/v2/actions?owner=${shared}`,
      `/v2/reports/income?year=2025&owner=${shared}`,
    ]) {
      const r = await call(srv.url, path, { key: acme });
      expect({ path, status: r.status, code: r.body?.code }).toEqual({ path, status: 404, code: "wallet_not_registered" });
    }
    expect((await call(srv.url, "/v1/wallets", { key: acme })).body.wallets.map((w: { owner: string }) => w.owner)).not.toContain(shared);
    // The year report across the tenant's wallets no longer covers it.
    expect((await call(srv.url, "/v2/reports/income?year=2025", { key: acme })).body.owners).not.toContain(shared);

    expect((await call(srv.url, `/v1/journal?owner=${shared}`, { key: globex })).body).toEqual(globexBefore);
    expect((await call(srv.url, `/v1/wallets/${shared}/status`, { key: globex })).status).toBe(200);
    expect({ journal: await count(q`SELECT count(*) AS n FROM journal WHERE owner = ${shared}`), actions: await count(q`SELECT count(*) AS n FROM actions WHERE owner = ${shared}`) }).toEqual(rows);
  });

  test("removing a wallet the tenant does not follow is 404 wallet_not_registered, the same bytes whether another tenant follows it or nobody does", async () => {
    const answers = [];
    for (const owner of [shared, address("remove:never")]) {
      const a = await del(owner, acme);
      expect({ status: a.status, code: a.body.code, keys: Object.keys(a.body).sort() }).toEqual({ status: 404, code: "wallet_not_registered", keys: ["code", "error"] });
      answers.push(a.text);
    }
    expect(answers[0]).toBe(answers[1]!);
    expect((await call(srv.url, `/v1/wallets/${shared}/status`, { key: globex })).status).toBe(200); // globex still follows it
  });

  test("its quota place is free at once", async () => {
    const [one, two, three] = [address("remove:q1"), address("remove:q2"), address("remove:q3")];
    expect((await call(srv.url, "/v1/wallets/sync", { key: acme, body: { owner: one } })).status).toBe(202);
    expect((await call(srv.url, "/v1/wallets/sync", { key: acme, body: { owner: two } })).status).toBe(202);
    const full = await call(srv.url, "/v1/wallets/sync", { key: acme, body: { owner: three } });
    expect({ status: full.status, code: full.body.code }).toEqual({ status: 403, code: "wallet_quota_exceeded" });
    expect((await del(one, acme)).status).toBe(204);
    expect((await call(srv.url, "/v1/wallets/sync", { key: acme, body: { owner: three } })).body).toMatchObject({ registration: "registered", job: "enqueued" });
    for (const o of [two, three]) expect((await del(o, acme)).status).toBe(204);
  });

  test("its queued sync is dropped: no claim ever runs it; the other tenant's job stays", async () => {
    const owner = address("remove:queued");
    await call(srv.url, "/v1/wallets/sync", { key: acme, body: { owner } });
    await call(srv.url, "/v1/wallets/sync", { key: globex, body: { owner } });
    expect(await count(q`SELECT count(*) AS n FROM sync_jobs WHERE owner = ${owner}`)).toBe(2);
    expect((await del(owner, acme)).status).toBe(204);
    const jobs = await srv.db.all(...q<{ tenant_id: number }>`SELECT tenant_id FROM sync_jobs WHERE owner = ${owner}`);
    expect(jobs).toHaveLength(1);
    expect((await call(srv.url, `/v1/wallets/${owner}/status`, { key: globex })).body.status).toBe("queued");
    expect((await del(owner, globex)).status).toBe(204);
    // Nothing left to claim for it (far in the future, every schedule would be due).
    for (let job = await claimJob(srv.db, new Date("2100-01-01")); job; job = await claimJob(srv.db, new Date("2100-01-01"))) expect(job.owner).not.toBe(owner);
  });

  test("refusals: a key without wallets:sync is 403 naming the scope and the command; a bad owner is 400; another method is 405 allowing DELETE", async () => {
    const owner = address("remove:refusals");
    await registerWallet(srv.db, "acme", owner);
    const scope = await del(owner, reader);
    expect({ status: scope.status, code: scope.body.code }).toEqual({ status: 403, code: "missing_scope" });
    expect(scope.body.error).toContain("ca-ledger keys create <name> --tenant acme --scopes assets:read,ledger:read,wallets:sync");
    const bad = await del("not-a-wallet", acme);
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: "invalid_owner" });
    for (const method of ["GET", "PUT", "POST"]) {
      const r = await call(srv.url, `/v1/wallets/${owner}`, { key: acme, method });
      expect({ method, status: r.status, code: r.body.code, allow: r.headers.get("allow") }).toEqual({ method, status: 405, code: "method_not_allowed", allow: "DELETE" });
    }
    expect((await call(srv.url, `/v1/wallets/${owner}/status`, { key: acme })).status).toBe(200); // still followed
  });

  test("metrics count it under its route template, never the wallet", async () => {
    const owner = address("remove:metrics");
    await registerWallet(srv.db, "acme", owner);
    expect((await del(owner, acme)).status).toBe(204);
    const text = (await call(srv.url, "/v1/ops/metrics", { key: acme })).text;
    expect(text).toMatch(/caledger_http_requests_total\{method="DELETE",route="\/v1\/wallets\/:owner",status="204"\} \d+/);
    expect(text).not.toContain(owner);
  });

  test("the client: removeWallet resolves on 204 and throws ApiError wallet_not_registered after", async () => {
    const owner = address("remove:client");
    await registerWallet(srv.db, "acme", owner);
    const c = createClient({ baseUrl: srv.url, apiKey: acme });
    expect(await c.removeWallet(owner)).toBeUndefined();
    const e = await c.removeWallet(owner).catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code]).toEqual([404, "wallet_not_registered"]);
    expect((await c.wallets()).wallets.map((w) => w.owner)).not.toContain(owner);
  });
});
