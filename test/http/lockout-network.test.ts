// The auth lockout counts by network over real HTTP: behind a trusted proxy, every spelling of an
// IPv4 address shares one failure budget, an IPv6 /64 shares one, and a forwarded hop that is not
// an address falls back to the proxy's own budget instead of minting a fresh one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, startTestServer, type TestServer } from "../harness/index.ts";

const budget = 3;
let srv: TestServer;
let good: string;
beforeAll(async () => {
  srv = await startTestServer({ AUTH_FAILURES_PER_MINUTE: String(budget), TRUST_PROXY: "true" });
  good = (await srv.key()).key;
});
afterAll(async () => {
  await srv?.close();
});

/** One request through the proxy that appended `hop` to x-forwarded-for. */
const via = (hop: string | null, key: string) => call(srv.url, "/v1/assets", { key, headers: hop === null ? {} : { "x-forwarded-for": `198.51.100.99, ${hop}` } });

async function fail(hops: string[]) {
  for (const hop of hops) expect((await via(hop, "cal_wrong")).body.code).toBe("invalid_api_key");
}

describe("lockout by network, behind TRUST_PROXY", () => {
  test("1.1.1.1 with a port, in brackets and IPv4-mapped is one address", async () => {
    await fail(["1.1.1.1:1234", "[1.1.1.1]", "::ffff:1.1.1.1"]);
    for (const hop of ["1.1.1.1", "[::FFFF:1.1.1.1]:443", "1.1.1.1:80"]) {
      const a = await via(hop, good);
      expect({ hop, status: a.status, code: a.body.code }).toEqual({ hop, status: 429, code: "auth_locked_out" });
    }
    expect((await via("1.1.1.2", good)).status).toBe(200);
  });

  test("an IPv6 /64 shares one budget; the next /64 has its own", async () => {
    await fail(["2001:db8:0:1::1", "2001:DB8:0:1:ffff::2", "[2001:0db8:0000:0001::3]:443"]);
    expect((await via("2001:db8:0:1:abcd:ef01:2345:6789", good)).body.code).toBe("auth_locked_out");
    expect((await via("2001:db8:0:2::1", good)).status).toBe(200);
  });

  test("forwarded garbage counts against the proxy's own address, never a fresh budget", async () => {
    await fail(["not-an-ip-1", "not-an-ip-2", "999.1.1.1"]);
    // The proxy (this test, on loopback) is locked out, whatever it forwards that is not an address.
    expect((await via("not-an-ip-4", good)).body.code).toBe("auth_locked_out");
    expect((await via(null, good)).body.code).toBe("auth_locked_out");
    // A real client address behind the same proxy is its own network.
    expect((await via("203.0.113.5", good)).status).toBe(200);
  });
});
