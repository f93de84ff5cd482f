// PostgreSQL going away under a running server (the compiled binary): health turns red within
// seconds, a ledger read answers 503 `unavailable` (never 500 `internal_error`), and when the
// database answers again so does the server, without a restart.
// The database is reached through a TCP proxy on loopback that forwards PostgreSQL's own bytes;
// stopping the proxy is the outage (the shared test cluster keeps running).
import { afterAll, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { openLedger } from "../../src/ledger/db.ts";
import { allScopes, createKey } from "../../src/ledger/keys.ts";
import { removeTempDirs, serveBinary, tempDir } from "../ops/helpers.ts";
import { freshDatabase } from "../support/engine.ts";

afterAll(removeTempDirs);

interface Proxy {
  port: number;
  stop(): void;
  start(): void;
}

/** Forwards every connection on a loopback port to `target` until stopped (listener and sockets). */
function tcpProxy(target: URL): Proxy {
  let listener: TCPSocketListener<{ peer?: Socket<unknown>; early: Uint8Array[] }> | null = null;
  let port = 0;
  const open = new Set<Socket<unknown>>();
  const start = () => {
    listener = Bun.listen<{ peer?: Socket<unknown>; early: Uint8Array[] }>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = { early: [] };
          open.add(client);
          void Bun.connect<{ client: typeof client }>({
            hostname: target.hostname,
            port: Number(target.port),
            data: { client },
            socket: {
              open(server) {
                open.add(server);
                client.data.peer = server;
                for (const chunk of client.data.early) server.write(chunk);
                client.data.early = [];
              },
              data(server, chunk) {
                server.data.client.write(chunk);
              },
              close(server) {
                open.delete(server);
                server.data.client.end();
              },
              error(server) {
                server.data.client.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          if (client.data.peer) client.data.peer.write(chunk);
          else client.data.early.push(new Uint8Array(chunk));
        },
        close(client) {
          open.delete(client);
          client.data.peer?.end();
        },
        error(client) {
          client.data.peer?.end();
        },
      },
    });
    port = listener.port;
  };
  start();
  return {
    get port() {
      return port;
    },
    stop() {
      listener?.stop(true);
      listener = null;
      for (const s of open) s.terminate();
      open.clear();
    },
    start,
  };
}

test("PostgreSQL out of reach: health turns red, reads and the ops status answer 503 unavailable; back again, so is the server", async () => {
  const database = new URL(freshDatabase("outage"));
  const proxy = tcpProxy(database);
  const viaProxy = new URL(database);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const url = viaProxy.toString();
  const dir = tempDir("cal-outage-");
  const ledger = await openLedger({ dataDir: dir, databaseUrl: url });
  const { key } = await createKey(ledger.db, { name: "outage", tenant: "acme", scopes: [...allScopes] });
  await ledger.close();
  const server = await serveBinary(dir, [], { DATABASE_URL: url, LOG_LEVEL: "error" });
  const get = (path: string) => fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } });
  /** Polls until `path` answers `status` (10 s at most); returns the answer. */
  const until = async (path: string, status: number) => {
    for (const started = Date.now(); ; await Bun.sleep(100)) {
      const res = await get(path);
      if (res.status === status || Date.now() - started > 10_000)
        return { status: res.status, body: (await res.json()) as { code?: string; error?: string; checks?: { name: string; status: string }[] } };
    }
  };
  try {
    expect((await get("/v1/health")).status).toBe(200);
    expect((await get("/v1/wallets")).status).toBe(200);

    proxy.stop();
    const health = await until("/v1/health", 503);
    expect({ status: health.status, code: health.body.code }).toEqual({ status: 503, code: "unavailable" });
    const read = await get("/v1/wallets");
    expect({ status: read.status, code: ((await read.json()) as { code: string }).code }).toEqual({ status: 503, code: "unavailable" });
    // Keys live in the ledger too: the operator's status cannot check one, and says so the same
    // way, naming what is down: the database, where it is (docs/operations.md#postgresql-out-of-reach).
    const ops = await get("/v1/ops/status");
    const said = (await ops.json()) as { code: string; error: string };
    expect({ status: ops.status, code: said.code }).toEqual({ status: 503, code: "unavailable" });
    expect(said.error).toMatch(new RegExp(`^The ledger database, PostgreSQL at 127\\.0\\.0\\.1:${proxy.port}, is unreachable \\([^)]+\\): no key can be checked`));
    expect(health.body.error).toContain(`PostgreSQL at 127.0.0.1:${proxy.port} does not answer`);

    proxy.start();
    expect((await until("/v1/health", 200)).status).toBe(200);
    expect((await until("/v1/wallets", 200)).status).toBe(200);
    const back = await until("/v1/ops/status", 200);
    expect(back.body.checks!.find((c) => c.name === "database")).toMatchObject({ status: "ok" });
    expect(server.stderr()).not.toContain("internal_error");
  } finally {
    await server.kill();
    proxy.stop();
  }
}, 60_000);
