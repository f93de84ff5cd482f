import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { IssuerFetchError, createIssuerClient, type IssuerClientConfig } from "../../src/sources/xstocks/client";
import { attachIsins, canonicalJson, hashIssuerRecord, issuerRecordKey, parseIssuerRecord, toIssuerRevisions } from "../../src/sources/xstocks/records";
import { readFixture } from "../support/chain";
import { testClock } from "../support/clock";
import { loadIssuerFixture, startIssuerServer, type IssuerServer, type IssuerServerOptions } from "../support/issuer-server";

const servers: IssuerServer[] = [];
afterEach(() => {
  while (servers.length) servers.pop()!.stop();
});

function serve(options: IssuerServerOptions = {}, data = loadIssuerFixture()) {
  const server = startIssuerServer(data, options);
  servers.push(server);
  return server;
}

function client(server: IssuerServer, extra: IssuerClientConfig = {}) {
  return createIssuerClient({ baseUrl: server.url, pageSize: 10, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 1000, ...extra });
}

const fixture = loadIssuerFixture();

describe("corporate actions, every page", () => {
  for (const paging of ["page", "cursor", "none"] as const) {
    test(`history and upcoming: every recorded row, in order (${paging} paging)`, async () => {
      const server = serve({ paging });
      const c = client(server);
      const history = await c.corporateActionsHistory();
      expect(history.rejections).toEqual([]);
      expect(history.records).toEqual(fixture.history);
      const upcoming = await c.corporateActionsUpcoming();
      expect(upcoming.records).toEqual(fixture.upcoming);
      if (paging !== "none") expect(history.requests).toBe(Math.ceil(fixture.history.length / 10));
    });
  }

  test("the request form: page from 1 and pageSize", async () => {
    const server = serve();
    await client(server).corporateActionsHistory();
    expect(server.log.slice(0, 2)).toEqual(["/api/v2/public/corporate-actions/history?page=1&pageSize=10", "/api/v2/public/corporate-actions/history?page=2&pageSize=10"]);
  });

  test("a server that ignores paging is read once, not forever", async () => {
    const server = serve({ paging: "none" });
    const { records, requests } = await client(server, { pageSize: 5 }).corporateActionsHistory();
    expect(records).toHaveLength(fixture.history.length);
    expect(requests).toBe(2); // the second answer is identical: stop
  });

  test("more pages than maxPages is an error, never a silent cap", async () => {
    const server = serve();
    const err = await client(server, { maxPages: 3 })
      .corporateActionsHistory()
      .catch((e) => e);
    expect(err).toBeInstanceOf(IssuerFetchError);
    expect(err.message).toContain("more than 3 pages");
  });

  test("a record published mid-sweep (list shifts down a page) is swept again, nothing missed", async () => {
    const server = serve();
    const fresh = { ...fixture.history[0], eventId: "00000000-0000-4000-8000-000000000001", createdTimeUtc: "2026-09-13T18:00:00.000Z" };
    server.onServed = (path, count) => {
      if (count === 2 && path.endsWith("/history")) server.data.history.unshift(fresh);
    };
    const { records } = await client(server).corporateActionsHistory();
    expect(records).toHaveLength(fixture.history.length + 1);
    expect(new Set(records.map(issuerRecordKey))).toEqual(new Set([fresh, ...fixture.history].map(issuerRecordKey)));
  });
});

describe("transport faults", () => {
  test("5xx and 429 bursts (retry-after honoured) and unreadable bodies are retried into the full list", async () => {
    const server = serve();
    server.inject({ fault: { kind: "status", status: 503 }, times: 2 });
    server.inject({ fault: { kind: "status", status: 429, retryAfter: "0" }, times: 2 });
    server.inject({ fault: { kind: "not_json" }, times: 1 });
    server.inject({ fault: { kind: "hang", ms: 600 }, times: 1 });
    const { records } = await client(server, { timeoutMs: 200, maxRetries: 8 }).corporateActionsHistory();
    expect(records).toEqual(fixture.history);
  });

  test("the waits run on the injected clock, as the RPC's do: retry-after in seconds, else backoff", async () => {
    const server = serve();
    server.inject({ fault: { kind: "status", status: 429, retryAfter: "3" }, times: 1 });
    server.inject({ fault: { kind: "status", status: 503 }, times: 1 });
    const clock = testClock();
    const { instruments } = await client(server, { clock, random: () => 1, baseDelayMs: 400, maxDelayMs: 5000 }).assets();
    expect(instruments.length).toBeGreaterThan(0);
    expect(clock.slept).toEqual([3000, 800]); // the server's 3 s, then the second backoff step (400 x 2)
  });

  test("a page that keeps failing fails the fetch with a clear error (a partial list would look complete)", async () => {
    const server = serve();
    server.inject({ fault: { kind: "status", status: 500 }, times: Infinity });
    const err = await client(server, { maxRetries: 2 })
      .corporateActionsHistory()
      .catch((e) => e);
    expect(err).toBeInstanceOf(IssuerFetchError);
    expect(err).toMatchObject({ status: 500, attempts: 3, path: "/public/corporate-actions/history" });
  });

  test("a failure names the API's host and the cause, never the base URL's path or query", async () => {
    const refused = await createIssuerClient({ baseUrl: "http://127.0.0.1:1/api/v2?token=SECRET-TOKEN-77", maxRetries: 0 })
      .assets()
      .catch((e) => e);
    expect(refused.message).toBe("xStocks /public/assets at 127.0.0.1:1: connection refused (ECONNREFUSED), after 1 attempt");
    const server = serve();
    server.inject({ fault: { kind: "status", status: 503 }, times: Infinity });
    const failed = await client(server, { baseUrl: `${server.url}?token=SECRET-TOKEN-77`, maxRetries: 1 })
      .assets()
      .catch((e) => e);
    expect(failed.message).toBe(`xStocks /public/assets at ${new URL(server.url).host}: HTTP 503, after 2 attempts`);
    for (const e of [refused, failed]) expect(`${e.message} ${e.stack} ${JSON.stringify(e)}`).not.toMatch(/SECRET|TypeError/);
  });

  test("a 404 is not retried", async () => {
    const server = serve();
    const err = await client(server)
      .multiplierHistory("NOPEx")
      .catch((e) => e);
    expect(err).toBeInstanceOf(IssuerFetchError);
    expect(server.requests).toBe(1);
  });
});

describe("row validation: good rows pass, bad rows are kept as rejections", () => {
  test("each bad row is rejected on its own, with its payload and a reason naming the field", async () => {
    const data = loadIssuerFixture();
    const n = data.history.length;
    data.history[3].multiplierNew = 1.0273478685368111; // a JSON number: digits may be lost
    data.history[5].version = "2";
    delete data.history[7].netCashflowUsd;
    data.history[9].status = "Pending";
    data.history[11].effectiveTimeUtc = "13/09/2026";
    data.history.push("garbage");
    const server = serve({}, data);
    const { records, rejections } = await client(server).corporateActionsHistory();
    expect(records).toHaveLength(n - 5);
    expect(rejections.map((r) => r.reason)).toEqual([
      "multiplierNew: expected a decimal string or null, got number 1.0273478685368111",
      'version: expected an integer >= 1, got "2"',
      "missing field(s): netCashflowUsd",
      'status: expected one of Initial|Scheduled|Corrected|Cancelled, got "Pending"',
      'effectiveTimeUtc: expected an ISO-8601 UTC time or null, got "13/09/2026"',
      'not an object ("garbage")',
    ]);
    expect(rejections[0]).toMatchObject({ source: "xstocks:/public/corporate-actions/history", payload: data.history[3] });
  });

  test("a record keeps exactly the 19 wire keys (an added issuer field does not change its hash)", () => {
    const row = fixture.history[0];
    const parsed = parseIssuerRecord({ ...row, somethingNew: 1 });
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(Object.keys(parsed.value)).toEqual(Object.keys(row));
      expect(hashIssuerRecord(parsed.value)).toBe(hashIssuerRecord(row));
    }
  });

  test("assets → instruments (Solana deployments), bad rows rejected, ISINs from the records", async () => {
    const data = loadIssuerFixture();
    data.assets.push({ symbol: "ETHONLYx", name: null, underlyingSymbol: "X", deployments: [{ address: "0xabc", network: "Ethereum" }] });
    data.assets.push({ symbol: "BADx", name: null, underlyingSymbol: "X", deployments: [{ address: "not-base58-0OIl", network: "Solana" }] });
    const server = serve({}, data);
    const { instruments, rejections } = await client(server).assets();
    expect(instruments).toHaveLength(fixture.assets.length);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]!.reason).toContain("deployments[0].address");
    const honx = instruments.find((i) => i.symbol === "HONx")!;
    expect(honx).toEqual({ mint: "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2", symbol: "HONx", name: honx.name, underlying: "HON", isin: null, decimals: null });
    const withIsin = attachIsins(instruments, fixture.history);
    expect(withIsin.find((i) => i.symbol === "HONx")!.isin).toMatch(/^[A-Z]{2}[A-Z0-9]{9}\d$/);
  });

  test("multiplier history per symbol (network=Solana), as the issuer publishes it", async () => {
    const server = serve();
    const { points, rejections } = await client(server).multiplierHistory("HONx");
    expect(rejections).toEqual([]);
    expect(server.log[0]).toBe("/api/v2/public/assets/HONx/multiplier/history?network=Solana");
    const recorded = readFixture("xstocks/HONx.json").multiplierHistory;
    expect(points.map((p) => [p.multiplier, p.previousMultiplier, p.activationTime, p.reason])).toEqual(recorded.map((h: any) => [h.multiplier, h.previousMultiplier, h.activationDateTime, h.reason]));
    // Also a bare array answer.
    const bare = serve({ paging: "none" });
    expect((await client(bare).multiplierHistory("HONx")).points).toEqual(points);
  });
});

describe("evidence: canonical JSON, SHA-256, edits without a new version", () => {
  test("the hash is SHA-256 of the RFC 8785 form, independent of key order", () => {
    const record = fixture.history[0];
    const shuffled = Object.fromEntries(Object.entries(record).reverse());
    expect(canonicalJson(shuffled)).toBe(canonicalJson(record));
    expect(canonicalJson({ b: 1, a: [true, null, "é"], "": 0.5 })).toBe('{"":0.5,"a":[true,null,"é"],"b":1}');
    expect(hashIssuerRecord(record)).toBe(createHash("sha256").update(canonicalJson(record)).digest("hex"));
  });

  test("a record edited without a new version is stored again, flagged, never dropped", async () => {
    const server = serve();
    const c = client(server);
    const first = await c.corporateActionsHistory();
    const stored = toIssuerRevisions(first.records, { ingestedAt: "2026-09-13T16:00:00.000Z" });
    expect(stored.revisions).toHaveLength(fixture.history.length);
    expect(stored.revisions.every((r) => !r.edited)).toBe(true);
    const known = new Map<string, Set<string>>();
    for (const r of stored.revisions) known.set(issuerRecordKey(r.record), new Set([...(known.get(issuerRecordKey(r.record)) ?? []), r.sha256]));

    // The issuer quietly changes a cash figure, keeping (eventId, version).
    const target = fixture.history.find((r) => r.netCashflowUsd !== null)!;
    server.editRecord(target.eventId, target.version, { netCashflowUsd: "0.5" });
    const second = await c.corporateActionsHistory();
    const next = toIssuerRevisions(second.records, { ingestedAt: "2026-09-13T17:00:00.000Z", knownHashes: known });
    expect(next.unchanged).toBe(fixture.history.length - 1);
    expect(next.revisions).toHaveLength(1);
    const edit = next.revisions[0]!;
    expect(edit).toMatchObject({ edited: true, ingestedAt: "2026-09-13T17:00:00.000Z" });
    expect(edit.record).toMatchObject({ eventId: target.eventId, version: target.version, netCashflowUsd: "0.5" });
    expect(edit.sha256).not.toBe(hashIssuerRecord(target));

    // Editing it back is not "new" either: that content was stored before.
    server.editRecord(target.eventId, target.version, { netCashflowUsd: target.netCashflowUsd });
    known.get(issuerRecordKey(edit.record))!.add(edit.sha256);
    const third = toIssuerRevisions((await c.corporateActionsHistory()).records, { ingestedAt: "x", knownHashes: known });
    expect(third.revisions).toEqual([]);
  });
});
