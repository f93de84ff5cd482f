// Starts the server (and, with --demo, prepares the synthetic demo ledger first).
import { loadConfig, type Config } from "./config.ts";
import { openLedger, type Ledger } from "./ledger/db.ts";
import { createKey } from "./ledger/keys.ts";
import { readDatasetLabel, writeDatasetLabel } from "./ledger/queries/common.ts";
import { createLogger } from "./log.ts";
import { createApp } from "./http/app.ts";
import { startWorkerThread, type WorkerThread } from "./sync/host.ts";
import { version } from "./version.ts";
import { DEMO_LABEL, demoOwners } from "./demo/load.ts";

export interface ServerHandle { url: string; port: number; config: Config; ledger: Ledger; stop(): Promise<void> }

export async function startServer(flags: Record<string, unknown>, opts: { demo?: boolean; offline?: boolean; env?: Record<string, string | undefined>; quiet?: boolean } = {}): Promise<ServerHandle> {
  const config = loadConfig(flags, opts.env ?? process.env);
  const logger = createLogger(config.logLevel);
  const ledger = openLedger(config.dataDir);
  let demoKey: string | null = null;
  if (opts.demo) demoKey = prepareDemo(ledger);

  let worker: WorkerThread | null = null;
  const { app, metrics } = createApp({ ledger, config, logger, version, onWalletQueued: () => worker?.wake() });
  // The worker runs on its own thread with its own connection: syncs, polls, the engine and every
  // booking write happen there, never on this thread, which answers HTTP. The demo's worker loads
  // the embedded recording first, through its recorded transport. Offline (tests that write ledger
  // rows themselves) there is no worker, except for the demo, whose worker then only loads it.
  if (!opts.offline || opts.demo) {
    worker = startWorkerThread({ config, demo: Boolean(opts.demo), pollNetwork: !opts.offline, logger, onRpc: (m, o, n) => metrics.rpcRequest(m, o, n) });
    try {
      await worker.ready;
    } catch (e) {
      await worker.stop();
      ledger.close();
      throw e;
    }
  }
  app.listen({ port: config.port, hostname: config.host, reusePort: false });
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
      await worker?.stop(); // the job in hand finishes its transaction; a cut one is re-claimed after its lease
      ledger.close();
    },
  };
}

/**
 * The demo never mixes with live data: a data dir that holds live data is refused. On an empty
 * one it labels the ledger synthetic and creates a demo key; the worker thread loads the data.
 */
function prepareDemo(ledger: Ledger): string {
  const label = readDatasetLabel(ledger.sqlite);
  const wallets = (ledger.sqlite.query("SELECT count(*) AS n FROM tenant_wallets").get() as { n: number }).n;
  if ((label && label.kind !== "synthetic") || (!label && wallets > 0)) {
    throw new Error("this data dir holds live data; --demo needs an empty data dir (use --data-dir)");
  }
  writeDatasetLabel(ledger.sqlite, DEMO_LABEL);
  return createKey(ledger.sqlite, { name: `demo-${Date.now()}`, tenant: "demo", scopes: ["assets:read", "ledger:read", "wallets:sync", "ops:read"] }).key;
}
