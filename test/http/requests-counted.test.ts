// Every answered request is counted, timed and logged (at debug level) once, with its status and
// route template, refusals included: 401, 403, 404, 405, 413, both 429s and the 400 on paging
// numbers are answered before any route runs, and used to go uncounted; a route's own refusals
// and failed validation are counted once. Real app on loopback, real SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { createApp } from "../../src/http/app.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { createLogger } from "../../src/log.ts";
import { call, randomAddress, tempDir, waitFor } from "../harness/index.ts";
import { ledgerTarget, ledgerFlags } from "../support/engine.ts";

const dir = tempDir();
const lines: string[] = [];
let ledger: Ledger;
let app: Awaited<ReturnType<typeof createApp>>["app"];
let url: string;
let key: (scopes: ("assets:read" | "ledger:read" | "wallets:sync" | "ops:read")[]) => Promise<string>;
const secretPath = `/v1/not-a-route/${randomAddress()}`;

beforeAll(async () => {
  ledger = await openLedger(ledgerTarget(dir));
  const config = loadConfig({ ...ledgerFlags(dir) }, { RATE_LIMIT_PER_MINUTE: "3", AUTH_FAILURES_PER_MINUTE: "2", TRUST_PROXY: "true", LOG_LEVEL: "debug" });
  ({ app } = await createApp({ ledger, config, logger: createLogger("debug", (l) => lines.push(l)), version: "test" }));
  app.listen({ port: 0, hostname: "127.0.0.1" });
  url = `http://127.0.0.1:${app.server!.port}`;
  let n = 0;
  key = async (scopes) => (await createKey(ledger.db, { name: `k${++n}`, tenant: "acme", scopes })).key;
});
afterAll(async () => {
  await app.stop(true);
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each client gets its own forwarded address, so the lockout of one never refuses another. */
const from = (ip: string) => ({ "x-forwarded-for": ip });

interface Sent {
  method: string;
  route: string;
  status: number;
}

async function sendAll(): Promise<Sent[]> {
  const sent: Sent[] = [];
  const send = async (method: string, route: string, path: string, opts: Parameters<typeof call>[2]) => {
    const a = await call(url, path, { method, ...opts });
    sent.push({ method, route, status: a.status });
    return a;
  };
  const reader = await key(["assets:read", "ledger:read"]);
  await send("GET", "/v1/health", "/v1/health", {});
  await send("GET", "/v1/assets", "/v1/assets", { key: reader, headers: from("192.0.2.1") });
  await send("GET", "/v1/assets", "/v1/assets", { headers: from("192.0.2.2") }); // 401 missing
  await send("GET", "/v1/assets", "/v1/assets", { key: "cal_wrong", headers: from("192.0.2.3") }); // 401 invalid
  await send("GET", "/v1/ops/status", "/v1/ops/status", { key: reader, headers: from("192.0.2.4") }); // 403
  await send("GET", "unmatched", secretPath, { key: reader, headers: from("192.0.2.5") }); // 404
  await send("POST", "/v1/assets", "/v1/assets", { key: reader, headers: from("192.0.2.6") }); // 405
  await send("POST", "/v1/wallets/sync", "/v1/wallets/sync", { key: await key(["wallets:sync"]), rawBody: "x".repeat(20_000), headers: { ...from("192.0.2.7"), "content-type": "application/json" } }); // 413
  await send("GET", "/v1/income", `/v1/income?owner=${randomAddress()}&limit=0x10`, { key: reader, headers: from("192.0.2.8") }); // 400
  // Refused by the route itself (its owner check, its tenant check) and by Elysia's validation of the query.
  const wallets = await key(["ledger:read"]);
  await send("GET", "/v1/portfolio", "/v1/portfolio?owner=not-a-wallet", { key: wallets, headers: from("192.0.2.15") }); // 400 invalid_owner
  await send("GET", "/v1/portfolio", `/v1/portfolio?owner=${randomAddress()}`, { key: wallets, headers: from("192.0.2.16") }); // 404
  await send("GET", "/v2/actions", `/v2/actions?owner=${randomAddress()}&limit=0`, { key: wallets, headers: from("192.0.2.17") }); // 400 below the minimum
  const limited = await key(["assets:read"]);
  for (let i = 0; i < 4; i++) await send("GET", "/v1/assets", "/v1/assets", { key: limited, headers: from("192.0.2.9") }); // 3 × 200, 429
  for (let i = 0; i < 3; i++) await send("GET", "/v2/taxonomy", "/v2/taxonomy", { key: "cal_guess", headers: from("192.0.2.10") }); // 401, 401, 429
  return sent;
}

let sent: Sent[];
let exposition: string;
beforeAll(async () => {
  sent = await sendAll();
  // Counted as each answer is made: read when every request shows.
  exposition = await waitFor(
    () => metrics("192.0.2.11"),
    (text) => counted(text, sent),
  );
});

/** The metrics, read with a fresh key (each key's rate limit here is 3 a minute). */
const metrics = async (ip: string) => (await call(url, "/v1/ops/metrics", { key: await key(["ops:read"]), headers: from(ip) })).text;

function tally(list: Sent[], by: (s: Sent) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of list) m.set(by(s), (m.get(by(s)) ?? 0) + 1);
  return m;
}

const byStatus = (s: Sent) => `${s.method} ${s.route} ${s.status}`;

/** Every request of `list` counted in `text` (at least; the tests check the exact counts), over `base`. */
const counted = (text: string, list: Sent[], base = "") => [...tally(list, byStatus)].every(([k, n]) => requestCount(text, k) - (base ? requestCount(base, k) : 0) >= n);

/** The value of caledger_http_requests_total for a `method route status` key (0 when absent). */
function requestCount(text: string, k: string): number {
  const [method, route, status] = k.split(" ");
  return Number(text.match(new RegExp(`^caledger_http_requests_total\\{method="${method}",route="${route}",status="${status}"\\} (\\d+)$`, "m"))?.[1] ?? 0);
}

describe("every request counted", () => {
  test("the sample covers every refusal answered before a route runs", () => {
    expect(new Set(sent.map((s) => s.status))).toEqual(new Set([200, 400, 401, 403, 404, 405, 413, 429]));
  });

  test("caledger_http_requests_total has each method × route × status exactly as sent", () => {
    for (const [k, n] of tally(sent, byStatus)) expect({ k, n: requestCount(exposition, k) }).toEqual({ k, n });
  });

  test("the duration histogram counts every request of each route", () => {
    for (const [k, n] of tally(sent, (s) => `${s.method} ${s.route}`)) {
      const [method, route] = k.split(" ");
      const count = exposition.match(new RegExp(`^caledger_http_request_duration_seconds_count\\{method="${method}",route="${route}"\\} (\\d+)$`, "m"))?.[1];
      expect({ k, count }).toEqual({ k, count: String(n) });
    }
  });

  test("the debug log has one line per request with its status and route, never the raw path", async () => {
    // Logged as each answer is made: read when there is a line for each.
    const requestLines = async () => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request" && l.route !== "/v1/ops/metrics");
    const logged = await waitFor(requestLines, (l) => l.length >= sent.length);
    expect(
      tally(
        logged.map((l) => ({ method: l.method, route: l.route, status: l.status })),
        byStatus,
      ),
    ).toEqual(tally(sent, byStatus));
    for (const l of logged) expect(l.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.join("\n")).not.toContain(secretPath.split("/").pop()!);
    expect(exposition).not.toContain("not-a-route");
  });

  test("the dashboard's answers are counted under its fixed labels", async () => {
    const before = (await call(url, "/v1/ops/metrics", { key: await key(["ops:read"]), headers: from("192.0.2.13") })).text;
    const sentNow: Sent[] = [];
    for (const [path, route] of [
      ["/", "/ui"],
      ["/ui/session", "/ui/session"],
      ["/ui/api/v1/assets", "/ui/api"],
      ["/ui/no-such-asset", "/ui"],
    ] as const) {
      const r = await fetch(url + path);
      await r.arrayBuffer();
      sentNow.push({ method: "GET", route, status: r.status });
    }
    const after = await waitFor(
      () => metrics("192.0.2.14"),
      (text) => counted(text, sentNow, before),
    );
    for (const [k, n] of tally(sentNow, byStatus)) expect({ k, n: requestCount(after, k) - requestCount(before, k) }).toEqual({ k, n });
    expect(after).not.toContain("no-such-asset");
  });

  test("a method no route knows is labelled other, not by the client's token", async () => {
    const r = await fetch(`${url}/v1/assets`, { method: "PROPFIND" });
    expect(r.status).toBeGreaterThanOrEqual(400);
    const text = (await call(url, "/v1/ops/metrics", { key: await key(["ops:read"]), headers: from("192.0.2.12") })).text;
    expect(text).not.toContain("PROPFIND");
    expect(text).toMatch(/^caledger_http_requests_total\{method="other",route="\/v1\/assets",status="405"\} 1$/m);
  });
});
