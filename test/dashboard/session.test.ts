// The dashboard's session and its same-origin path, over real HTTP on a real SQLite file: sign-in
// takes the key once and answers with an HttpOnly cookie; the database keeps only the session
// id's hash; reads through /ui/api/ get exactly the key's scopes, tenant and rate limit; writes
// need the session's CSRF token and the page's own origin; revoking the key, signing out and the
// idle and absolute limits end the session.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { revokeKey } from "../../src/ledger/keys.ts";
import { sha256Hex } from "../../src/domain/evidence.ts";
import { sessionLimits, sessionStore } from "../../src/http/dashboard/sessions.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { address, allScopes, call, randomAddress, registerWallet, seedWallet, startTestServer, tempDir, type Answer, type TestServer } from "../harness/index.ts";
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

let srv: TestServer;
const owner = address("dashboard:owner");
const otherTenantsWallet = address("dashboard:other");

beforeAll(async () => {
  srv = await startTestServer();
  await registerWallet(srv.db, "acme", owner);
  await seedWallet(srv.db, owner, 3);
  await registerWallet(srv.db, "globex", otherTenantsWallet);
  await seedWallet(srv.db, otherTenantsWallet, 2);
});
afterAll(async () => {
  await srv?.close();
});

interface Browser {
  cookie: string;
  csrf: string;
  origin: string;
  answer: Answer;
}

const originOf = (s: TestServer) => new URL(s.url).origin;

/** Signs in as a browser on the dashboard's page would. */
async function signIn(s: TestServer, key: string): Promise<Browser> {
  const origin = originOf(s);
  const answer = await call(s.url, "/ui/session", { body: { key }, headers: { origin } });
  const setCookie = answer.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0]!, csrf: answer.body?.csrfToken, origin, answer };
}

const read = (s: TestServer, b: Browser, path: string) => call(s.url, path, { headers: { cookie: b.cookie } });

describe("sign-in", () => {
  test("a valid key gets a session cookie (HttpOnly, SameSite=Strict, Path=/) and the page learns no key", async () => {
    const k = await srv.key(["ledger:read", "assets:read"]);
    const b = await signIn(srv, k.key);
    expect(b.answer.status).toBe(201);
    const setCookie = b.answer.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^ca_ledger_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(b.answer.body).toEqual({
      signedIn: true,
      tenant: "acme",
      keyId: k.id,
      scopes: ["ledger:read", "assets:read"],
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      idleSeconds: 1800,
    });
    expect(b.answer.text).not.toContain(k.key);
    expect(b.answer.headers.get("cache-control")).toBe("no-store");
  });

  test("the database keeps the session id's SHA-256, never the id or the key", async () => {
    const k = await srv.key();
    const b = await signIn(srv, k.key);
    const id = b.cookie.split("=")[1]!;
    const rows = (await srv.db.all(...q`SELECT * FROM dashboard_sessions WHERE key_id = ${k.id}`)) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_sha256).toBe(sha256Hex(id));
    expect(rows[0]!.csrf_token).toBe(b.csrf);
    const dump = JSON.stringify(await srv.db.all(...q`SELECT * FROM dashboard_sessions`)) + JSON.stringify(await srv.db.all(...q`SELECT * FROM api_keys`));
    expect(dump).not.toContain(id);
    expect(dump).not.toContain(k.key);
  });

  test("signing in again replaces the browser's session", async () => {
    const k = await srv.key();
    const first = await signIn(srv, k.key);
    const again = await call(srv.url, "/ui/session", { body: { key: k.key }, headers: { origin: first.origin, cookie: first.cookie } });
    expect(again.status).toBe(201);
    expect((await read(srv, first, "/ui/api/v1/wallets")).body.code).toBe("session_required");
    expect(await srv.db.get(...q`SELECT count(*) AS n FROM dashboard_sessions WHERE key_id = ${k.id}`)).toEqual({ n: 1 });
  });

  test("the API's own refusals: no key, an unknown key, a revoked key; none opens a session", async () => {
    const before = (await srv.db.get(...q`SELECT count(*) AS n FROM dashboard_sessions`)) as { n: number };
    const revoked = await srv.key();
    await revokeKey(srv.db, revoked.id);
    for (const [key, code] of [
      ["", "missing_api_key"],
      ["cal_" + "x".repeat(43), "invalid_api_key"],
      [revoked.key, "invalid_api_key"],
    ] as const) {
      const b = await signIn(srv, key);
      expect({ status: b.answer.status, code: b.answer.body.code }).toEqual({ status: 401, code });
      expect(b.answer.headers.get("set-cookie")).toBeNull();
    }
    expect(await srv.db.get(...q`SELECT count(*) AS n FROM dashboard_sessions`)).toEqual(before);
  });

  test("a sign-in from another page (no Origin, a foreign Origin, or cross-site) is refused", async () => {
    const k = await srv.key();
    const cases: Record<string, string>[] = [{}, { origin: "http://evil.example" }, { origin: originOf(srv), "sec-fetch-site": "cross-site" }];
    for (const headers of cases) {
      const a = await call(srv.url, "/ui/session", { body: { key: k.key }, headers });
      expect({ status: a.status, code: a.body.code }).toEqual({ status: 403, code: "csrf_refused" });
    }
  });

  test("a bad body is a clear 400; an oversized one a 413", async () => {
    const origin = originOf(srv);
    expect((await call(srv.url, "/ui/session", { rawBody: "{bad", headers: { origin, "content-type": "application/json" } })).body.code).toBe("invalid_request");
    expect((await call(srv.url, "/ui/session", { rawBody: "key=x", headers: { origin, "content-type": "application/x-www-form-urlencoded" } })).body.code).toBe("invalid_request");
    expect((await call(srv.url, "/ui/session", { body: { key: "x".repeat(2000) }, headers: { origin } })).status).toBe(413);
  });

  test("failed sign-ins count toward the address's lockout, which then refuses even a valid key", async () => {
    const locked = await startTestServer({ AUTH_FAILURES_PER_MINUTE: "2" });
    try {
      const k = await locked.key();
      for (let i = 0; i < 2; i++) expect((await signIn(locked, "cal_" + "y".repeat(43))).answer.status).toBe(401);
      const b = await signIn(locked, k.key);
      expect({ status: b.answer.status, code: b.answer.body.code }).toEqual({ status: 429, code: "auth_locked_out" });
    } finally {
      await locked.close();
    }
  });
});

describe("sign-ins are bounded", () => {
  const sessionsOf = async (s: TestServer, keyId: string) => ((await s.db.get(...q`SELECT count(*) AS n FROM dashboard_sessions WHERE key_id = ${keyId}`)) as { n: number }).n;

  test("a sign-in counts against the key's rate limit: past it, 429 rate_limited and no session opened", async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: "5" });
    try {
      const k = await limited.key();
      for (let i = 1; i <= 5; i++) {
        const b = await signIn(limited, k.key);
        expect({ i, status: b.answer.status, remaining: b.answer.headers.get("ratelimit-remaining") }).toEqual({ i, status: 201, remaining: String(5 - i) });
      }
      const over = await signIn(limited, k.key);
      expect({ status: over.answer.status, code: over.answer.body.code, cookie: over.answer.headers.get("set-cookie") }).toEqual({ status: 429, code: "rate_limited", cookie: null });
      expect(over.answer.headers.get("retry-after")).toMatch(/^[0-9]+$/);
      expect(await sessionsOf(limited, k.id)).toBe(5);
      // The key's API budget is the same one: spent.
      expect((await call(limited.url, "/v1/wallets", { key: k.key })).body.code).toBe("rate_limited");
      const metrics = await call(limited.url, "/v1/ops/metrics", { key: (await limited.key(["ops:read"])).key });
      expect(metrics.text).toContain("caledger_rate_limited_total 2");
    } finally {
      await limited.close();
    }
  });

  test("a key keeps at most 20 live sessions: 25 sign-ins leave 20 rows, the newest live", async () => {
    const k = await srv.key();
    const browsers: Browser[] = [];
    for (let i = 0; i < 25; i++) browsers.push(await signIn(srv, k.key));
    expect(browsers.every((b) => b.answer.status === 201)).toBe(true);
    expect(await sessionsOf(srv, k.id)).toBe(sessionLimits.perKey);
    expect(sessionLimits.perKey).toBe(20);
    expect((await read(srv, browsers[24]!, "/ui/api/v1/wallets")).status).toBe(200);
    const live = await Promise.all(browsers.map(async (b) => (await read(srv, b, "/ui/session")).body.signedIn));
    expect(live.filter(Boolean)).toHaveLength(20);
  });

  test("the 21st session of a key ends the oldest; another key's sessions are untouched", async () => {
    const ledger = await openLedger(ledgerTarget(tempDir()));
    try {
      const principalOf = async (name: string) => {
        const key = await createKey(ledger.db, { name, tenant: "acme", scopes: [...allScopes] });
        return { keyId: key.id, tenantId: 1, tenant: "acme", scopes: [...allScopes] };
      };
      const [one, other] = [await principalOf("one"), await principalOf("other")];
      const store = sessionStore(ledger.db);
      const t0 = Date.parse("2026-06-01T00:00:00Z");
      const at = (seconds: number) => new Date(t0 + seconds * 1000);
      const theirs = (await store.open(other, at(0))).id;
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await store.open(one, at(i))).id);
      expect((await Promise.all(ids.map((id) => store.find(id, at(20))))).every((found) => found !== null)).toBe(true);
      const newest = (await store.open(one, at(20))).id;
      expect(await store.find(ids[0]!, at(21))).toBeNull();
      for (const id of [...ids.slice(1), newest, theirs]) expect(await store.find(id, at(21))).not.toBeNull();
    } finally {
      await ledger.close();
    }
  });
});

describe("GET /ui/session", () => {
  test("says who is signed in, or that nobody is (and clears a dead cookie)", async () => {
    const k = await srv.key();
    const b = await signIn(srv, k.key);
    expect((await read(srv, b, "/ui/session")).body).toMatchObject({ signedIn: true, keyId: k.id, csrfToken: b.csrf });
    const none = await call(srv.url, "/ui/session");
    expect(none.body).toEqual({ signedIn: false, ended: false });
    const dead = await call(srv.url, "/ui/session", { headers: { cookie: "ca_ledger_session=" + "a".repeat(43) } });
    expect(dead.body).toEqual({ signedIn: false, ended: true });
    expect(dead.headers.get("set-cookie")).toContain("Max-Age=0");
  });
});

describe("/ui/api/: the API as the session's key", () => {
  test("answers exactly what the API answers the key itself", async () => {
    const k = await srv.key();
    const b = await signIn(srv, k.key);
    for (const path of ["/v1/wallets", `/v1/portfolio?owner=${owner}`, `/v2/actions?owner=${owner}&limit=2`, "/v1/assets", `/v1/export?owner=${owner}&dataset=income`]) {
      const viaSession = await read(srv, b, "/ui/api" + path);
      const direct = await call(srv.url, path, { key: k.key });
      expect({ path, status: viaSession.status }).toEqual({ path, status: 200 });
      // asOf is the time of the answer; everything else is the same.
      const strip = (t: string) => t.replace(/"asOf":"[^"]+"/, "").replace(/-\d{4}-\d{2}-\d{2}\.csv/, "");
      expect(strip(viaSession.text)).toBe(strip(direct.text));
      expect(viaSession.headers.get("ratelimit-limit")).toBe(direct.headers.get("ratelimit-limit"));
      expect(viaSession.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
  });

  test("with the key's scopes and tenant: a missing scope is the API's 403, another tenant's wallet reads as unregistered", async () => {
    const reader = await signIn(srv, (await srv.key(["assets:read"])).key);
    const a = await read(srv, reader, `/ui/api/v1/portfolio?owner=${owner}`);
    expect({ status: a.status, code: a.body.code }).toEqual({ status: 403, code: "missing_scope" });
    const b = await signIn(srv, (await srv.key()).key);
    const other = await read(srv, b, `/ui/api/v1/portfolio?owner=${otherTenantsWallet}`);
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 404, code: "wallet_not_registered" });
  });

  test("without a session: 401 session_required, even with a valid key in a header", async () => {
    const k = await srv.key();
    const a = await call(srv.url, "/ui/api/v1/wallets", { key: k.key, headers: { "x-api-key": k.key } });
    expect({ status: a.status, code: a.body.code }).toEqual({ status: 401, code: "session_required" });
  });

  test("only /ui/api/v1/ and /ui/api/v2/ forward; other paths are the dashboard's 404", async () => {
    const b = await signIn(srv, (await srv.key()).key);
    for (const path of ["/ui/api", "/ui/api/", "/ui/api/ui/session", "/ui/api/v3/actions", "/ui/nope"]) {
      const a = await read(srv, b, path);
      expect({ path, status: a.status, code: a.body.code }).toEqual({ path, status: 404, code: "route_not_found" });
    }
  });

  test("counts against the key's rate limit like any request of the key", async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const k = await limited.key();
      await registerWallet(limited.db, "acme", owner);
      const b = await signIn(limited, k.key); // the sign-in is the key's first request of the minute
      expect((await call(limited.url, "/v1/wallets", { key: k.key })).status).toBe(200);
      expect((await read(limited, b, "/ui/api/v1/wallets")).status).toBe(200);
      const over = await read(limited, b, "/ui/api/v1/wallets");
      expect({ status: over.status, code: over.body.code }).toEqual({ status: 429, code: "rate_limited" });
    } finally {
      await limited.close();
    }
  });
});

describe("writes need the page's origin and the session's CSRF token", () => {
  const registered = async (o: string) => ((await srv.db.get(...q`SELECT count(*) AS n FROM tenant_wallets WHERE owner = ${o}`)) as { n: number }).n;

  test("a POST without the token, with a wrong one or from another origin is refused and registers nothing", async () => {
    const b = await signIn(srv, (await srv.key()).key);
    const wallet = randomAddress();
    const cases: Record<string, string>[] = [
      { origin: b.origin },
      { origin: b.origin, "x-csrf-token": "z".repeat(43) },
      { "x-csrf-token": b.csrf },
      { origin: "http://evil.example", "x-csrf-token": b.csrf },
    ];
    for (const headers of cases) {
      const a = await call(srv.url, "/ui/api/v1/wallets/sync", { body: { owner: wallet }, headers: { cookie: b.cookie, ...headers } });
      expect({ status: a.status, code: a.body.code }).toEqual({ status: 403, code: "csrf_refused" });
    }
    expect(await registered(wallet)).toBe(0);
  });

  test("with both it registers, through the API's own route and scope check", async () => {
    const b = await signIn(srv, (await srv.key()).key);
    const wallet = randomAddress();
    const headers = { cookie: b.cookie, origin: b.origin, "x-csrf-token": b.csrf };
    const a = await call(srv.url, "/ui/api/v1/wallets/sync", { body: { owner: wallet }, headers });
    expect({ status: a.status, body: a.body }).toEqual({ status: 202, body: { owner: wallet, registration: "registered", status: "queued", job: "enqueued" } });
    expect(await registered(wallet)).toBe(1);
    const bad = await call(srv.url, "/ui/api/v1/wallets/sync", { body: { owner: "not-an-address" }, headers });
    expect(bad.body.code).toBe("invalid_owner");

    const reader = await signIn(srv, (await srv.key(["ledger:read"])).key);
    const refused = await call(srv.url, "/ui/api/v1/wallets/sync", { body: { owner: randomAddress() }, headers: { cookie: reader.cookie, origin: reader.origin, "x-csrf-token": reader.csrf } });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: "missing_scope" });
  });
});

describe("the session ends", async () => {
  test("when its key is revoked: at the next request, and its row is gone", async () => {
    const k = await srv.key();
    const b = await signIn(srv, k.key);
    expect((await read(srv, b, "/ui/api/v1/wallets")).status).toBe(200);
    await revokeKey(srv.db, k.id);
    const a = await read(srv, b, "/ui/api/v1/wallets");
    expect({ status: a.status, code: a.body.code }).toEqual({ status: 401, code: "session_required" });
    expect(a.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(await srv.db.get(...q`SELECT count(*) AS n FROM dashboard_sessions WHERE key_id = ${k.id}`)).toEqual({ n: 0 });
  });

  test("on sign-out (which itself needs the token), and the old cookie is then worthless", async () => {
    const b = await signIn(srv, (await srv.key()).key);
    const refused = await call(srv.url, "/ui/session", { method: "DELETE", headers: { cookie: b.cookie, origin: b.origin } });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: "csrf_refused" });
    expect((await read(srv, b, "/ui/api/v1/wallets")).status).toBe(200);
    const out = await call(srv.url, "/ui/session", { method: "DELETE", headers: { cookie: b.cookie, origin: b.origin, "x-csrf-token": b.csrf } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^ca_ledger_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expect((await read(srv, b, "/ui/api/v1/wallets")).body.code).toBe("session_required");
  });

  test("after 30 idle minutes, and 12 hours after sign-in however busy", async () => {
    const ledger = await openLedger(ledgerTarget(tempDir()));
    try {
      const key = await createKey(ledger.db, { name: "t", tenant: "acme", scopes: [...allScopes] });
      const principal = { keyId: key.id, tenantId: 1, tenant: "acme", scopes: [...allScopes] };
      const store = sessionStore(ledger.db);
      const t0 = Date.parse("2026-06-01T00:00:00Z");
      const at = (minutes: number) => new Date(t0 + minutes * 60_000);
      const idle = (await store.open(principal, at(0))).id;
      expect(await store.find(idle, at(29))).not.toBeNull();
      expect(await store.find(idle, at(29 + 29))).not.toBeNull(); // each request moves the idle clock
      expect(await store.find(idle, at(29 + 29 + 31))).toBeNull();
      expect(await store.find(idle, at(29 + 29 + 1))).toBeNull(); // gone for good

      const busy = (await store.open(principal, at(0))).id;
      for (let m = 20; m < sessionLimits.absoluteSeconds / 60; m += 20) expect({ m, live: (await store.find(busy, at(m))) !== null }).toEqual({ m, live: true });
      expect(await store.find(busy, at(sessionLimits.absoluteSeconds / 60))).toBeNull();
    } finally {
      await ledger.close();
    }
  });
});
