// The Host allow-list over real HTTP (docs/api.md#host-names): a page that rebinds its own name to
// the server's address reaches it with that name as Host, and is refused before anything else
// runs, so it can neither read nor spend the operator's failed-key budget; IP addresses,
// localhost and the names in ALLOWED_HOSTS are answered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { call, startTestServer, type TestServer } from "../harness/index.ts";

let srv: TestServer;
let key: string;
let ops: string;
const port = () => new URL(srv.url).port;

beforeAll(async () => {
  srv = await startTestServer({ AUTH_FAILURES_PER_MINUTE: "4", ALLOWED_HOSTS: "ledger.example.com, Books.Example.org." });
  key = (await srv.key()).key;
  ops = (await srv.key(["ops:read"])).key;
});
afterAll(async () => {
  await srv?.close();
});

/** A request as a browser sends it to a page served under `host` (the page's own origin). */
const as = (host: string, path: string, opts: Parameters<typeof call>[2] = {}) => call(srv.url, path, { ...opts, headers: { ...opts.headers, host } });

describe("a rebound host name", () => {
  test("cannot lock the operator out: its junk sign-ins are refused before the lockout counts them", async () => {
    const rebound = `rebind.attacker.example:${port()}`;
    for (let i = 0; i < 4; i++) {
      const a = await as(rebound, "/ui/session", { body: { key: "cal_" + "j".repeat(43) }, headers: { origin: `http://${rebound}` } });
      expect({ i, status: a.status, code: a.body.code }).toEqual({ i, status: 421, code: "host_not_allowed" });
      const b = await as(rebound, "/v1/assets", { key: "cal_" + "k".repeat(43) });
      expect({ i, status: b.status, code: b.body.code }).toEqual({ i, status: 421, code: "host_not_allowed" });
    }
    // The operator, on the server's own address, is not locked out: the API and the dashboard sign-in.
    expect((await call(srv.url, "/v1/assets", { key })).status).toBe(200);
    const signIn = await call(srv.url, "/ui/session", { body: { key }, headers: { origin: new URL(srv.url).origin } });
    expect(signIn.status).toBe(201);
  });

  test("reads nothing, not even what needs no key, and learns nothing from the refusal", async () => {
    for (const path of ["/v1/health", "/v1/openapi.json", "/", "/ui/session", "/v1/nothing-here"]) {
      const a = await as(`evil.example:${port()}`, path);
      expect({ path, status: a.status, body: a.body }).toEqual({ path, status: 421, body: { code: "host_not_allowed", error: expect.stringContaining("ALLOWED_HOSTS") } });
      expect(a.text).not.toContain("version");
    }
    // A key in the refused request changes nothing: no rate budget spent.
    const before = (await call(srv.url, "/v1/assets", { key })).headers.get("ratelimit-remaining");
    await as("evil.example", "/v1/assets", { key });
    const after = (await call(srv.url, "/v1/assets", { key })).headers.get("ratelimit-remaining");
    expect(Number(before) - Number(after)).toBe(1);
  });

  test("is counted in the metrics, under its own counter and as a 421", async () => {
    const count = async () => Number(/^caledger_host_refused_total (\d+)$/m.exec((await call(srv.url, "/v1/ops/metrics", { key: ops })).text)?.[1]);
    const before = await count();
    await as("elsewhere.example", "/v1/health");
    await as("elsewhere.example", "/v1/wallets", { key });
    expect(await count()).toBe(before + 2);
    expect((await call(srv.url, "/v1/ops/metrics", { key: ops })).text).toMatch(/caledger_http_requests_total\{method="GET",route="unmatched",status="421"\} \d+/);
  });
});

describe("the names the server answers to", () => {
  test("IP addresses (any: a load balancer's health check uses the machine's), localhost, and ALLOWED_HOSTS", async () => {
    const p = port();
    const hosts = [
      `127.0.0.1:${p}`,
      "127.0.0.1",
      `localhost:${p}`,
      "LOCALHOST",
      "localhost.",
      `[::1]:${p}`,
      "10.1.2.3:80",
      "[2001:db8::7]",
      `ledger.example.com:${p}`,
      "LEDGER.example.com",
      "books.example.org",
      "books.example.org.:443",
    ];
    for (const host of hosts) {
      const a = await as(host, "/v1/health");
      expect({ host, status: a.status }).toEqual({ host, status: 200 });
    }
    const keyed = await as("ledger.example.com", "/v1/assets", { key });
    expect(keyed.status).toBe(200);
  });

  test("any other name, a subdomain of an allowed one, a name with an allowed one inside, or garbage is refused", async () => {
    for (const host of [
      "sub.ledger.example.com",
      "ledger.example.com.evil.example",
      "example.com",
      "localhost.evil.example",
      "evil.localhost",
      "127.0.0.1.evil.example",
      "a b",
      "[::1",
      "[fe80::1%25eth0]",
    ]) {
      const a = await as(host, "/v1/health");
      expect({ host, status: a.status, code: a.body?.code }).toEqual({ host, status: 421, code: "host_not_allowed" });
    }
  });

  test("ALLOWED_HOSTS takes comma-separated names, in any case, and refuses what is not a host name", () => {
    expect(loadConfig({}, { ALLOWED_HOSTS: " Ledger.Example.com ,books.example.org.,," }).allowedHosts).toEqual(["ledger.example.com", "books.example.org"]);
    expect(loadConfig({ "allowed-hosts": "a.example" }, { ALLOWED_HOSTS: "b.example" }).allowedHosts).toEqual(["a.example"]);
    expect(loadConfig({}, {}).allowedHosts).toEqual([]);
    for (const bad of ["ledger.example.com:4600", "http://ledger.example.com", "*.example.com", "a b", "-x.example", "a..b"]) {
      expect(() => loadConfig({}, { ALLOWED_HOSTS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({}, { ALLOWED_HOSTS: bad })).toThrow(/ALLOWED_HOSTS/);
    }
  });
});
