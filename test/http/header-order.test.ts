// The headers of an answer as they go out on the wire, in order, read from the raw HTTP response
// on a socket (fetch's Headers sorts them): the request id and the dataset label, then the rate
// limit's, after the answer's own (docs/api.md#headers). How the server builds them is its own
// business (docs/performance.md); what the client reads must not move.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { address, registerWallet, seedWallet, startTestServer, type TestServer } from "../harness/index.ts";

let srv: TestServer;
const owner = address("header-order:owner");

beforeAll(async () => {
  srv = await startTestServer({ RATE_LIMIT_PER_MINUTE: "2" });
  await registerWallet(srv.db, "acme", owner, "complete");
  await seedWallet(srv.db, owner, 2);
});
afterAll(async () => {
  await srv?.close();
});

/** The status line and the header names of one raw HTTP/1.1 answer, in the order sent (Bun's own date and content-length left out). */
async function rawHeaders(path: string, key: string | null): Promise<{ status: string; names: string[] }> {
  const { hostname, port } = new URL(srv.url);
  const text = await new Promise<string>((resolve, reject) => {
    let received = "";
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(socket) {
          socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${key ? `authorization: Bearer ${key}\r\n` : ""}connection: close\r\n\r\n`);
        },
        data(_socket, chunk) {
          received += chunk.toString();
        },
        close() {
          resolve(received);
        },
        error(_socket, e) {
          reject(e);
        },
      },
    }).catch(reject);
  });
  const [status, ...lines] = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
  const names = lines.map((l) => l.slice(0, l.indexOf(":")).toLowerCase()).filter((n) => n !== "date" && n !== "content-length");
  return { status: status!, names };
}

const requestHeaders = ["x-request-id", "x-ca-ledger-dataset"];
const rateHeaders = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];

describe("headers on the wire, in order", () => {
  test("a stored answer (the portfolio): its media type, the request's headers, the rate limit's", async () => {
    const { key } = await srv.key();
    expect(await rawHeaders(`/v1/portfolio?owner=${owner}`, key)).toEqual({ status: "HTTP/1.1 200 OK", names: ["content-type", ...requestHeaders, ...rateHeaders] });
  });

  test("a key over its rate limit: retry-after and the rate limit's headers, then the request's", async () => {
    const { key } = await srv.key();
    for (let i = 0; i < 2; i++) expect((await rawHeaders(`/v1/portfolio?owner=${owner}`, key)).status).toBe("HTTP/1.1 200 OK");
    expect(await rawHeaders(`/v1/portfolio?owner=${owner}`, key)).toEqual({ status: "HTTP/1.1 429 Too Many Requests", names: ["content-type", "retry-after", ...rateHeaders, ...requestHeaders] });
  });

  test("a key without the route's scope: the request's headers, then the rate limit's (not counted)", async () => {
    const { key } = await srv.key(["ops:read"]);
    expect(await rawHeaders(`/v1/portfolio?owner=${owner}`, key)).toEqual({ status: "HTTP/1.1 403 Forbidden", names: ["content-type", ...requestHeaders, ...rateHeaders] });
  });

  test("no key: the request's headers only", async () => {
    expect(await rawHeaders(`/v1/portfolio?owner=${owner}`, null)).toEqual({ status: "HTTP/1.1 401 Unauthorized", names: ["content-type", "www-authenticate", ...requestHeaders] });
  });
});
