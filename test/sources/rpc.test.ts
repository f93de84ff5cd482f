import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createRpc, RpcError, RpcTransportError, type RpcConfig, type RpcOutcome } from "../../src/sources/solana/rpc";
import { decodeMintAccount } from "../../src/sources/solana/decode";
import { TOKEN_2022_PROGRAM_ID } from "../../src/sources/solana/wire";
import { XSTOCKS_AUTHORITY, encodeTokenAccount, readFixture } from "../support/chain";
import { testClock } from "../support/clock";
import { addTransaction, base64ToBytes, emptyChain, startRpcServer, type RpcServer } from "../support/rpc-server";

const HONX = readFixture("chain/mint-HONx.json");
const UPDATE = readFixture("chain/tx-update-multiplier-0.json");
const TRANSFER = readFixture("chain/tx-transfer-KOx.json");
const OWNER = "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy";

let server: RpcServer;
let outcomes: [string, RpcOutcome][];

function seed() {
  const chain = emptyChain(446_800_000);
  chain.accounts.set(HONX.address, { data: base64ToBytes(HONX.value.data[0]), owner: TOKEN_2022_PROGRAM_ID });
  chain.accounts.set("7ATYAtZbcStZ5XKgy1uFJce73Q4nrXXFXvetdQMXndnj", {
    data: encodeTokenAccount({ mint: "XsaBXg8dU5cPM6ehmVctMkVqoiRG2ZjMo1cyBJ3AykQ", owner: OWNER, amount: 79581398022n }),
    owner: TOKEN_2022_PROGRAM_ID,
  });
  addTransaction(chain, UPDATE.signature, UPDATE.result, [XSTOCKS_AUTHORITY]);
  addTransaction(chain, TRANSFER.signature, TRANSFER.result, [OWNER]);
  chain.blockTimes!.set(446247573, 1789158457);
  return chain;
}

function rpc(extra: Partial<RpcConfig> = {}) {
  return createRpc({ url: server.url, baseDelayMs: 2, maxDelayMs: 20, timeoutMs: 400, onRequest: (m, o) => outcomes.push([m, o]), ...extra });
}

beforeAll(() => {
  server = startRpcServer(seed());
});
afterAll(() => server.stop());
beforeEach(() => {
  outcomes = [];
  server.log.length = 0;
  server.clearFaults();
});

describe("wire format", () => {
  test("every method at finalized commitment, base64 accounts, json transactions with v0 support", async () => {
    const r = rpc();
    const info = await r.getAccountInfo(HONX.address);
    expect(decodeMintAccount(HONX.address, info.account!, { slot: info.slot, observedAt: 0 })!.newMultiplier).toBe(1.0011576563945983);
    const multi = await r.getMultipleAccounts([HONX.address, "11111111111111111111111111111111"]);
    expect(multi.accounts[0]!.data).toBe(HONX.value.data[0]);
    expect(multi.accounts[1]).toBeNull();
    const owned = await r.getTokenAccountsByOwner(OWNER);
    expect(owned.accounts.map((a) => a.pubkey)).toEqual(["7ATYAtZbcStZ5XKgy1uFJce73Q4nrXXFXvetdQMXndnj"]);
    expect((await r.getSignaturesForAddress(XSTOCKS_AUTHORITY)).map((s) => s.signature)).toEqual([UPDATE.signature]);
    expect(await r.getTransaction(TRANSFER.signature)).toEqual(TRANSFER.result); // a v0 transaction
    expect(await r.getTransaction("unknown")).toBeNull();
    expect(await r.getSlot()).toBe(446_800_000);
    expect(await r.getBlockTime(446247573)).toBe(1789158457);

    const byMethod = Object.fromEntries(server.log.map((l) => [l.method, l.params]));
    expect(byMethod.getTokenAccountsByOwner).toEqual([OWNER, { programId: TOKEN_2022_PROGRAM_ID }, { commitment: "finalized", encoding: "base64" }]);
    expect(byMethod.getAccountInfo![1]).toEqual({ commitment: "finalized", encoding: "base64" });
    expect(byMethod.getMultipleAccounts![1]).toEqual({ commitment: "finalized", encoding: "base64" });
    expect(byMethod.getSignaturesForAddress![1]).toEqual({ commitment: "finalized", limit: 1000 });
    expect(byMethod.getTransaction![1]).toEqual({ commitment: "finalized", encoding: "json", maxSupportedTransactionVersion: 0 });
    expect(byMethod.getSlot).toEqual([{ commitment: "finalized" }]);
    expect(outcomes.every(([, o]) => o === "ok")).toBe(true);
    expect(r.stats()).toEqual({ requests: 8, retries: 0, failures: 0 });
  });

  test("getMultipleAccounts is chunked at the RPC's 100-key limit", async () => {
    const keys = Array.from({ length: 230 }, (_, i) => (i === 150 ? HONX.address : `1111111111111111111111111111111${i % 10}`));
    const got = await rpc().getMultipleAccounts(keys);
    expect(got.accounts).toHaveLength(230);
    expect(got.accounts[150]!.data).toBe(HONX.value.data[0]);
    expect(server.log.map((l) => l.params[0].length)).toEqual([100, 100, 30]);
  });
});

describe("faults end in correct data or a clear error, never a wrong number", () => {
  const expected = () => TRANSFER.result;

  test("a burst of 429s with retry-after: 0 is retried through", async () => {
    server.inject({ method: "getTransaction", times: 3, fault: { kind: "status", status: 429, retryAfter: "0" } });
    expect(await rpc().getTransaction(TRANSFER.signature)).toEqual(expected());
    expect(outcomes.map(([, o]) => o)).toEqual(["rate_limited", "rate_limited", "rate_limited", "ok"]);
  });

  test("retry-after is honoured over the (tiny) backoff", async () => {
    server.inject({ method: "getSlot", times: 1, fault: { kind: "status", status: 429, retryAfter: "1" } });
    const clock = testClock();
    expect(await rpc({ clock }).getSlot()).toBe(446_800_000);
    expect(clock.slept).toEqual([1000]); // the server's second, not a backoff of 1-2 ms
    expect(outcomes.map(([, o]) => o)).toEqual(["rate_limited", "ok"]);
  });

  test("a retry-after given as an HTTP date waits until that time by the transport's clock", async () => {
    const clock = testClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    server.inject({ method: "getSlot", times: 1, fault: { kind: "status", status: 503, retryAfter: "Thu, 01 Jan 2026 12:00:07 GMT" } });
    expect(await rpc({ clock }).getSlot()).toBe(446_800_000);
    expect(clock.slept).toEqual([7000]);
  });

  test("500s and 503s are retried", async () => {
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "status", status: 500 } });
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "status", status: 503 } });
    expect(await rpc().getTransaction(TRANSFER.signature)).toEqual(expected());
    expect(outcomes.map(([, o]) => o)).toEqual(["server_error", "server_error", "ok"]);
  });

  test("a server that hangs, or stalls mid-body, times out and is retried", async () => {
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "hang", ms: 1500 } });
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "stall_body" } });
    expect(await rpc({ timeoutMs: 200 }).getTransaction(TRANSFER.signature)).toEqual(expected());
    expect(outcomes.map(([, o]) => o)).toEqual(["timeout", "timeout", "ok"]);
  });

  test("truncated JSON, an HTML error page and a wrong-shaped result are retried", async () => {
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "truncate" } });
    server.inject({ method: "getTransaction", times: 1, fault: { kind: "not_json" } });
    server.inject({ method: "getSignaturesForAddress", times: 1, fault: { kind: "null_result" } });
    const r = rpc();
    expect(await r.getTransaction(TRANSFER.signature)).toEqual(expected());
    expect((await r.getSignaturesForAddress(OWNER)).map((s) => s.signature)).toEqual([TRANSFER.signature]);
    expect(outcomes.map(([, o]) => o)).toEqual(["bad_response", "bad_response", "ok", "bad_response", "ok"]);
  });

  test("transient JSON-RPC errors (node behind) are retried; final ones surface as RpcError with the code", async () => {
    server.inject({ method: "getSlot", times: 2, fault: { kind: "rpc_error", code: -32005, message: "Node is behind by 42 slots" } });
    expect(await rpc().getSlot()).toBe(446_800_000);
    const err = await rpc()
      .getBlockTime(1)
      .catch((e) => e); // the test server says: skipped slot
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(-32009);
    expect(err.method).toBe("getBlockTime");
    expect(server.log.filter((l) => l.method === "getBlockTime")).toHaveLength(1); // not retried
  });

  test("giving up after maxRetries is a typed transport error", async () => {
    server.inject({ method: "getTransaction", times: Infinity, fault: { kind: "status", status: 502 } });
    const r = rpc({ maxRetries: 3 });
    const err = await r.getTransaction(TRANSFER.signature).catch((e) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err).toMatchObject({ kind: "server_error", status: 502, attempts: 4, method: "getTransaction" });
    expect(r.stats()).toEqual({ requests: 4, retries: 3, failures: 1 });
  });

  test("an auth error (401) is not retried", async () => {
    server.inject({ method: "getSlot", times: 1, fault: { kind: "status", status: 401 } });
    const err = await rpc()
      .getSlot()
      .catch((e) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err.kind).toBe("http_error");
    expect(server.log).toHaveLength(1);
  });

  test("a provider key in the URL never appears in an error", async () => {
    const r = createRpc({ url: "http://127.0.0.1:1/?api-key=SECRET-KEY-123", maxRetries: 1, baseDelayMs: 1 });
    const err = await r.getSlot().catch((e) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err.kind).toBe("network_error");
    expect(String(err.message)).not.toContain("SECRET");
    expect(String(err.stack)).not.toContain("SECRET");
  });
});

describe("a failure names the provider's host and the cause, never the key", () => {
  const KEY = "SECRET-KEY-4f1d9a";
  /** The loopback server's URL with a key in its query, as Helius's `?api-key=` is. */
  const keyed = (base = server.url) => `${base}?api-key=${KEY}`;
  const failure = async (r: ReturnType<typeof createRpc>) => {
    const err = await r.getSlot().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    for (const text of [err.message, String(err.stack), JSON.stringify(err)]) expect(text).not.toContain(KEY);
    expect(err.message).not.toMatch(/TypeError/);
    return err as Error;
  };

  test("connection refused", async () => {
    const err = await failure(createRpc({ url: `http://127.0.0.1:1/?api-key=${KEY}`, maxRetries: 1, baseDelayMs: 1 }));
    expect(err.message).toBe("getSlot to 127.0.0.1:1: connection refused (ECONNREFUSED), after 2 attempts");
  });

  test("a name that does not resolve", async () => {
    const err = await failure(createRpc({ url: `http://rpc.no-such-provider.invalid/?api-key=${KEY}`, maxRetries: 0 }));
    expect(err.message).toMatch(/^getSlot to rpc\.no-such-provider\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|DNSException)\), after 1 attempt$/);
  });

  test("TLS to a server that does not speak it", async () => {
    const host = new URL(server.url).host;
    const err = await failure(createRpc({ url: keyed(server.url.replace("http:", "https:")), maxRetries: 0 }));
    expect(err.message).toMatch(new RegExp(`^getSlot to ${host}: TLS failed \\(\\w+\\), after 1 attempt$`));
  });

  test("a timeout, an HTTP status, a JSON-RPC error code", async () => {
    const host = new URL(server.url).host;
    server.inject({ method: "getSlot", times: 1, fault: { kind: "hang", ms: 1500 } });
    expect((await failure(createRpc({ url: keyed(), maxRetries: 0, timeoutMs: 100 }))).message).toBe(`getSlot to ${host}: timeout: no complete answer within 100 ms, after 1 attempt`);
    server.inject({ method: "getSlot", times: 2, fault: { kind: "status", status: 503 } });
    expect((await failure(createRpc({ url: keyed(), maxRetries: 1, baseDelayMs: 1 }))).message).toBe(`getSlot to ${host}: HTTP 503 (server error), after 2 attempts`);
    server.inject({ method: "getSlot", times: 1, fault: { kind: "status", status: 401 } });
    expect((await failure(createRpc({ url: keyed() }))).message).toBe(`getSlot to ${host}: HTTP 401, after 1 attempt`);
    // A provider that echoes the request line in its error: the key is cut out of what it said.
    server.inject({ method: "getSlot", times: 1, fault: { kind: "rpc_error", code: -32602, message: `invalid params for POST /?api-key=${KEY}` } });
    const err = await failure(createRpc({ url: keyed() }));
    expect(err).toBeInstanceOf(RpcError);
    expect(err.message).toBe(`getSlot to ${host}: JSON-RPC error -32602: invalid params for POST …`);
  });
});

describe("throttling", () => {
  test("no more than `concurrency` requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const counting: typeof fetch = (async (input: any, init: any) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        await Bun.sleep(10);
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    }) as any;
    const r = rpc({ fetch: counting, concurrency: 3 });
    const slots = await Promise.all(Array.from({ length: 12 }, () => r.getSlot()));
    expect(slots.every((s) => s === 446_800_000)).toBe(true);
    expect(peak).toBe(3);
  });

  test("request starts are spaced by spacingMs", async () => {
    const clock = testClock();
    const starts: number[] = [];
    const stamping: typeof fetch = ((input: any, init: any) => {
      starts.push(clock.now());
      return fetch(input, init);
    }) as any;
    const r = rpc({ fetch: stamping, concurrency: 8, spacingMs: 25, clock });
    await Promise.all(Array.from({ length: 6 }, () => r.getSlot()));
    expect(starts.map((t) => t - starts[0]!)).toEqual([0, 25, 50, 75, 100, 125]);
    // A request after a pause starts at once: the spacing is between starts, not a fixed delay.
    await clock.sleep(1000);
    const before = clock.slept.length;
    await r.getSlot();
    expect(clock.slept.slice(before)).toEqual([0]);
    expect(starts.at(-1)! - starts[0]!).toBe(125 + 1000);
  });
});
