// Request logs as an operator reads them on the compiled binary's stderr: one JSON line per
// request at info (LOG_REQUESTS on by default), with the route template and never the key, the
// path or the query; LOG_REQUESTS=off (or --log-requests off) leaves only 5xx lines.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { ledgerArgs } from "../support/engine.ts";
import { address } from "../harness/index.ts";
import { baseEnv, runFor, serveBinary, type Served } from "./trust-helpers.ts";

const home = tempDir("cal-reqlog-home-");
const running: Served[] = [];
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  removeTempDirs();
});

interface RequestLine {
  level: string;
  msg: string;
  requestId: string;
  method: string;
  route: string;
  status: number;
  ms: number;
}

/** The request lines the server wrote, parsed (every stderr line must be JSON). */
function requestLines(stderr: string): RequestLine[] {
  return stderr
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === "request");
}

async function waitForLines(s: Served, n: number): Promise<RequestLine[]> {
  // Lines are written after the response: wait for them to arrive (a state, not a duration).
  for (let i = 0; i < 500 && requestLines(s.stderr()).length < n; i++) await Bun.sleep(20);
  return requestLines(s.stderr());
}

async function serveWith(env: Record<string, string>, args: string[] = []): Promise<{ s: Served; key: string }> {
  const dir = join(tempDir("cal-reqlog-"), "ledger");
  const created = cli(["keys", "create", "ops", "--tenant", "acme", "--scopes", "assets:read,ledger:read,ops:read", "--json", ...ledgerArgs(dir)], baseEnv(home));
  expect(created.code).toBe(0);
  const s = await serveBinary([...ledgerArgs(dir), ...args], { ...baseEnv(home, { LOG_LEVEL: "info" }), ...env });
  running.push(s);
  return { s, key: JSON.parse(created.stdout).key };
}

describe("request logs", () => {
  test("on by default: one info line per request, refusals included, with the route template and never the key, path or query", async () => {
    const { s, key } = await serveWith({});
    const owner = address("reqlog:owner");
    const asked = [
      await fetch(`${s.url}/v1/income?owner=${owner}&limit=5`, { headers: { authorization: `Bearer ${key}` } }),
      await fetch(`${s.url}/v1/wallets/${owner}/status`, { headers: { "x-api-key": key } }),
      await fetch(`${s.url}/v1/ops/metrics`, { headers: { authorization: `Bearer ${key}` } }),
      await fetch(`${s.url}/v1/assets`, { headers: { authorization: "Bearer cal_notakeynotakeynotakeynotakeynotakeynotakey1" } }),
      await fetch(`${s.url}/no/such/path?owner=${owner}`),
    ];
    const ids = asked.map((r) => r.headers.get("x-request-id"));
    const lines = await waitForLines(s, ids.length + 1); // + the health checks serveBinary made
    const mine = ids.map((id) => lines.find((l) => l.requestId === id));
    expect(mine.map((l) => l && { level: l.level, method: l.method, route: l.route, status: l.status })).toEqual([
      { level: "info", method: "GET", route: "/v1/income", status: 404 },
      { level: "info", method: "GET", route: "/v1/wallets/:owner/status", status: 404 },
      { level: "info", method: "GET", route: "/v1/ops/metrics", status: 200 },
      { level: "info", method: "GET", route: "/v1/assets", status: 401 },
      { level: "info", method: "GET", route: "unmatched", status: 404 },
    ]);
    for (const l of mine) expect(typeof l!.ms).toBe("number");
    // One line each, and nothing that identifies a key or a wallet anywhere in the log.
    for (const id of ids) expect(lines.filter((l) => l.requestId === id)).toHaveLength(1);
    expect(s.stderr()).not.toContain(key);
    expect(s.stderr()).not.toContain("cal_notakey");
    expect(s.stderr()).not.toContain(owner);
    expect(s.stderr()).not.toContain("/no/such");
  }, 60_000);

  test("LOG_REQUESTS=off, or --log-requests off over LOG_REQUESTS=on: no request lines", async () => {
    for (const [env, args] of [
      [{ LOG_REQUESTS: "off" }, []],
      [{ LOG_REQUESTS: "on" }, ["--log-requests", "off"]],
    ] as const) {
      const { s, key } = await serveWith(env, [...args]);
      const res = await fetch(`${s.url}/v1/assets`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      // The server logs "listening" at info; a request line would follow the answer at once.
      await fetch(`${s.url}/v1/openapi.json`);
      expect(s.stderr()).toContain('"msg":"listening"');
      expect(requestLines(s.stderr())).toEqual([]);
      await s.stop();
      expect(requestLines(s.stderr())).toEqual([]);
    }
  }, 60_000);

  test("a bad LOG_REQUESTS is refused naming the variable", async () => {
    const r = await runFor(["serve", "--port", "0", "--data-dir", join(tempDir(), "d")], { ...baseEnv(home), LOG_REQUESTS: "sometimes" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("LOG_REQUESTS must be on or off");
  });
});
