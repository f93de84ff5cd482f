// Hostile input, at scale, against the real server over loopback (issue "Prove it holds", item 2).
// A demo ledger in a temp data dir; thousands of generated requests to every route of the route
// table (and to paths that are not routes) with broken query values, headers and bodies. Every
// answer must come (no hang), never 5xx, and every error must keep the {error, code} contract; nothing
// may be written. Then key guessing at scale, revocation, and tenant inference.
import { getBase58Decoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAddress } from "@solana/kit";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { createKey, ensureTenant, keyPattern } from "../../src/ledger/keys.ts";
import { registerAndEnqueue } from "../../src/ledger/queue.ts";
import { routeMatcher, servedRoutes } from "../../src/http/registry.ts";
import { routes } from "../../src/http/routes/index.ts";
import { dashboardRoutes } from "../../src/http/app.ts";
import { errorProblems, pool, randomKey, rawRequest, send, snapshot, visible, type Outgoing } from "./lib.ts";
import { q } from "../support/sql.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const bunBin = process.execPath;
const highLimits = { LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "100000000", AUTH_FAILURES_PER_MINUTE: "100000000", MINT_POLL_SECONDS: "86400", ISSUER_POLL_SECONDS: "86400" };
const allScopes = ["assets:read", "ledger:read", "wallets:sync", "ops:read"] as const;

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "ca-ledger-hostile-"));
  dirs.push(d);
  return d;
}

async function start(env: Record<string, string>, demo: boolean, dataDir = tempDir()): Promise<ServerHandle & { dataDir: string }> {
  const h = await startServer({ port: "0", host: "127.0.0.1", "data-dir": dataDir }, { demo, quiet: true, offline: true, env });
  return Object.assign(h, { dataDir });
}

/** A valid base58 32-byte address from random bytes (first byte non-zero: 43–44 characters). */
const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
function freshAddress(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  b[0] = b[0]! | 1;
  return base58(b);
}

/**
 * Waits for the state in which the worker's booker has nothing to write: no wallet or mint marked
 * for booking, no scheduled change due. From then on only a request could change the ledger.
 */
async function bookerIdle(db: ServerHandle["ledger"]["db"]): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; await Bun.sleep(20)) {
    const pending = (await db.get(
      ...q<{
        n: number;
      }>`SELECT (SELECT count(*) FROM dirty_wallets) + (SELECT count(*) FROM dirty_mints) + (SELECT count(*) FROM mint_schedule WHERE next_activation_ts IS NOT NULL AND next_activation_ts <= ${Math.floor(Date.now() / 1000)}) AS n`,
    ))!.n;
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`the worker still has ${pending} marks to book after 30 s`);
  }
}

// ---- the main server -------------------------------------------------------------------------

let srv: ServerHandle & { dataDir: string };
let readKey: string; // demo tenant, no wallets:sync: most of the run
let syncKey: string; // demo tenant, all scopes: a slice of the run may register wallets
let otherKey: string; // tenant "other", all scopes (setup and the inference tests only)
let otherReadKey: string; // tenant "other", read scopes: what the fuzz uses as the other tenant
let otherOpsKey: string; // tenant "other", ops:read only
let demoOwners: string[] = [];
let otherWallet: string; // registered by "other" only
let neverRegistered: string; // the fuzz may register this one (demo tenant, sync key)
const nobody = freshAddress(); // nobody ever registers this one
let demoActionId: string;
let demoIncomeId: string;
let demoMint: string;
let before: Record<string, string>;
let demoWalletsBefore: Set<string>;
const syncAccepted = new Set<string>(); // owners the fuzz saw answered 202 for the demo tenant
let fuzzRequests = 0;

beforeAll(async () => {
  srv = await start(highLimits, true);
  const db = srv.ledger.db;
  readKey = (await createKey(db, { name: "fuzz-read", tenant: "demo", scopes: ["assets:read", "ledger:read", "ops:read"] })).key;
  syncKey = (await createKey(db, { name: "fuzz-sync", tenant: "demo", scopes: [...allScopes] })).key;
  otherKey = (await createKey(db, { name: "other-all", tenant: "other", scopes: [...allScopes] })).key;
  otherReadKey = (await createKey(db, { name: "other-read", tenant: "other", scopes: ["assets:read", "ledger:read", "ops:read"] })).key;
  otherOpsKey = (await createKey(db, { name: "other-ops", tenant: "other", scopes: ["ops:read"] })).key;
  demoOwners = (await db.all(...q<{ owner: string }>`SELECT owner FROM tenant_wallets ORDER BY owner`)).map((r) => r.owner);
  otherWallet = freshAddress();
  neverRegistered = freshAddress();
  // The offline demo answers 409 demo_offline for a wallet it has no recording of, so the other
  // tenant's wallet is registered through the queue, as the route would register it.
  const reg = await registerAndEnqueue(db, await ensureTenant(db, "other"), srv.config.maxWallets, otherWallet);
  expect(reg.registration).toBe("registered");
  demoActionId = (await db.get(...q<{ id: string }>`SELECT id FROM actions WHERE owner = ${demoOwners[0]!} ORDER BY effective_at DESC LIMIT 1`))!.id;
  demoIncomeId = (await db.get(...q<{ id: string }>`SELECT id FROM actions WHERE owner = ${demoOwners[0]!} AND v1_kind IS NOT NULL LIMIT 1`))!.id;
  demoMint = (await db.get(...q<{ mint: string }>`SELECT mint FROM instruments LIMIT 1`))!.mint;
  await bookerIdle(db); // the worker's start-up booking writes before the snapshot, never after
  before = await snapshot(db);
  demoWalletsBefore = new Set(demoOwners);
});

afterAll(async () => {
  await srv?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// ---- generators ------------------------------------------------------------------------------

const hostileStrings = [
  "",
  " ",
  "%00",
  "%zz",
  "%",
  "%E0%A4%A",
  "%F0%9F%92%A9",
  "..%2F..%2Fetc%2Fpasswd",
  "../../etc/passwd",
  "%2e%2e%2f",
  "' OR 1=1 --",
  "1; DROP TABLE actions; --",
  '" OR ""="',
  "1' UNION SELECT key_sha256 FROM api_keys --",
  '=HYPERLINK("http://evil.example","x")',
  "+cmd|' /C calc'!A0",
  "-2+3",
  "@SUM(1,1)",
  "\t=1",
  "\r=1",
  "NaN",
  "Infinity",
  "-Infinity",
  "-1",
  "-0",
  "0",
  "1",
  "200",
  "201",
  "1e3",
  "1.5",
  "0x10",
  " 5",
  "9".repeat(40),
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "__proto__",
  "constructor",
  "ünïcödé",
  "日本語",
  "🙂🙃",
  "\u202e",
  "\uFEFF",
  "<script>alert(1)</script>",
  "$" + "{7*7}",
  "{{7*7}}",
  "a".repeat(64),
  "a".repeat(65),
  "A".repeat(3000),
];

function encodeLoose(s: string): string {
  // Half the time percent-encode properly; otherwise keep raw %-tokens so broken escapes reach the server.
  return /^%|%[0-9A-Fa-f]{0,1}$/.test(s) ? s : encodeURIComponent(s);
}

const arbValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
    { weight: 3, arbitrary: fc.constant(null).map(() => pickOwner()) },
    { weight: 2, arbitrary: fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  );

let ownerPick = 0;
function pickOwner(): string {
  const list = [demoOwners[0]!, demoOwners[1] ?? demoOwners[0]!, otherWallet, neverRegistered, freshAddress()];
  return list[ownerPick++ % list.length]!;
}

const arbPathParam = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null).map(() => pickOwner()) },
  { weight: 2, arbitrary: fc.constant(null).map(() => demoActionId) },
  { weight: 1, arbitrary: fc.constant(null).map(() => demoIncomeId) },
  { weight: 1, arbitrary: fc.constant(null).map(() => demoMint) },
  { weight: 3, arbitrary: fc.constantFrom(...hostileStrings).map(encodeLoose) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
);

const arbRoutePath = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom(...routes), arbPathParam, fc.constantFrom("", "", "", "/")).map(([r, p, slash]) => r.path.replace(/:[a-z]+/, p) + slash),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...routes), fc.constantFrom("upper", "double", "extra", "prefix", "dots", "empty")).map(([r, how]) => {
      const p = r.path.replace(/:[a-z]+/, demoOwners[0]!);
      switch (how) {
        case "upper":
          return p.toUpperCase();
        case "double":
          return p.replace("/v", "//v");
        case "extra":
          return p + "/extra";
        case "prefix":
          return "/api" + p;
        case "dots":
          return p.replace(/\/[^/]+$/, "/%2e%2e");
        default:
          return p.replace(/[^/]+$/, "");
      }
    }),
  },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...hostileStrings).map(encodeLoose), { minLength: 0, maxLength: 4 }).map((s) => "/" + s.join("/")) },
);

const arbQuery = fc
  .array(fc.tuple(fc.constantFrom("owner", "owner", "limit", "offset", "dataset", "id", "x", "__proto__", "constructor[prototype]", "owner[]"), arbValue()), { maxLength: 6 })
  .map((pairs) => (pairs.length ? "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeLoose(v)}`).join("&") : ""));

type KeyChoice = "none" | "read" | "sync" | "other" | "random" | "garbage";
const arbKeyChoice = fc.constantFrom<KeyChoice>("read", "read", "read", "read", "read", "read", "none", "random", "garbage", "other", "sync");
const keyOf = (c: KeyChoice): string | null =>
  c === "read" ? readKey : c === "sync" ? syncKey : c === "other" ? otherReadKey : c === "random" ? randomKey() : c === "garbage" ? "cal_" + "x".repeat(42) + "!" : null;

const arbAuthHeaders = fc
  .tuple(arbKeyChoice, fc.constantFrom("bearer", "bearer", "x-api-key", "both", "both-swapped", "lowercase", "basic", "no-scheme", "spaces", "huge", "empty"))
  .map(([choice, form]) => {
    const key = keyOf(choice);
    const h: Record<string, string> = {};
    if (key === null && form !== "empty" && form !== "huge") return h;
    switch (form) {
      case "bearer":
        h.authorization = `Bearer ${key}`;
        break;
      case "x-api-key":
        h["x-api-key"] = key!;
        break;
      case "both":
        h.authorization = `Bearer ${key}`;
        h["x-api-key"] = randomKey();
        break;
      case "both-swapped":
        h.authorization = `Bearer ${randomKey()}`;
        h["x-api-key"] = key!;
        break;
      case "lowercase":
        h.authorization = `bearer ${key}`;
        break;
      case "basic":
        h.authorization = `Basic ${btoa(`${key}:x`)}`;
        break;
      case "no-scheme":
        h.authorization = key!;
        break;
      case "spaces":
        h.authorization = `Bearer    ${key}   `;
        break;
      case "huge":
        h.authorization = `Bearer ${"A".repeat(12_000)}`;
        break;
      case "empty":
        h.authorization = "";
        h["x-api-key"] = "";
        break;
    }
    return { ...h, __choice: choice } as Record<string, string>;
  });

const deep = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
const arbBody = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null).map(() => JSON.stringify({ owner: pickOwner() })) },
  { weight: 2, arbitrary: arbValue().map((v) => JSON.stringify({ owner: v })) },
  { weight: 1, arbitrary: fc.constantFrom("{bad", '{"owner":', "{'owner':'x'}", "", "null", "[]", "1", '"owner"', '{"owner":null}', '{"owner":[1,2]}', '{"owner":{"$ne":1}}') },
  { weight: 1, arbitrary: fc.integer({ min: 16 * 1024 + 1, max: 64 * 1024 }).map((n) => JSON.stringify({ owner: demoOwners[0], pad: "x".repeat(n) })) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5000 }).map((n) => deep(n, "[", "]")) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 2000 }).map((n) => deep(n, '{"a":', "}").replace(/}$/, "1}")) },
  { weight: 1, arbitrary: fc.constant(null).map(() => JSON.stringify({ owner: pickOwner(), extra: "' OR 1=1 --", formula: '=HYPERLINK("http://evil")' })) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
);

const arbContentType = fc.constantFrom(
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "",
  "application/json; charset=latin1",
);

const arbMethod = fc.constantFrom("GET", "GET", "GET", "GET", "GET", "GET", "POST", "POST", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS");

const arbExtraHeaders = fc.record(
  {
    pad: fc.integer({ min: 1, max: 10_000 }),
    forwarded: fc.constantFrom("1.2.3.4", "127.0.0.1, 10.0.0.1", "' OR 1=1 --", "unknown"),
    accept: fc.constantFrom("*/*", "text/csv", "application/xml", "\u00ff"),
    unicode: fc.string({ unit: "grapheme-ascii", maxLength: 50 }),
  },
  { requiredKeys: [] },
);

interface FuzzCase {
  req: Outgoing;
  choice: string;
}

const arbRequest: fc.Arbitrary<FuzzCase> = fc
  .record({
    method: arbMethod,
    path: arbRoutePath,
    query: arbQuery,
    auth: arbAuthHeaders,
    body: fc.option(arbBody, { freq: 2 }),
    ct: arbContentType,
    extra: arbExtraHeaders,
    syncTurn: fc.integer({ min: 0, max: 99 }),
    hugeBody: fc.integer({ min: 16 * 1024 + 1, max: 48 * 1024 }),
  })
  .map(({ method, path, query, auth, body, ct, extra, syncTurn, hugeBody }) => {
    let { __choice, ...headers } = auth as Record<string, string>;
    // One request in twenty is a POST to the sync route with a key that may sync, so bodies reach
    // the parser (a quarter of them over 16 KiB).
    if (syncTurn < 5) {
      method = "POST";
      path = "/v1/wallets/sync";
      headers = { authorization: `Bearer ${syncKey}` };
      __choice = "sync";
      if (syncTurn === 0) body = JSON.stringify({ owner: freshAddress(), pad: "x".repeat(hugeBody) });
    }
    // The demo tenant may register any wallet but the other tenant's: that one must stay unreadable to it.
    if (__choice === "sync" && body) body = body.replaceAll(otherWallet, neverRegistered);
    // Sync-capable keys only register through POST /v1/wallets/sync; elsewhere they are read keys.
    if (extra.pad !== undefined) headers["x-pad"] = "p".repeat(extra.pad);
    if (extra.forwarded !== undefined) headers["x-forwarded-for"] = extra.forwarded;
    if (extra.accept !== undefined) headers.accept = extra.accept;
    if (extra.unicode !== undefined) headers["x-note"] = extra.unicode;
    const hasBody = body !== null && method !== "GET" && method !== "HEAD";
    if (hasBody && ct) headers["content-type"] = ct;
    return { req: { method, path: path + query, headers, body: hasBody ? body! : undefined }, choice: __choice ?? "none" };
  });

/** The ledger:read routes that take a wallet: all but the tenant's list and the ledger-wide currencies of the report. */
const notWalletScoped = new Set(["/v1/wallets", "/v2/reports/currencies"]);
const walletRoutes = routes.filter((r) => r.scope === "ledger:read" && !notWalletScoped.has(r.path));
const matchRoute = routeMatcher(servedRoutes(routes));

/** Bytes of the request line and headers: over Bun's 16 KiB the transport answers 431 itself. */
function headSize(req: Outgoing): number {
  let n = req.method.length + req.path.length + 12;
  for (const [k, v] of Object.entries(req.headers ?? {})) n += k.length + Buffer.byteLength(v) + 4;
  return n;
}

function checkReply(c: FuzzCase, status: number, headers: Headers, text: string): string[] {
  // Bun refuses a head over 16 KiB before any route sees it: that 431 is the transport's, not ours.
  if (status === 431 && headSize(c.req) > 15_000) return [];
  const problems = errorProblems(status, headers, text, c.req.method);
  // The demo tenant's keys never read the other tenant's wallet.
  // fetch normalises the path (e.g. "//v1/health" -> "/v1/health"): judge what the server saw.
  const m = matchRoute(c.req.method, new URL(srv.url + c.req.path).pathname);
  const keyed = m.kind === "route" && m.served.route.scope !== null;
  if (status === 200 && (c.choice === "read" || c.choice === "sync") && m.kind === "route" && walletRoutes.includes(m.served.route)) {
    let owner: unknown = null;
    try {
      owner = JSON.parse(text).owner;
    } catch {
      owner = text.includes(otherWallet) ? otherWallet : null;
    }
    if (owner === otherWallet) problems.push("read another tenant's wallet");
  }
  if (status < 300 && keyed && (c.choice === "random" || c.choice === "garbage" || c.choice === "none")) problems.push("a request without a valid key got in");
  return problems;
}

// ---- tests ------------------------------------------------------------------------------------

describe("hostile requests to every route", () => {
  test("4,000 generated requests: no 5xx, no hang, every error keeps {error, code}", async () => {
    const seen = new Map<number, number>();
    const routesHit = new Set<string>();
    await fc.assert(
      fc.asyncProperty(arbRequest, async (c) => {
        fuzzRequests++;
        const r = await send(srv.url, c.req);
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        const path = c.req.path.split("?")[0]!;
        for (const rt of routes) if (new RegExp("^" + rt.path.replace(/:[a-z]+/g, "[^/]+") + "/?$").test(path)) routesHit.add(rt.path);
        if (r.status === 202 && c.req.method === "POST" && c.choice === "sync") syncAccepted.add(JSON.parse(r.text).owner);
        // A DELETE that removed a demo wallet is undone at once (registering again serves the same
        // books), so the rest of the run still reads the wallets it was set up with.
        if (r.status === 204 && c.req.method === "DELETE") {
          const owner = decodeURIComponent(path.split("/")[3] ?? "");
          const again = await send(srv.url, {
            method: "POST",
            path: "/v1/wallets/sync",
            headers: { authorization: `Bearer ${syncKey}`, "content-type": "application/json" },
            body: JSON.stringify({ owner }),
          });
          if (again.status !== 202) throw new Error(`re-registering ${owner} after its removal answered ${again.status}`);
        }
        const problems = checkReply(c, r.status, r.headers, r.text);
        if (problems.length) throw new Error(`${c.req.method} ${c.req.path.slice(0, 200)} -> ${r.status} ${r.text.slice(0, 200)}: ${problems.join("; ")}`);
      }),
      // Seeded: the same 4,000 requests every run, so a threshold below can never fail by chance.
      { numRuns: 4000, endOnFailure: false, verbose: 1, seed: 20261126 },
    );
    // The run reached every route and produced both successes and a spread of refusals.
    expect([...routesHit].sort()).toEqual([...new Set(routes.map((r) => r.path))].sort());
    // With this seed, about 100 of the 4,000 succeed (most requests carry a hostile part every route
    // refuses: an undeclared or repeated query parameter, a bad key); the bound keeps the success
    // path in the run.
    expect(seen.get(200) ?? 0).toBeGreaterThan(50);
    for (const s of [400, 401, 403, 404, 405, 413]) expect({ status: s, seen: (seen.get(s) ?? 0) > 0 }).toEqual({ status: s, seen: true });
  }, 180_000);

  test("concurrent burst: 400 generated requests 16 at a time, same contract", async () => {
    const cases = fc.sample(arbRequest, { numRuns: 400, seed: 7 });
    const failures: string[] = [];
    await pool(cases, 16, async (c) => {
      fuzzRequests++;
      const r = await send(srv.url, c.req);
      if (r.status === 202 && c.choice === "sync") syncAccepted.add(JSON.parse(r.text).owner);
      const p = checkReply(c, r.status, r.headers, r.text);
      if (p.length) failures.push(`${c.req.method} ${c.req.path.slice(0, 120)} -> ${r.status}: ${p.join("; ")}`);
    });
    expect(failures).toEqual([]);
  }, 120_000);

  test("invalid_request names the refused parameter (docs/api.md#errors)", async () => {
    const bad = fc.constantFrom("0", "-1", "-0", "201", "1.5", "NaN", "abc", "99999999999", "9".repeat(30), "1e10", "-1e3");
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("limit", "offset"), bad, fc.constantFrom("/v1/income", "/v1/journal", "/v2/actions"), async (param, value, route) => {
        if (param === "offset" && ["0", "-0", "201"].includes(value)) return; // valid offsets (0 to 1e9)
        fuzzRequests++;
        const r = await send(srv.url, { method: "GET", path: `${route}?owner=${demoOwners[0]}&${param}=${encodeURIComponent(value)}`, headers: { authorization: `Bearer ${readKey}` } });
        expect(r.status).toBe(400);
        const body = JSON.parse(r.text);
        expect(body.code).toBe("invalid_request");
        expect({ value, error: body.error, names: body.error.includes(param) }).toEqual({ value, error: body.error, names: true });
      }),
      { numRuns: 120 },
    );
  });

  test("headers over Bun's 16 KiB limit are refused by the transport (431), never 5xx, never a hang", async () => {
    for (const size of [17_000, 40_000, 200_000]) {
      fuzzRequests++;
      // send() fails on a hang; how long the answer took is not asserted.
      const r = await send(srv.url, { method: "GET", path: `/v1/portfolio?owner=${demoOwners[0]}`, headers: { authorization: `Bearer ${readKey}`, "x-pad": "p".repeat(size) } });
      expect(r.status).toBe(431);
    }
    // The server still answers afterwards.
    expect((await send(srv.url, { method: "GET", path: "/v1/health" })).status).toBe(200);
  });

  test("chunked bodies over 16 KiB are refused with 413 like sized ones", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 16 * 1024 + 1, max: 256 * 1024 }), fc.boolean(), async (size, validJson) => {
        fuzzRequests++;
        const owner = freshAddress();
        const text = validJson ? JSON.stringify({ owner }) + " ".repeat(size) : "x".repeat(size);
        const bytes = new TextEncoder().encode(text);
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < bytes.length; i += 8192) c.enqueue(bytes.subarray(i, i + 8192));
            c.close();
          },
        });
        const r = await send(srv.url, { method: "POST", path: "/v1/wallets/sync", headers: { authorization: `Bearer ${syncKey}`, "content-type": "application/json" }, body: stream });
        if (r.status === 202) syncAccepted.add(owner); // reported here, not again by the registration check
        expect(errorProblems(r.status, r.headers, r.text, "POST")).toEqual([]);
        expect({ size, status: r.status, body: r.text }).toEqual({ size, status: 413, body: expect.stringContaining("payload_too_large") });
      }),
      { numRuns: 20 },
    );
  }, 30_000);

  test("raw hostile request lines and Host headers: answered, never 5xx, app errors keep {error, code}", async () => {
    const hosts = ["a", "x", "127.0.0.1", "evil.com:99999", "[::1", "a b", "%zz", "user@host", "", "ü", "localhost:0", "-", "host:abc"];
    const targets = [
      "/v1/health",
      `/v1/income?owner=${demoOwners[0]}`,
      "/v1/wallets/%zz/status",
      "/v2/instruments/%/lineage",
      "/v1/he%zzalth",
      "/v1//health",
      `/v2/actions/%00?owner=${demoOwners[0]}`,
    ];
    const arbRaw = fc.record({ host: fc.constantFrom(...hosts), target: fc.constantFrom(...targets), method: fc.constantFrom("GET", "POST", "TRACE", "DELETE"), keyed: fc.boolean() });
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(arbRaw, async ({ host, target, method, keyed }) => {
        fuzzRequests++;
        const auth = keyed ? `authorization: Bearer ${readKey}\r\n` : "";
        const r = await rawRequest(srv.port, `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${auth}Connection: close\r\n\r\n`);
        const fromApp = r.headers.has("x-request-id");
        const problems: string[] = [];
        if (r.timedOut || r.status === 0) problems.push("no answer");
        else if (r.status >= 500) problems.push(`server error ${r.status}: ${r.body.slice(0, 120)}`);
        else if (fromApp) problems.push(...errorProblems(r.status, { get: (n) => r.headers.get(n) ?? null }, r.body, method));
        else if (r.status !== 400) problems.push(`transport answered ${r.status}`); // Bun's parser: bare 400 for unparseable requests
        if (problems.length) failures.push(`${method} ${target} Host: ${JSON.stringify(host)} -> ${problems.join("; ")}`);
      }),
      { numRuns: 150 },
    );
    expect([...new Set(failures)]).toEqual([]);
  }, 30_000);
});

describe("key guessing", () => {
  test("2,000 random well-formed keys never get in (high lockout limit: all invalid_api_key)", async () => {
    const keys = Array.from({ length: 2000 }, randomKey);
    expect(keys.every((k) => keyPattern.test(k))).toBe(true);
    expect(new Set(keys).size).toBe(2000);
    const keyed = routes.filter((r) => r.scope !== null);
    const statuses = await pool(keys, 16, async (k, i) => {
      fuzzRequests++;
      const route = keyed[i % keyed.length]!;
      const path = route.path.replace(/:[a-z]+/, demoOwners[0]!) + (route.path.includes(":owner") ? "" : `?owner=${demoOwners[0]}`);
      const headers: Record<string, string> = i % 2 ? { authorization: `Bearer ${k}` } : { "x-api-key": k };
      const r = await send(srv.url, { method: route.method, path, headers, body: route.method === "POST" ? JSON.stringify({ owner: demoOwners[0] }) : undefined });
      const p = errorProblems(r.status, r.headers, r.text, route.method);
      return p.length ? `problems: ${p.join("; ")}` : `${r.status} ${JSON.parse(r.text).code}`;
    });
    const tally: Record<string, number> = {};
    for (const s of statuses) tally[s] = (tally[s] ?? 0) + 1;
    expect(tally).toEqual({ "401 invalid_api_key": 2000 });
  }, 30_000);

  test("2,000 guesses against AUTH_FAILURES_PER_MINUTE=20 trip the lockout, which then refuses even a valid key", async () => {
    const locked = await start({ ...highLimits, AUTH_FAILURES_PER_MINUTE: "20" }, true);
    try {
      const valid = (await createKey(locked.ledger.db, { name: "valid", tenant: "demo", scopes: ["ledger:read", "assets:read"] })).key;
      const owner = ((await locked.ledger.db.get(...q`SELECT owner FROM tenant_wallets LIMIT 1`)) as { owner: string }).owner;
      expect((await send(locked.url, { method: "GET", path: `/v1/portfolio?owner=${owner}`, headers: { authorization: `Bearer ${valid}` } })).status).toBe(200);
      const keys = Array.from({ length: 2000 }, randomKey);
      const answers = await pool(keys, 16, async (k, i) => {
        const r = await send(locked.url, {
          method: "GET",
          path: `/v1/income?owner=${owner}`,
          // Spoofed forwarding headers must not give each guess a fresh address (TRUST_PROXY is off).
          headers: { authorization: `Bearer ${k}`, "x-forwarded-for": `10.0.${i >> 8}.${i & 255}` },
        });
        const p = errorProblems(r.status, r.headers, r.text);
        if (p.length) return { tag: `problems: ${p.join("; ")}`, retry: 0 };
        return { tag: `${r.status} ${JSON.parse(r.text).code}`, retry: Number(r.headers.get("retry-after") ?? 0) };
      });
      const tally: Record<string, number> = {};
      for (const a of answers) tally[a.tag] = (tally[a.tag] ?? 0) + 1;
      expect(tally).toEqual({ "401 invalid_api_key": 20, "429 auth_locked_out": 1980 });
      for (const a of answers.filter((x) => x.tag.startsWith("429"))) {
        expect(a.retry).toBeGreaterThanOrEqual(1);
        expect(a.retry).toBeLessThanOrEqual(60);
      }
      // Locked out: the valid key is refused too, through either header, and so is no key at all.
      for (const headers of [{ authorization: `Bearer ${valid}` }, { "x-api-key": valid }, {} as Record<string, string>]) {
        const r = await send(locked.url, { method: "GET", path: `/v1/portfolio?owner=${owner}`, headers });
        expect(r.status).toBe(429);
        expect(JSON.parse(r.text)).toEqual({ error: expect.any(String), code: "auth_locked_out" });
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
      // Health needs no key and stays up.
      expect((await send(locked.url, { method: "GET", path: "/v1/health" })).status).toBe(200);
    } finally {
      await locked.stop();
    }
  }, 40_000);

  test("a key revoked with the CLI is refused on the next request", async () => {
    const s = await start(highLimits, true);
    try {
      const owner = ((await s.ledger.db.get(...q`SELECT owner FROM tenant_wallets LIMIT 1`)) as { owner: string }).owner;
      const env = { ...process.env, NO_COLOR: "1" };
      const created = Bun.spawnSync([bunBin, "cli/main.ts", "keys", "create", "soon-revoked", "--tenant", "demo", "--json", "--data-dir", s.dataDir], { cwd: repoRoot, env });
      expect(created.exitCode).toBe(0);
      const k = JSON.parse(created.stdout.toString()) as { id: string; key: string };
      const path = `/v1/income?owner=${owner}`;
      expect((await send(s.url, { method: "GET", path, headers: { authorization: `Bearer ${k.key}` } })).status).toBe(200);
      const revoked = Bun.spawnSync([bunBin, "cli/main.ts", "keys", "revoke", k.id, "--data-dir", s.dataDir], { cwd: repoRoot, env });
      expect(revoked.exitCode).toBe(0);
      for (const headers of [{ authorization: `Bearer ${k.key}` }, { "x-api-key": k.key }] as Record<string, string>[]) {
        const r = await send(s.url, { method: "GET", path, headers });
        expect(r.status).toBe(401);
        expect(JSON.parse(r.text)).toEqual({ error: "The API key is unknown, malformed or revoked.", code: "invalid_api_key" });
      }
      // A revoked key answers exactly like a key nobody issued.
      const unknown = await send(s.url, { method: "GET", path, headers: { authorization: `Bearer ${randomKey()}` } });
      const gone = await send(s.url, { method: "GET", path, headers: { authorization: `Bearer ${k.key}` } });
      expect(visible(gone.status, gone.headers, gone.text)).toEqual(visible(unknown.status, unknown.headers, unknown.text));
      expect(Bun.spawnSync([bunBin, "cli/main.ts", "keys", "revoke", k.id, "--data-dir", s.dataDir], { cwd: repoRoot, env }).exitCode).toBe(1);
    } finally {
      await s.stop();
    }
  }, 30_000);
});

describe("tenant inference", () => {
  const walletPath = (template: string, owner: string, id: string, extra: string) => {
    if (template === "/v1/wallets/:owner/status") return `/v1/wallets/${owner}/status${extra ? "?" + extra : ""}`;
    const base = template.replace(":id", id);
    return `${base}?owner=${owner}${extra ? "&" + extra : ""}`;
  };

  test("another tenant's registered wallet answers byte-for-byte like a never-registered one", async () => {
    const extras = fc.constantFrom(
      "",
      "limit=1",
      "limit=200",
      "limit=0",
      "limit=201",
      "offset=5",
      "offset=-1",
      "dataset=income",
      "dataset=journal",
      "dataset=nope",
      "x=1",
      "limit=abc",
      "owner=" + nobody,
    );
    const ids = fc.constantFrom("income", "action", "random", "%00");
    const keys = fc.constantFrom("other", "other-x-api-key", "read-only-ops");
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...walletRoutes.map((r) => r.path)), fc.constantFrom(...demoOwners), extras, ids, keys, async (template, victim, extra, idKind, keyKind) => {
        const id = idKind === "income" ? demoIncomeId : idKind === "action" ? demoActionId : idKind === "random" ? "act_" + freshAddress() : "%00";
        const headers: Record<string, string> =
          keyKind === "other" ? { authorization: `Bearer ${otherKey}` } : keyKind === "other-x-api-key" ? { "x-api-key": otherKey } : { authorization: `Bearer ${otherOpsKey}` };
        const unknown = freshAddress();
        // Same length class of address, so a length in an error sentence cannot differ either.
        const a = await send(srv.url, { method: "GET", path: walletPath(template, victim, id, extra), headers });
        const b = await send(srv.url, { method: "GET", path: walletPath(template, unknown, id, extra), headers });
        fuzzRequests += 2;
        compared++;
        expect(a.status).toBeGreaterThanOrEqual(400);
        const va = visible(a.status, a.headers, a.text.replaceAll(victim, "<owner>"));
        const vb = visible(b.status, b.headers, b.text.replaceAll(unknown, "<owner>"));
        expect({ path: walletPath(template, "<owner>", id, extra), ...va }).toEqual({ path: walletPath(template, "<owner>", id, extra), ...vb });
      }),
      { numRuns: 300 },
    );
    expect(compared).toBe(300);
  }, 40_000);

  test("the other tenant's lists, ops status and metrics never name the demo tenant's wallets", async () => {
    const texts: string[] = [];
    for (const [path, key] of [
      ["/v1/wallets", otherKey],
      ["/v1/ops/status", otherOpsKey],
      ["/v1/ops/metrics", otherOpsKey],
      ["/v1/assets", otherKey],
      ["/v2/taxonomy", otherKey],
      [`/v2/instruments/${demoMint}/lineage`, otherKey],
      ["/v2/reports/currencies", otherKey],
    ] as const) {
      const r = await send(srv.url, { method: "GET", path, headers: { authorization: `Bearer ${key}` } });
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
      texts.push(r.text, JSON.stringify([...r.headers.entries()]));
    }
    const wallets = JSON.parse(texts[0]!);
    expect(wallets.wallets.map((w: { owner: string }) => w.owner)).toEqual([otherWallet]);
    for (const t of texts) for (const o of [...demoOwners, ...syncAccepted]) expect(t.includes(o)).toBe(false);
    // Metrics labels: route templates only, never a raw path, owner or key.
    const metrics = texts[4]!;
    for (const line of metrics.split("\n").filter((l) => l.startsWith("caledger_http_requests_total{"))) {
      const route = /route="([^"]*)"/.exec(line)?.[1];
      expect(route === "unmatched" || routes.some((r) => r.path === route) || (dashboardRoutes as readonly string[]).includes(route!)).toBe(true);
    }
    expect(metrics.includes(otherWallet)).toBe(false);
    expect(metrics.includes("cal_")).toBe(false);
  });

  test("registering another tenant's wallet reads exactly like registering a fresh one", async () => {
    // In the offline demo both are wallets it has no recording of: the same 409 demo_offline.
    // (The 202 case is in test/http/tenancy.test.ts, on a live ledger.)
    const fresh = freshAddress();
    const headers = { authorization: `Bearer ${syncKey}`, "content-type": "application/json" };
    const victim = otherWallet;
    const a = await send(srv.url, { method: "POST", path: "/v1/wallets/sync", headers, body: JSON.stringify({ owner: victim }) });
    const b = await send(srv.url, { method: "POST", path: "/v1/wallets/sync", headers, body: JSON.stringify({ owner: fresh }) });
    expect([a.status, JSON.parse(a.text).code]).toEqual([409, "demo_offline"]);
    expect(visible(a.status, a.headers, a.text.replace(victim, "<o>"))).toEqual(visible(b.status, b.headers, b.text.replace(fresh, "<o>")));
    const sa = await send(srv.url, { method: "GET", path: `/v1/wallets/${victim}/status`, headers });
    const sb = await send(srv.url, { method: "GET", path: `/v1/wallets/${fresh}/status`, headers });
    const strip = (t: string, o: string) => t.replace(o, "<o>").replace(/"requestedAt":"[^"]+"/, '"requestedAt":"<t>"');
    expect(visible(sa.status, sa.headers, strip(sa.text, victim))).toEqual(visible(sb.status, sb.headers, strip(sb.text, fresh)));
    fuzzRequests += 4;
  });
});

describe("after the run", () => {
  test("at least 3,000 hostile requests were sent", () => {
    expect(fuzzRequests).toBeGreaterThanOrEqual(3000);
  });

  test("nothing was written: every table but sync_jobs, tenant_wallets and api_keys.last_used_at is unchanged", async () => {
    expect(await snapshot(srv.ledger.db)).toEqual(before);
  });

  test("the only wallets registered are valid 32-byte base58 owners answered 202", async () => {
    const db = srv.ledger.db;
    const demo = (await db.all(...q<{ owner: string }>`SELECT w.owner FROM tenant_wallets w JOIN tenants t ON t.id = w.tenant_id WHERE t.slug = 'demo'`)).map((r) => r.owner);
    const added = demo.filter((o) => !demoWalletsBefore.has(o));
    for (const o of added) {
      expect(isAddress(o)).toBe(true);
      expect(syncAccepted.has(o)).toBe(true);
    }
    expect(demo).not.toContain(otherWallet);
    // Every registration has its job; no job exists without a registration.
    const orphans = (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM sync_jobs j WHERE NOT EXISTS (SELECT 1 FROM tenant_wallets w WHERE w.tenant_id = j.tenant_id AND w.owner = j.owner)`))!;
    expect(orphans.n).toBe(0);
    const bad = (await db.all(...q<{ owner: string }>`SELECT owner FROM tenant_wallets`)).filter((r) => !isAddress(r.owner));
    expect(bad).toEqual([]);
  });
});
