// Starts the server (and, with --demo, prepares the synthetic demo ledger first).
import { loadConfig, type Config } from "./config.ts";
import { openLedger, type Ledger } from "./ledger/db.ts";
import { createKey } from "./ledger/keys.ts";
import { ensureIncomeTotals } from "./ledger/replay.ts";
import { sealRows } from "./ledger/seals.ts";
import { readDatasetLabel } from "./ledger/queries/common.ts";
import { createLogger } from "./log.ts";
import { createApp } from "./http/app.ts";
import { startWorker } from "./sync/worker.ts";
import { version } from "./version.ts";
import { demoOwners, demoSources, loadDemo } from "./demo/load.ts";

export interface ServerHandle { url: string; port: number; config: Config; ledger: Ledger; stop(): Promise<void> }

export async function startServer(flags: Record<string, unknown>, opts: { demo?: boolean; offline?: boolean; env?: Record<string, string | undefined>; quiet?: boolean } = {}): Promise<ServerHandle> {
  const config = loadConfig(flags, opts.env ?? process.env);
  const logger = createLogger(config.logLevel);
  const ledger = openLedger(config.dataDir);
  ensureIncomeTotals(ledger.sqlite);
  ledger.sqlite.transaction(() => sealRows(ledger.sqlite)).immediate(); // rows from before seals existed
  let demoKey: string | null = null;
  if (opts.demo) demoKey = await prepareDemo(ledger, config, logger);

  const { app, metrics, health } = createApp({ ledger, config, logger, version });
  // The demo is offline: its worker reads the same embedded recording as the demo load, so a
  // wallet registered there syncs (and finds nothing) instead of calling the network.
  const sources = opts.demo ? demoSources(config) : { config, fetch: undefined };
  const worker = startWorker({ ledger, ...sources, logger, health, pollNetwork: !opts.offline, onRpcRequest: (m, o) => metrics.rpcRequest(m, String(o)) });
  app.listen({ port: config.port, hostname: config.host });
  const port = app.server!.port!;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logger.info("listening", { url, dataDir: config.dataDir, dataset: readDatasetLabel(ledger.sqlite)?.kind ?? "mainnet" });
  if (demoKey && !opts.quiet) {
    process.stdout.write(
      `\nca-ledger demo is ready at ${url} (synthetic dataset).\nDemo key (all scopes, shown once):\n  ${demoKey}\nTry:\n  curl -s -H 'authorization: Bearer ${demoKey}' '${url}/v1/income?owner=${demoOwners()[0]}'\n\n`,
    );
  }
  return {
    url, port, config, ledger,
    async stop() {
      // Stop accepting; in-flight requests finish, idle keep-alive connections are closed after a
      // short grace period rather than waiting for their idle timeout.
      await Promise.race([app.stop(false), new Promise((r) => setTimeout(r, 2000))]);
      await worker.stop(); // the job in hand finishes its transaction; a cut one is re-claimed after its lease
      ledger.close();
    },
  };
}

/**
 * The demo never mixes with live data: a data dir that holds live data is refused. On an empty
 * one it labels the ledger synthetic, loads the embedded demo and creates a demo key.
 */
async function prepareDemo(ledger: Ledger, config: Config, logger: ReturnType<typeof createLogger>): Promise<string> {
  const label = readDatasetLabel(ledger.sqlite);
  const wallets = (ledger.sqlite.query("SELECT count(*) AS n FROM tenant_wallets").get() as { n: number }).n;
  if ((label && label.kind !== "synthetic") || (!label && wallets > 0)) {
    throw new Error("this data dir holds live data; --demo needs an empty data dir (use --data-dir)");
  }
  const load = await loadDemo(ledger, new Date(), config);
  if (load.synced || load.failed) logger.info("demo loaded", { wallets: load.synced, failed: load.failed, ms: load.ms });
  return createKey(ledger.sqlite, { name: `demo-${Date.now()}`, tenant: "demo", scopes: ["assets:read", "ledger:read", "wallets:sync", "ops:read"] }).key;
}
