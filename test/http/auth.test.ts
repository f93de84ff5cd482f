// Keys, scopes, the order of checks, lockout, rate limit and revocation over real HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { createCalendarToken } from "../../src/ledger/calendar.ts";
import { createKey, revokeKey } from "../../src/ledger/keys.ts";
import { routes } from "../../src/http/routes/index.ts";
import {
  address,
  allScopes,
  call,
  insertInstrument,
  mints,
  randomAddress,
  registerWallet,
  schemaErrors,
  seedWallet,
  startTestServer,
  type Answer,
  type Scope,
  type TestServer,
} from "../harness/index.ts";
import { ledgerTarget } from "../support/engine.ts";

function expectError(a: Answer, status: number, code: string, mentions?: string | RegExp) {
  expect({ status: a.status, code: a.body?.code }).toEqual({ status, code });
  expect(schemaErrors(S.ErrorBody, a.body)).toEqual([]);
  expect(schemaErrors((S.errors as Record<number, TSchema>)[status]!, a.body)).toEqual([]);
  if (mentions !== undefined) expect(a.body.error).toMatch(mentions);
}

let srv: TestServer;
const owner = address("auth:owner");
let actionId: string;

beforeAll(async () => {
  srv = await startTestServer();
  await registerWallet(srv.db, "acme", owner);
  actionId = (await seedWallet(srv.db, owner, 3)).actions[0]!.id;
  await insertInstrument(srv.db, mints.NVDAx);
});
afterAll(async () => {
  await srv?.close();
});

/** A request that succeeds on each route for a key holding its scope (keyed by method + template). */
async function sampleRequest(method: string, template: string): Promise<{ path: string; body?: unknown; headers?: Record<string, string>; ok: number }> {
  const samples: Record<string, { path: string | (() => Promise<string>); body?: () => unknown; headers?: Record<string, string>; ok: number }> = {
    "GET /v1/health": { path: "/v1/health", ok: 200 },
    "GET /v1/openapi.json": { path: "/v1/openapi.json", ok: 200 },
    "GET /v1/assets": { path: "/v1/assets", ok: 200 },
    "POST /v1/wallets/sync": { path: "/v1/wallets/sync", body: () => ({ owner: randomAddress() }), ok: 202 },
    "GET /v1/wallets": { path: "/v1/wallets", ok: 200 },
    "GET /v1/wallets/:owner/status": { path: `/v1/wallets/${owner}/status`, ok: 200 },
    // A wallet of its own each time, registered for the keys' tenant.
    "DELETE /v1/wallets/:owner": {
      path: async () => {
        const w = randomAddress();
        await registerWallet(srv.db, "acme", w);
        return `/v1/wallets/${w}`;
      },
      ok: 204,
    },
    "GET /v1/portfolio": { path: `/v1/portfolio?owner=${owner}`, ok: 200 },
    "GET /v1/income": { path: `/v1/income?owner=${owner}`, ok: 200 },
    "GET /v1/income/:id": { path: `/v1/income/${actionId}?owner=${owner}`, ok: 200 },
    "GET /v1/journal": { path: `/v1/journal?owner=${owner}`, ok: 200 },
    "GET /v1/yield": { path: `/v1/yield?owner=${owner}`, ok: 200 },
    "GET /v1/export": { path: `/v1/export?owner=${owner}`, ok: 200 },
    "GET /v1/ops/status": { path: "/v1/ops/status", ok: 200 },
    "GET /v1/ops/metrics": { path: "/v1/ops/metrics", ok: 200 },
    "GET /v2/taxonomy": { path: "/v2/taxonomy", ok: 200 },
    "GET /v2/actions": { path: `/v2/actions?owner=${owner}`, ok: 200 },
    "GET /v2/actions/:id": { path: `/v2/actions/${actionId}?owner=${owner}`, ok: 200 },
    "GET /v2/instruments/:mint/lineage": { path: `/v2/instruments/${mints.NVDAx.mint}/lineage`, ok: 200 },
    "GET /v2/reports/income": { path: `/v2/reports/income?year=2025&owner=${owner}`, ok: 200 },
    "GET /v2/reports/currencies": { path: "/v2/reports/currencies", ok: 200 },
    "GET /v2/lots": { path: `/v2/lots?owner=${owner}`, ok: 200 },
    "GET /v2/reports/gains": { path: `/v2/reports/gains?year=2025&owner=${owner}`, ok: 200 },
    "GET /v2/reports/holdings": { path: `/v2/reports/holdings?asOf=2025-12-31&owner=${owner}`, ok: 200 },
    "GET /v2/calendar": { path: `/v2/calendar?owner=${owner}`, ok: 200 },
    "GET /v2/events": { path: "/v2/events", ok: 200 },
    "GET /v2/calendar/:file": { path: async () => `/v2/calendar/${await createCalendarToken(srv.db, "acme")}.ics`, ok: 200 },
    // Any key may speak the protocol (each tool then needs its route's scope); a ping needs no session.
    "POST /mcp": { path: "/mcp", body: () => ({ jsonrpc: "2.0", id: 1, method: "ping" }), headers: { accept: "application/json, text/event-stream" }, ok: 200 },
  };
  const s = samples[`${method} ${template}`];
  if (!s) throw new Error(`no sample request for ${method} ${template}: add one when a route is added`);
  return { path: typeof s.path === "string" ? s.path : await s.path(), body: s.body?.(), headers: s.headers, ok: s.ok };
}

/** The scope each route needs, from docs/api.md#routes-and-scopes (independent of the route table). */
const specScopes: Record<string, Scope | "key" | null> = {
  "GET /v1/health": null,
  "GET /v1/openapi.json": null,
  "GET /v1/assets": "assets:read",
  "POST /v1/wallets/sync": "wallets:sync",
  "GET /v1/wallets": "ledger:read",
  "GET /v1/wallets/:owner/status": "ledger:read",
  "DELETE /v1/wallets/:owner": "wallets:sync",
  "GET /v1/portfolio": "ledger:read",
  "GET /v1/income": "ledger:read",
  "GET /v1/income/:id": "ledger:read",
  "GET /v1/journal": "ledger:read",
  "GET /v1/yield": "ledger:read",
  "GET /v1/export": "ledger:read",
  "GET /v1/ops/status": "ops:read",
  "GET /v1/ops/metrics": "ops:read",
  "GET /v2/taxonomy": "assets:read",
  "GET /v2/actions": "ledger:read",
  "GET /v2/actions/:id": "ledger:read",
  "GET /v2/instruments/:mint/lineage": "assets:read",
  "GET /v2/reports/income": "ledger:read",
  "GET /v2/reports/currencies": "ledger:read",
  "GET /v2/calendar": "ledger:read",
  "GET /v2/calendar/:file": null,
  "GET /v2/events": "ledger:read",
  "POST /mcp": "key",
  "GET /v2/lots": "ledger:read",
  "GET /v2/reports/gains": "ledger:read",
  "GET /v2/reports/holdings": "ledger:read",
};

describe("scope matrix: every route × every scope", () => {
  test("the declared routes match the interface's routes and scopes", () => {
    expect(Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, r.scope]))).toEqual(specScopes);
  });

  for (const route of routes) {
    test(`${route.method} ${route.path}`, async () => {
      for (const scope of allScopes) {
        const key = (await srv.key([scope])).key;
        const req = await sampleRequest(route.method, route.path);
        const a = await call(srv.url, req.path, { key, method: route.method, body: req.body, headers: req.headers });
        if (route.scope === null || route.scope === "key" || route.scope === scope) {
          expect({ scope, status: a.status }).toEqual({ scope, status: req.ok });
        } else {
          expect({ scope, status: a.status, code: a.body?.code }).toEqual({ scope, status: 403, code: "missing_scope" });
          expectError(a, 403, "missing_scope", route.scope);
          // A refused scope still counts nothing against the ledger and answers before validation.
        }
      }
      // A key with every scope passes; no key is 401 on keyed routes.
      const all = (await srv.key([...allScopes])).key;
      const req = await sampleRequest(route.method, route.path);
      expect((await call(srv.url, req.path, { key: all, method: route.method, body: req.body, headers: req.headers })).status).toBe(req.ok);
      const none = await call(srv.url, req.path, { method: route.method, body: (await sampleRequest(route.method, route.path)).body, headers: req.headers });
      if (route.scope === null) expect(none.status).toBe(req.ok);
      else expectError(none, 401, "missing_api_key");
    });
  }

  test("a new key defaults to assets:read and ledger:read", async () => {
    const k = await createKey(srv.db, { name: "defaults", tenant: "acme" });
    expect(k.scopes).toEqual(["assets:read", "ledger:read"]);
    expect((await call(srv.url, "/v1/assets", { key: k.key })).status).toBe(200);
    expect((await call(srv.url, `/v1/portfolio?owner=${owner}`, { key: k.key })).status).toBe(200);
    expectError(await call(srv.url, "/v1/wallets/sync", { key: k.key, body: { owner: randomAddress() } }), 403, "missing_scope", "wallets:sync");
    expectError(await call(srv.url, "/v1/ops/metrics", { key: k.key }), 403, "missing_scope", "ops:read");
  });

  test("a 403 missing_scope names the scope and the command that makes a key of this tenant with it, in the {error, code} body", async () => {
    const k = await createKey(srv.db, { name: "reader", tenant: "acme" });
    for (const [method, path, body] of [
      ["POST", "/v1/wallets/sync", { owner: randomAddress() }],
      ["DELETE", `/v1/wallets/${owner}`, undefined],
    ] as const) {
      const a = await call(srv.url, path, { key: k.key, method, body });
      expectError(a, 403, "missing_scope");
      expect(Object.keys(a.body).sort()).toEqual(["code", "error"]);
      expect(a.body.error).toBe("This key lacks the scope wallets:sync. An operator makes a key with it: ca-ledger keys create <name> --tenant acme --scopes assets:read,ledger:read,wallets:sync");
    }
    const ops = await call(srv.url, "/v1/ops/status", { key: k.key });
    expect(ops.body.error).toContain("ca-ledger keys create <name> --tenant acme --scopes assets:read,ledger:read,ops:read");
    // The wallet is still registered: the refusal changed nothing.
    expect((await call(srv.url, `/v1/wallets/${owner}/status`, { key: k.key })).status).toBe(200);
  });

  test("a missing_scope answer carries the rate-limit headers but is not counted against the key", async () => {
    const k = await createKey(srv.db, { name: "scope-headers", tenant: "acme" });
    const first = await call(srv.url, "/v1/assets", { key: k.key });
    const remaining = Number(first.headers.get("ratelimit-remaining"));
    const refused = await call(srv.url, "/v1/ops/status", { key: k.key });
    expectError(refused, 403, "missing_scope", "ops:read");
    expect(refused.headers.get("ratelimit-limit")).toBe(first.headers.get("ratelimit-limit"));
    expect(Number(refused.headers.get("ratelimit-remaining"))).toBe(remaining);
    expect(Number((await call(srv.url, "/v1/assets", { key: k.key })).headers.get("ratelimit-remaining"))).toBe(remaining - 1);
  });
});

describe("401: missing, unknown, malformed, revoked", () => {
  test("no key: 401 missing_api_key with www-authenticate: Bearer", async () => {
    for (const headers of [{}, { authorization: "" }, { "x-api-key": "" }, { authorization: "   " }] as Record<string, string>[]) {
      const a = await call(srv.url, "/v1/assets", { headers });
      expectError(a, 401, "missing_api_key");
      expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  test("unknown, malformed and revoked keys all read invalid_api_key with the same body", async () => {
    const revoked = await srv.key(["assets:read"]);
    const other = await openLedger(ledgerTarget(srv.dataDir));
    expect(await revokeKey(other.db, revoked.id)).toBe(true);
    other.close();
    const unknown = "cal_" + "A".repeat(43);
    const candidates: Record<string, string>[] = [
      { authorization: `Bearer ${unknown}` },
      { authorization: "Bearer cal_short" },
      { authorization: "Bearer not-even-a-prefix" },
      { authorization: `Bearer ${revoked.key}` },
      { authorization: `Basic ${btoa("user:pass")}` },
      { authorization: `Token ${revoked.key}` },
      { "x-api-key": unknown },
      { "x-api-key": revoked.key },
      { "x-api-key": revoked.key.slice(0, -1) + "!" },
    ];
    const bodies = new Set<string>();
    for (const headers of candidates) {
      const a = await call(srv.url, "/v1/assets", { headers });
      expectError(a, 401, "invalid_api_key");
      expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
      bodies.add(a.text);
    }
    expect(bodies.size).toBe(1);
  });

  test("the key works in x-api-key as well as authorization: Bearer (any case of 'bearer')", async () => {
    const k = (await srv.key(["assets:read"])).key;
    expect((await call(srv.url, "/v1/assets", { headers: { "x-api-key": k } })).status).toBe(200);
    expect((await call(srv.url, "/v1/assets", { headers: { authorization: `bearer ${k}` } })).status).toBe(200);
  });

  test("when both headers carry a key, authorization wins", async () => {
    const good = (await srv.key(["assets:read"])).key;
    expect((await call(srv.url, "/v1/assets", { headers: { authorization: `Bearer ${good}`, "x-api-key": "cal_bad" } })).status).toBe(200);
    expectError(await call(srv.url, "/v1/assets", { headers: { authorization: "Bearer cal_bad", "x-api-key": good } }), 401, "invalid_api_key");
  });

  test("revocation through the CLI code path on a separate handle takes effect on the next request", async () => {
    const k = await srv.key([...allScopes]);
    expect((await call(srv.url, `/v1/portfolio?owner=${owner}`, { key: k.key })).status).toBe(200);
    const cli = await openLedger(ledgerTarget(srv.dataDir)); // as `ca-ledger keys revoke` does, in its own connection
    try {
      expect(await revokeKey(cli.db, k.id)).toBe(true);
      expect(await revokeKey(cli.db, k.id)).toBe(false); // already revoked
      expect(await revokeKey(cli.db, "key_unknown00000")).toBe(false);
    } finally {
      cli.close();
    }
    for (const path of [`/v1/portfolio?owner=${owner}`, "/v1/assets", "/v1/ops/status"]) {
      expectError(await call(srv.url, path, { key: k.key }), 401, "invalid_api_key");
    }
    expectError(await call(srv.url, "/v1/wallets/sync", { key: k.key, body: { owner: randomAddress() } }), 401, "invalid_api_key");
  });
});

describe("order of checks: lockout, key present, key valid, scope, rate limit, validation, tenant", () => {
  test("key present before validation: no key with bad params is 401, not 400", async () => {
    expectError(await call(srv.url, "/v1/income?owner=bad&limit=0"), 401, "missing_api_key");
    expectError(await call(srv.url, "/v1/wallets/sync", { rawBody: "{not json", headers: { "content-type": "application/json" } }), 401, "missing_api_key");
  });
  test("key valid before scope: an unknown key on an ops route is 401, not 403", async () => {
    expectError(await call(srv.url, "/v1/ops/status", { key: "cal_" + "B".repeat(43) }), 401, "invalid_api_key");
  });
  test("scope before validation: a key without the scope and bad params is 403", async () => {
    const k = (await srv.key(["ops:read"])).key;
    expectError(await call(srv.url, "/v1/income?owner=bad&limit=0", { key: k }), 403, "missing_scope", "ledger:read");
    expectError(await call(srv.url, "/v1/wallets/sync", { key: k, rawBody: "x".repeat(100), headers: { "content-type": "application/json" } }), 403, "missing_scope", "wallets:sync");
  });
  test("scope before body size: an oversized body without the scope is 403", async () => {
    const k = (await srv.key(["ledger:read"])).key;
    expectError(await call(srv.url, "/v1/wallets/sync", { key: k, rawBody: "x".repeat(20_000), headers: { "content-type": "application/json" } }), 403, "missing_scope");
  });
  test("validation before tenant: bad paging on an unregistered wallet is 400, invalid owner is 400", async () => {
    const k = (await srv.key()).key;
    const stranger = address("auth:stranger");
    expectError(await call(srv.url, `/v1/income?owner=${stranger}&limit=0`, { key: k }), 400, "invalid_request", /limit/);
    expectError(await call(srv.url, `/v2/actions?owner=${stranger}&offset=-4`, { key: k }), 400, "invalid_request", /offset/);
    expectError(await call(srv.url, `/v1/export?owner=${stranger}&dataset=nope`, { key: k }), 400, "invalid_request", /dataset/);
    expectError(await call(srv.url, `/v1/portfolio?owner=${stranger}`, { key: k }), 404, "wallet_not_registered");
  });
});

describe("rate limit (RATE_LIMIT_PER_MINUTE=5)", () => {
  let rl: TestServer;
  beforeAll(async () => {
    rl = await startTestServer({ RATE_LIMIT_PER_MINUTE: "5" });
  });
  afterAll(async () => {
    await rl?.close();
  });

  test("headers count down; the 6th request is 429 rate_limited with retry-after; other keys are unaffected", async () => {
    const k = (await rl.key(["assets:read", "ledger:read"])).key;
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = await call(rl.url, "/v1/assets", { key: k });
      expect(a.status).toBe(200);
      expect(a.headers.get("ratelimit-limit")).toBe("5");
      remaining.push(Number(a.headers.get("ratelimit-remaining")));
      const reset = Number(a.headers.get("ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const over = await call(rl.url, "/v1/assets", { key: k });
    expectError(over, 429, "rate_limited", /5/);
    const retry = over.headers.get("retry-after");
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThanOrEqual(1);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    expect(over.headers.get("ratelimit-limit")).toBe("5");
    expect(over.headers.get("ratelimit-remaining")).toBe("0");
    expect(over.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
    // Rate limit before validation: a bad request from the limited key is still 429.
    expectError(await call(rl.url, "/v1/income?owner=bad&limit=0", { key: k }), 429, "rate_limited");
    // Scope before rate limit: a route the key lacks the scope for is 403, not 429.
    expectError(await call(rl.url, "/v1/ops/status", { key: k }), 403, "missing_scope");
    // Unkeyed routes are not limited.
    expect((await call(rl.url, "/v1/health", { key: k })).status).toBe(200);
    // Another key of the same tenant has its own budget.
    const k2 = (await rl.key()).key;
    expect((await call(rl.url, "/v1/assets", { key: k2 })).status).toBe(200);
  });

  test("requests refused for scope do not spend the budget", async () => {
    const k = (await rl.key(["ops:read"])).key;
    for (let i = 0; i < 8; i++) expectError(await call(rl.url, "/v1/assets", { key: k }), 403, "missing_scope");
    for (let i = 0; i < 5; i++) expect((await call(rl.url, "/v1/ops/status", { key: k })).status).toBe(200);
    expectError(await call(rl.url, "/v1/ops/status", { key: k }), 429, "rate_limited");
  });

  test("the rate-limited counter shows in the metrics", async () => {
    const k = (await rl.key(["ops:read"])).key;
    const m = await call(rl.url, "/v1/ops/metrics", { key: k });
    const line = m.text.split("\n").find((l) => l.startsWith("caledger_rate_limited_total "));
    expect(Number(line?.split(" ")[1])).toBeGreaterThanOrEqual(2);
  });
});

describe("lockout (AUTH_FAILURES_PER_MINUTE=3)", () => {
  let lo: TestServer;
  beforeAll(async () => {
    lo = await startTestServer({ AUTH_FAILURES_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await lo?.close();
  });

  test("after 3 failed keys the address is refused, even with a valid key, before any other check", async () => {
    const good = (await lo.key([...allScopes])).key;
    expect((await call(lo.url, "/v1/assets", { key: good })).status).toBe(200);
    // Missing keys and missing scopes are not failed keys.
    for (let i = 0; i < 5; i++) expectError(await call(lo.url, "/v1/assets"), 401, "missing_api_key");
    for (let i = 0; i < 3; i++) expectError(await call(lo.url, "/v1/assets", { key: `cal_${"x".repeat(42)}${i}` }), 401, "invalid_api_key");
    const locked = await call(lo.url, "/v1/assets", { key: good });
    expectError(locked, 429, "auth_locked_out");
    const retry = Number(locked.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Lockout comes first: before key present, key valid, scope and validation.
    expectError(await call(lo.url, "/v1/assets"), 429, "auth_locked_out");
    expectError(await call(lo.url, "/v1/assets", { key: "cal_nope" }), 429, "auth_locked_out");
    expectError(await call(lo.url, "/v1/income?owner=bad&limit=0", { key: good }), 429, "auth_locked_out");
    expectError(await call(lo.url, "/v1/wallets/sync", { key: good, rawBody: "{bad", headers: { "content-type": "application/json" } }), 429, "auth_locked_out");
    // Unkeyed routes still answer.
    expect((await call(lo.url, "/v1/health")).status).toBe(200);
    expect((await call(lo.url, "/v1/openapi.json")).status).toBe(200);
  });
});

describe("lockout behind a trusted proxy (TRUST_PROXY=true) is per client address", () => {
  let px: TestServer;
  beforeAll(async () => {
    px = await startTestServer({ AUTH_FAILURES_PER_MINUTE: "2", TRUST_PROXY: "true" });
  });
  afterAll(async () => {
    await px?.close();
  });

  test("address A locked out, address B still served", async () => {
    const good = (await px.key()).key;
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    for (let i = 0; i < 2; i++) expectError(await call(px.url, "/v1/assets", { key: "cal_bad", headers: from("203.0.113.7") }), 401, "invalid_api_key");
    expectError(await call(px.url, "/v1/assets", { key: good, headers: from("203.0.113.7") }), 429, "auth_locked_out");
    expect((await call(px.url, "/v1/assets", { key: good, headers: from("203.0.113.8") })).status).toBe(200);
    // A spoofed left-hand entry does not escape: the rightmost hop (our proxy's) counts.
    expectError(await call(px.url, "/v1/assets", { key: good, headers: from("198.51.100.1, 203.0.113.7") }), 429, "auth_locked_out");
  });
});
