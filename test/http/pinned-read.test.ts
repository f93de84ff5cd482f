// Routes answered in one pinned snapshot (route.ts pinnedRead: the key's row, the registration
// and the route's rows under one shared lock on SQLite, docs/api.md#one-snapshot-a-request): the
// snapshot is let go by the end of the event loop's turn whatever the answer, refusals included; a
// change committed in another process between two requests (a key revoked, a wallet removed) shows
// at the very next one, also in the same turn, where the snapshot is otherwise kept; the key's
// last-used minute is still written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/http/app.ts";
import { openLedger, sqliteOf } from "../../src/ledger/db.ts";
import { findTenant, revokeKey } from "../../src/ledger/keys.ts";
import { unregisterWallet } from "../../src/ledger/queue.ts";
import { createLogger } from "../../src/log.ts";
import { routes } from "../../src/http/routes/index.ts";
import { address, allScopes, call, registerWallet, seedWallet, startTestServer, type TestServer } from "../harness/index.ts";
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

let srv: TestServer;
let actionId: string;
const owner = address("pinned:owner");

beforeAll(async () => {
  srv = await startTestServer();
  await registerWallet(srv.db, "acme", owner, "complete");
  actionId = (await seedWallet(srv.db, owner, 3)).actions[0]!.id;
});
afterAll(async () => {
  await srv?.close();
});

const pinnedPaths = (w: string, id = actionId) => [`/v1/portfolio?owner=${w}`, `/v2/actions/${id}?owner=${w}`, `/v2/actions?owner=${w}&limit=2`, `/v1/income?owner=${w}&limit=2`];

/** Once the event loop's current turn is over (the server lets its snapshot go then). */
const turnEnded = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The server's own connection (its HTTP thread's) is outside any transaction: nothing left pinned. */
const connectionFree = () => srv.ledger.engine !== "sqlite" || !sqliteOf(srv.ledger).inTransaction;

describe("routes read in one pinned snapshot", () => {
  test("the portfolio, the action detail and the action and income lists declare it", () => {
    const pinned = routes.filter((r) => r.pinnedRead).map((r) => `${r.method} ${r.path}`);
    expect(pinned).toEqual(expect.arrayContaining(["GET /v1/portfolio", "GET /v2/actions/:id", "GET /v2/actions", "GET /v1/income"]));
    // Only reads: no pinned route takes a body or speaks another protocol.
    for (const r of routes.filter((r) => r.pinnedRead))
      expect({ route: r.path, method: r.method, body: r.body, takesRequest: r.takesRequest }).toEqual({ route: r.path, method: "GET", body: undefined, takesRequest: undefined });
  });

  test("every answer's snapshot is let go by the end of its turn: success, every refusal before the handler, and the handler's own", async () => {
    const { key } = await srv.key([...allScopes]);
    const opsOnly = (await srv.key(["ops:read"])).key;
    const unregistered = address("pinned:nobody");
    const cases: { path: string; key?: string | null; method?: string; status: number }[] = [];
    for (const path of pinnedPaths(owner)) {
      cases.push({ path, key, status: 200 }, { path, key, method: "HEAD", status: 200 });
      cases.push({ path, key: null, status: 401 }, { path, key: "cal_" + "C".repeat(43), status: 401 }, { path, key: opsOnly, status: 403 });
      cases.push({ path: `${path}&unknown=1`, key, status: 400 });
    }
    for (const path of pinnedPaths("not-an-address")) cases.push({ path, key, status: 400 });
    for (const path of pinnedPaths(unregistered)) cases.push({ path, key, status: 404 });
    cases.push({ path: `/v2/actions/unknown-action?owner=${owner}`, key, status: 404 });
    cases.push({ path: `/v2/actions?owner=${owner}&limit=0`, key, status: 400 }, { path: `/v1/income?owner=${owner}&kind=nope`, key, status: 400 });
    for (const c of cases) {
      const res = await fetch(srv.url + c.path, { method: c.method ?? "GET", headers: c.key ? { authorization: `Bearer ${c.key}` } : {} });
      await res.arrayBuffer();
      await turnEnded();
      expect({ ...c, status: res.status, free: connectionFree() }).toEqual({ ...c, free: true });
    }
  });

  test("a key revoked and a wallet removed in another process show at the very next request", async () => {
    const k = await srv.key([...allScopes]);
    const removed = address("pinned:removed");
    await registerWallet(srv.db, "acme", removed, "complete");
    const removedAction = (await seedWallet(srv.db, removed, 1)).actions[0]!.id;
    for (const path of [...pinnedPaths(owner), ...pinnedPaths(removed, removedAction)]) expect({ path, status: (await call(srv.url, path, { key: k.key })).status }).toEqual({ path, status: 200 });

    const cli = await openLedger(ledgerTarget(srv.dataDir)); // as `ca-ledger wallets remove` and `keys revoke` do
    try {
      expect((await unregisterWallet(cli.db, (await findTenant(cli.db, "acme"))!, removed)).removed).toBe(true);
    } finally {
      await cli.close();
    }
    for (const path of pinnedPaths(removed, removedAction)) {
      const a = await call(srv.url, path, { key: k.key });
      expect({ path, status: a.status, code: a.body.code }).toEqual({ path, status: 404, code: "wallet_not_registered" });
    }

    const again = await openLedger(ledgerTarget(srv.dataDir));
    try {
      expect(await revokeKey(again.db, k.id)).toBe(true);
    } finally {
      await again.close();
    }
    for (const path of pinnedPaths(owner)) {
      const a = await call(srv.url, path, { key: k.key });
      expect({ path, status: a.status, code: a.body.code }).toEqual({ path, status: 401, code: "invalid_api_key" });
    }
    await turnEnded();
    expect(connectionFree()).toBe(true);
  });

  test("in one turn, where the snapshot is kept from request to request, a change committed in another process still shows at the next one", async () => {
    // The app on the server's own connection, asked in process: nothing between these requests
    // lets the event loop turn, so the first request's snapshot would otherwise serve them all.
    const { app } = await createApp({ ledger: srv.ledger, config: srv.config, logger: createLogger("error"), version: "test" });
    const ask = async (path: string, key: string) => {
      const res = await app.handle(new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${key}` } }));
      return { path, status: res.status, code: res.status === 200 ? undefined : ((await res.json()) as { code: string }).code };
    };
    const k = await srv.key([...allScopes]);
    const removed = address("pinned:removed-in-turn");
    await registerWallet(srv.db, "acme", removed, "complete");
    await seedWallet(srv.db, removed, 1);
    const cli = await openLedger(ledgerTarget(srv.dataDir)); // as `ca-ledger wallets remove` and `keys revoke` do
    try {
      const [portfolio] = pinnedPaths(removed);
      expect(await ask(portfolio!, k.key)).toEqual({ path: portfolio!, status: 200, code: undefined });
      expect(await ask(portfolio!, k.key)).toEqual({ path: portfolio!, status: 200, code: undefined });
      // Still pinned after the answers: within a turn the snapshot outlives them.
      if (srv.ledger.engine === "sqlite") expect(connectionFree()).toBe(false);
      expect((await unregisterWallet(cli.db, (await findTenant(cli.db, "acme"))!, removed)).removed).toBe(true);
      expect(await ask(portfolio!, k.key)).toEqual({ path: portfolio!, status: 404, code: "wallet_not_registered" });
      expect(await revokeKey(cli.db, k.id)).toBe(true);
      expect(await ask(pinnedPaths(owner)[0]!, k.key)).toEqual({ path: pinnedPaths(owner)[0]!, status: 401, code: "invalid_api_key" });
    } finally {
      await cli.close();
    }
    await turnEnded();
    expect(connectionFree()).toBe(true);
  });

  test("the key's last-used minute is written by a request to a pinned route", async () => {
    for (const path of pinnedPaths(owner)) {
      const k = await srv.key(["ledger:read"]);
      expect((await call(srv.url, path, { key: k.key })).status).toBe(200);
      const row = await srv.db.get(...q<{ last_used_at: string | null }>`SELECT last_used_at FROM api_keys WHERE id = ${k.id}`);
      expect({ path, used: row?.last_used_at !== null }).toEqual({ path, used: true });
      expect(connectionFree()).toBe(true);
    }
  });
});
