// The real server on loopback over a data dir holding the embedded demo ledger (test/ops/helpers.ts
// demoDataDir), offline, with a key of the demo's tenant.
import { demoTenant } from "../../src/demo/identity.ts";
import { allScopes, createKey } from "../../src/ledger/keys.ts";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { call } from "../harness/index.ts";
import { demoDataDir, removeTempDirs } from "../ops/helpers.ts";
import { ledgerFlags } from "./engine.ts";

export interface DemoServer extends ServerHandle {
  key: string;
}

export async function serveDemo(dataDir: string): Promise<DemoServer> {
  const handle = await startServer(
    { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
    { offline: true, quiet: true, env: { LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "100000", AUTH_FAILURES_PER_MINUTE: "100000" } },
  );
  const { key } = await createKey(handle.ledger.db, { name: `test-${Date.now()}`, tenant: demoTenant, scopes: [...allScopes] });
  return Object.assign(handle, { key });
}

/** A fresh copy of the demo ledger served (beforeAll), with the wallets it follows as its key lists them. */
export async function serveDemoLedger(): Promise<{ srv: DemoServer; owners: string[] }> {
  const srv = await serveDemo(await demoDataDir());
  const owners = (await call(srv.url, "/v1/wallets", { key: srv.key })).body.wallets.map((w: { owner: string }) => w.owner);
  return { srv, owners };
}

/** Stops the server of serveDemoLedger and removes the copies (afterAll). */
export async function stopDemoLedger(srv: DemoServer | undefined): Promise<void> {
  await srv?.stop();
  removeTempDirs();
}
