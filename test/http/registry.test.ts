// What the registry derives from the route declarations: the matcher auth uses before anything
// is parsed (it agrees with what Elysia registered), a route declared twice refused, and a
// handler that answers for a principal without a request (what an MCP tool will call). And the
// app's hooks leave Elysia to parse only what routes read: no header or cookie objects per request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as S from "../../schemas/index.ts";
import { createApp, routeContext } from "../../src/http/app.ts";
import { createMetrics } from "../../src/http/metrics.ts";
import { routeMatcher, servedRoutes } from "../../src/http/registry.ts";
import { route } from "../../src/http/route.ts";
import { routes } from "../../src/http/routes/index.ts";
import { watchDatabase } from "../../src/ledger/health.ts";
import { keyById } from "../../src/ledger/keys.ts";
import { createLogger } from "../../src/log.ts";
import { address, registerWallet, schemaErrors, seedWallet, startTestServer, type TestServer } from "../harness/index.ts";

let srv: TestServer;
const owner = address("registry:owner");
beforeAll(async () => {
  srv = await startTestServer();
  await registerWallet(srv.db, "acme", owner);
  await seedWallet(srv.db, owner, 3);
});
afterAll(async () => {
  await srv?.close();
});

const match = routeMatcher(servedRoutes(routes));
const matched = (method: string, path: string) => {
  const m = match(method, path);
  return m.kind === "route" ? `${m.served.route.method} ${m.served.route.path}` : m.kind === "method_not_allowed" ? `405 ${m.path} allow ${m.allow.join(",")}` : "none";
};

describe("the matcher", () => {
  test("prefers a path without parameters, ignores one trailing slash, reads HEAD as GET, and knows a path's methods", () => {
    expect(matched("POST", "/v1/wallets/sync")).toBe("POST /v1/wallets/sync");
    expect(matched("DELETE", "/v1/wallets/sync")).toBe("405 /v1/wallets/sync allow POST");
    expect(matched("DELETE", "/v1/wallets/abc")).toBe("DELETE /v1/wallets/:owner");
    expect(matched("GET", "/v1/wallets/abc")).toBe("405 /v1/wallets/:owner allow DELETE");
    expect(matched("GET", "/v1/wallets/abc/status/")).toBe("GET /v1/wallets/:owner/status");
    expect(matched("HEAD", "/v1/portfolio")).toBe("GET /v1/portfolio");
    expect(matched("GET", "/v1/openapi.json/")).toBe("GET /v1/openapi.json");
    expect(matched("GET", "/v1/openapiXjson")).toBe("none");
    for (const p of ["/", "/v1", "/v1//health", "/v1/wallets//", "/v1/wallets/a/b/status", "/v2/instruments/x"]) expect({ p, m: matched("GET", p) }).toEqual({ p, m: "none" });
  });

  test("matches every declared route at its own path, and Elysia registered exactly those", async () => {
    const filled = (path: string) => path.replace(/:[a-z]+/g, "x");
    for (const r of routes) expect(matched(r.method, filled(r.path))).toBe(`${r.method} ${r.path}`);
    const { app } = await createApp({ ledger: srv.ledger, config: srv.config, logger: createLogger("error"), version: "test" });
    const registered = (app.routes as { method: string; path: string }[]).map((r) => `${r.method} ${r.path}`);
    expect(registered.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  test("refuses a route declared twice", () => {
    const again = route({ method: "GET", path: "/v1/health", scope: null, response: { 200: S.OpenApiDocument }, tag: "ops", summary: "again", handler: () => ({}) });
    expect(() => routeMatcher(servedRoutes([...routes, again]))).toThrow("GET /v1/health is declared twice");
  });
});

describe("a handler", () => {
  test("answers for a principal without a request", async () => {
    const key = await srv.key(["ledger:read"]);
    const principal = (await keyById(srv.db)(key.id))!;
    const metrics = createMetrics({ version: "test", engine: "sqlite" });
    const context = await routeContext({ ledger: srv.ledger, config: srv.config, logger: createLogger("error"), version: "test" }, metrics, watchDatabase(srv.ledger));
    const wallets = routes.find((r) => r.method === "GET" && r.path === "/v1/wallets")!;
    const answer = await wallets.handler({ principal, query: undefined, params: undefined, body: undefined }, context);
    expect(schemaErrors(S.WalletsResponse, answer)).toEqual([]);
    expect((answer as { wallets: { owner: string }[] }).wallets.map((w) => w.owner)).toEqual([owner]);
  });
});

describe("the app's hooks", () => {
  test("leave Elysia to parse only what routes read: no headers, cookies, body or query for every request", async () => {
    // Elysia reads each hook's source; a hook that passed its whole context to a function would
    // make it build every request's header and cookie objects.
    const { app } = await createApp({ ledger: srv.ledger, config: srv.config, logger: createLogger("error"), version: "test" });
    const inference = (app as unknown as { inference: Record<string, boolean> }).inference;
    expect({ headers: inference.headers, cookie: inference.cookie, body: inference.body, query: inference.query }).toEqual({ headers: false, cookie: false, body: false, query: false });
  });
});
