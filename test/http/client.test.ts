// The TypeScript client against the real server on loopback: every method, ApiError,
// NetworkError, a custom fetch, exportUrl without a request, a same-origin path as baseUrl, and
// the browser bundle. client-package.test.ts runs the packed package under Node.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer as createTcpServer, type Socket } from "node:net";
import { join } from "node:path";
import { ApiError, createClient, NetworkError, schemas } from "../../client/src/index.ts";
import { explain } from "../../web/src/api.ts";
import * as S from "../../schemas/index.ts";
import {
  address,
  allScopes,
  insertInstrument,
  mints,
  randomAddress,
  registerWallet,
  repoRoot,
  schemaErrors,
  seedWallet,
  startTestServer,
  type SeededWallet,
  type TestServer,
} from "../harness/index.ts";

let srv: TestServer;
let key: string;
let seeded: SeededWallet;
const owner = address("client:owner");

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key([...allScopes])).key;
  await registerWallet(srv.db, "acme", owner);
  seeded = await seedWallet(srv.db, owner, 6);
  await insertInstrument(srv.db, mints.NVDAx);
});
afterAll(async () => {
  await srv?.close();
});

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toBeInstanceOf(Error);
    return e as ApiError;
  }
  throw new Error("expected the call to throw ApiError");
}

describe("exports", () => {
  test("schemas is the raw TypeBox schemas namespace", () => {
    expect(schemas.Portfolio).toBe(S.Portfolio);
    expect(schemas.ActionDetail).toBe(S.ActionDetail);
    expect(schemas.errors[404]).toBe(S.errors[404]);
    expect(typeof createClient).toBe("function");
  });
});

describe("every method against the server", () => {
  test("health, assets, wallets, syncStatus, requestSync", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const h = await c.health();
    expect(schemaErrors(S.Health, h)).toEqual([]);
    expect(h.status).toBe("ok");
    expect(schemaErrors(S.AssetsResponse, await c.assets())).toEqual([]);
    const w = randomAddress();
    const r = await c.requestSync(w);
    expect(r).toEqual({ owner: w, registration: "registered", status: "queued", job: "enqueued" });
    expect((await c.requestSync(w)).job).toBe("already_pending");
    const ws = await c.wallets();
    expect(schemaErrors(S.WalletsResponse, ws)).toEqual([]);
    expect(ws.wallets.map((x) => x.owner)).toContain(w);
    const st = await c.syncStatus(w);
    expect(schemaErrors(S.SyncStatusResponse, st)).toEqual([]);
    expect(st.status).toBe("queued");
  });

  test("portfolio, income (paged), incomeEvent, journal (paged), yieldMetrics", async () => {
    const c = createClient({ baseUrl: srv.url + "/", apiKey: key }); // a trailing slash is fine
    expect(schemaErrors(S.Portfolio, await c.portfolio(owner))).toEqual([]);
    const all = await c.income(owner);
    expect(schemaErrors(S.IncomeList, all)).toEqual([]);
    expect(all.total).toBe(5);
    const page = await c.income(owner, { limit: 2, offset: 2 });
    expect(page.entries.map((e) => e.id)).toEqual(all.entries.slice(2, 4).map((e) => e.id));
    expect(page.nextOffset).toBe(4);
    const detail = await c.incomeEvent(owner, all.entries[0]!.id);
    expect(schemaErrors(S.IncomeDetail, detail)).toEqual([]);
    const j = await c.journal(owner, { limit: 1 });
    expect(schemaErrors(S.JournalList, j)).toEqual([]);
    expect(j.entries).toHaveLength(1);
    expect(j.nextOffset).toBe(1);
    expect((await c.journal(owner, { offset: 4 })).entries).toHaveLength(1);
    expect(schemaErrors(S.YieldResponse, await c.yieldMetrics(owner))).toEqual([]);
  });

  test("exportCsv (journal by default, income on request) and exportUrl", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const journal = await c.exportCsv(owner);
    expect(journal.startsWith("dataset,id,owner,actionId")).toBe(true);
    expect(journal.split("\r\n").filter(Boolean)).toHaveLength(6);
    const income = await c.exportCsv(owner, "income");
    expect(income.startsWith("dataset,id,owner,mint")).toBe(true);
    expect(c.exportUrl(owner)).toBe(`${srv.url}/v1/export?owner=${owner}`);
    expect(c.exportUrl(owner, "income")).toBe(`${srv.url}/v1/export?owner=${owner}&dataset=income`);
    // The built URL answers the same CSV.
    const res = await fetch(c.exportUrl(owner, "income"), { headers: { authorization: `Bearer ${key}` } });
    expect(await res.text()).toBe(income);
  });

  test("opsStatus, opsMetrics", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    expect(schemaErrors(S.OpsStatus, await c.opsStatus())).toEqual([]);
    const m = await c.opsMetrics();
    expect(typeof m).toBe("string");
    expect(m).toContain("# TYPE caledger_http_requests_total counter");
  });

  test("v2: actions (paged), action, taxonomy, lineage", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const list = await c.v2.actions(owner);
    expect(schemaErrors(S.ActionsList, list)).toEqual([]);
    expect(list.total).toBe(6);
    const p = await c.v2.actions(owner, { limit: 4, offset: 4 });
    expect(p.actions).toHaveLength(2);
    expect(p.nextOffset).toBeNull();
    const d = await c.v2.action(owner, seeded.actions[1]!.id);
    expect(schemaErrors(S.ActionDetail, d)).toEqual([]);
    expect(d.type).toBe("forward_split");
    const t = await c.v2.taxonomy();
    expect(schemaErrors(S.TaxonomyResponse, t)).toEqual([]);
    expect(t.types).toHaveLength(18);
    const l = await c.v2.lineage(mints.NVDAx.mint);
    expect(schemaErrors(S.LineageResponse, l)).toEqual([]);
  });
});

describe("ApiError", () => {
  test("carries status, message (the body's error) and the parsed body with code", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const unknown = address("client:unknown");
    const e = await rejection(c.portfolio(unknown));
    expect(e.status).toBe(404);
    expect(e.body.code).toBe("wallet_not_registered");
    expect(e.message).toBe(e.body.error);
    expect(schemaErrors(S.errors[404], e.body)).toEqual([]);
    // The documented recovery: register through a sync request, then read.
    await c.requestSync(unknown);
    expect((await c.portfolio(unknown)).positions).toEqual([]);

    const bad = await rejection(c.income(owner, { limit: 0 }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    expect(bad.message).toContain("limit");
    const inv = await rejection(c.portfolio("nope"));
    expect(inv.body.code).toBe("invalid_owner");
    const nf = await rejection(c.v2.action(owner, "act_none"));
    expect([nf.status, nf.body.code]).toEqual([404, "not_found"]);
    const nfi = await rejection(c.incomeEvent(owner, "act_none"));
    expect([nfi.status, nfi.body.code]).toEqual([404, "not_found"]);
    const nfl = await rejection(c.v2.lineage(randomAddress()));
    expect([nfl.status, nfl.body.code]).toEqual([404, "not_found"]);
  });

  test("401 without a key or with a bad one; 403 naming the scope", async () => {
    const none = createClient({ baseUrl: srv.url });
    expect((await none.health()).status).toBe("ok");
    const e1 = await rejection(none.assets());
    expect([e1.status, e1.body.code]).toEqual([401, "missing_api_key"]);
    const e2 = await rejection(createClient({ baseUrl: srv.url, apiKey: "cal_wrong" }).wallets());
    expect([e2.status, e2.body.code]).toEqual([401, "invalid_api_key"]);
    const readOnly = createClient({ baseUrl: srv.url, apiKey: (await srv.key(["ledger:read"])).key });
    const e3 = await rejection(readOnly.requestSync(randomAddress()));
    expect([e3.status, e3.body.code]).toEqual([403, "missing_scope"]);
    expect(e3.message).toContain("wallets:sync");
    const e4 = await rejection(readOnly.opsMetrics());
    expect([e4.status, e4.body.code]).toEqual([403, "missing_scope"]);
    const e5 = await rejection(readOnly.exportCsv(owner, "bogus" as "income"));
    expect([e5.status, e5.body.code]).toEqual([400, "invalid_request"]);
  });

  test("a non-JSON error body still gives an ApiError with status and a message", async () => {
    const c = createClient({ baseUrl: "http://proxy.invalid", fetch: async () => new Response("Bad Gateway", { status: 502 }) });
    const e = await rejection(c.health());
    expect(e.status).toBe(502);
    expect(e.message).toContain("Bad Gateway");
    expect(typeof e.body.code).toBe("string");
  });
});

/** A loopback TCP server that answers each connection with `reply` (raw HTTP), for broken peers. */
async function rawServer(reply: (socket: Socket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createTcpServer((socket) => socket.once("data", () => reply(socket)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function networkRejection(p: Promise<unknown>): Promise<NetworkError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NetworkError);
  expect(e).not.toBeInstanceOf(ApiError);
  return e as NetworkError;
}

describe("NetworkError: no HTTP answer reaches the caller as a typed error", () => {
  test("connection refused: code network_error, the method and URL, the cause kept", async () => {
    const gone = await rawServer(() => {});
    await gone.close(); // nothing listens there now
    const e = await networkRejection(createClient({ baseUrl: gone.url }).portfolio(owner));
    expect(e.code).toBe("network_error");
    expect([e.method, e.url]).toEqual(["GET", `${gone.url}/v1/portfolio?owner=${owner}`]);
    expect(e.cause).toBeInstanceOf(Error);
    expect(e.message).toContain(gone.url);
    expect(e.name).toBe("NetworkError");
  });

  test("an aborted or timed-out request: code aborted", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.abort() }) });
    expect((await networkRejection(c.v2.taxonomy())).code).toBe("aborted");
    const slow = await rawServer(() => {}); // accepts and never answers
    const e = await networkRejection(createClient({ baseUrl: slow.url, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(50) }) }).health());
    expect(e.code).toBe("aborted");
    await slow.close();
  });

  test("a connection lost in the middle of a 2xx body is a NetworkError too", async () => {
    const cut = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"status":');
      setTimeout(() => socket.destroy(), 20);
    });
    const e = await networkRejection(createClient({ baseUrl: cut.url }).health());
    expect(e.code).toBe("network_error");
    await cut.close();
  });

  test("the dashboard tells a person the server cannot be reached", async () => {
    const gone = await rawServer(() => {});
    await gone.close();
    const e = await networkRejection(createClient({ baseUrl: gone.url }).health());
    expect(explain(e)).toBe("The server cannot be reached. Is ca-ledger still running?");
  });

  test("a 2xx that is not JSON (a proxy's page) is an ApiError with code invalid_response", async () => {
    const c = createClient({ baseUrl: "/api", fetch: async () => new Response("<html>captive portal</html>", { status: 200 }) });
    const e = await rejection(c.portfolio(owner));
    expect([e.status, e.code, e.body.code]).toEqual([200, "invalid_response", "invalid_response"]);
    expect(e.message).toContain("/v1/portfolio");
  });
});

describe("custom fetch and a same-origin path as baseUrl", () => {
  test("a custom fetch sees every request: URL, method, bearer header, JSON body", async () => {
    const seen: { url: string; method: string; auth: string | null; body: string | null }[] = [];
    const c = createClient({
      baseUrl: srv.url,
      apiKey: key,
      fetch: async (input, init) => {
        const h = new Headers(init?.headers);
        seen.push({ url: String(input), method: init?.method ?? "GET", auth: h.get("authorization"), body: (init?.body as string) ?? null });
        return fetch(input, init);
      },
    });
    const w = randomAddress();
    await c.requestSync(w);
    await c.syncStatus(w);
    await c.income(owner, { limit: 3, offset: 1 });
    expect(seen).toEqual([
      { url: `${srv.url}/v1/wallets/sync`, method: "POST", auth: `Bearer ${key}`, body: JSON.stringify({ owner: w }) },
      { url: `${srv.url}/v1/wallets/${w}/status`, method: "GET", auth: `Bearer ${key}`, body: null },
      { url: `${srv.url}/v1/income?owner=${owner}&limit=3&offset=1`, method: "GET", auth: `Bearer ${key}`, body: null },
    ]);
  });

  test("baseUrl '/api' builds relative URLs; a proxy fetch that holds the key forwards them", async () => {
    const urls: string[] = [];
    // A browser-side client: no key; the "proxy" adds it and maps /api to the server.
    const c = createClient({
      baseUrl: "/api",
      fetch: async (input, init) => {
        urls.push(String(input));
        expect(new Headers(init?.headers).get("authorization")).toBeNull();
        const target = srv.url + String(input).replace(/^\/api/, "");
        return fetch(target, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` } });
      },
    });
    expect(c.exportUrl(owner, "journal")).toBe(`/api/v1/export?owner=${owner}&dataset=journal`);
    expect(urls).toEqual([]); // exportUrl made no request
    expect((await c.portfolio(owner)).owner).toBe(owner);
    expect((await c.v2.taxonomy()).types).toHaveLength(18);
    const e = await rejection(c.syncStatus(address("client:nobody")));
    expect(e.body.code).toBe("wallet_not_registered");
    expect(urls).toEqual([`/api/v1/portfolio?owner=${owner}`, "/api/v2/taxonomy", `/api/v1/wallets/${address("client:nobody")}/status`]);
  });

  test("path segments and query values are encoded", async () => {
    const urls: string[] = [];
    const c = createClient({
      baseUrl: "/api/",
      fetch: async (input) => {
        urls.push(String(input));
        return Response.json({});
      },
    });
    await c.v2.action("o w", "a/b?c");
    await c.incomeEvent("x&y=z", "#1");
    expect(urls).toEqual(["/api/v2/actions/a%2Fb%3Fc?owner=o%20w", "/api/v1/income/%231?owner=x%26y%3Dz"]);
  });
});

describe("runtimes", () => {
  test("the browser bundle carries no server framework (dependency on TypeBox only)", async () => {
    const r = await Bun.build({ entrypoints: [join(repoRoot, "client/src/index.ts")], target: "browser" });
    expect(r.success).toBe(true);
    const code = await r.outputs[0]!.text();
    // Bun marks each bundled module with a "// node_modules/<package>/..." comment.
    const packages = new Set([...code.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((m) => m[1]));
    expect([...packages].filter((p) => p !== "@sinclair/typebox")).toEqual([]);
    expect(/bun:sqlite|node:fs/.test(code)).toBe(false);
  });
});
