// A real server (its worker thread, its own connection; SQLite, or PostgreSQL with
// CA_LEDGER_TEST_ENGINE) against loopback servers speaking the Solana JSON-RPC and xStocks wire
// formats, with what the event and following tests read: the outbox, keys, registration. Call
// stopEventServers after each test and removeEventDirs after all.
import { rmSync } from "node:fs";
import { createKey } from "../../src/ledger/keys.ts";
import { eventBodyOf } from "../../src/ledger/tables/events.ts";
import { startServer, type ServerHandle } from "../../src/server.ts";
import type { SharedClock } from "../../src/sync/shared-clock.ts";
import { call, tempDir } from "../harness/index.ts";
import { ledgerFlags } from "./engine.ts";
import { loadIssuerFixture, startIssuerServer, type IssuerServer } from "./issuer-server.ts";
import { startRpcServer, type RpcServer } from "./rpc-server.ts";
import { q } from "./sql.ts";
import { until } from "./until.ts";
import type { WalletScenario } from "./wallet-chain.ts";

const dirs: string[] = [];
const running: { server: ServerHandle; rpc: RpcServer; issuer: IssuerServer }[] = [];
export async function stopEventServers(): Promise<void> {
  for (const r of running.splice(0)) {
    await r.server.stop();
    r.rpc.stop();
    r.issuer.stop();
  }
}
export function removeEventDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function startEventServer(s: WalletScenario, env: Record<string, string>, clock?: SharedClock) {
  const rpc = startRpcServer(s.chain);
  const issuer = startIssuerServer(loadIssuerFixture());
  const dataDir = tempDir("cal-events-");
  dirs.push(dataDir);
  const server = await startServer(
    { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
    {
      quiet: true,
      // The tests poll the API until a state shows, for as long as a loaded machine needs: no rate limit.
      env: {
        LOG_LEVEL: "error",
        SOLANA_RPC_URL: rpc.url,
        XSTOCKS_API_URL: issuer.url,
        ISSUER_POLL_SECONDS: "3600",
        MINT_POLL_SECONDS: "3600",
        RESYNC_SECONDS: "0",
        RATE_LIMIT_PER_MINUTE: "1000000",
        ...env,
      },
      clock: clock?.buffer,
    },
  );
  running.push({ server, rpc, issuer });
  const key = async (tenant: string) => (await createKey(server.ledger.db, { name: `k-${tenant}`, tenant, scopes: ["wallets:sync", "ledger:read"] })).key;
  const db = server.ledger.db;
  /** Every event in the outbox, oldest first, with its tenant's slug and its body parsed. */
  const events = async () =>
    (
      await db.all(
        ...q<{
          seq: number;
          tenant: string;
          type: string;
          owner: string | null;
          body: string;
          template: string | null;
        }>`SELECT e.seq, n.slug AS tenant, e.type, e.owner, e.body, t.text AS template FROM events e LEFT JOIN event_templates t ON t.id = e.template_id JOIN tenants n ON n.id = e.tenant_id ORDER BY e.seq`,
      )
    ).map(({ template, ...e }) => {
      const body = eventBodyOf({ body: e.body, template });
      return { ...e, body, seq: Number(e.seq), parsed: JSON.parse(body) as { type: string; timestamp: string; data: Record<string, any> } };
    });
  const register = (k: string, owner: string) => call(server.url, "/v1/wallets/sync", { key: k, body: { owner } });
  const read = async (k: string, path: string) => (await call(server.url, path, { key: k })).body;
  return { server, rpc, issuer, key, db, events, register, read };
}

export const eventually = async <T>(what: string, get: () => Promise<T>, holds: (v: T) => boolean): Promise<T> => {
  let v!: T;
  await until(what, async () => holds((v = await get())), 60_000);
  return v;
};
