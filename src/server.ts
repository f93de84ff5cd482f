// Starts the server (and, with --demo, prepares the synthetic demo ledger first).
import { FEED_OFF, issuerFeedOff, loadConfig, type Config } from "./config.ts";
import { describeUrl } from "./describe-url.ts";
import { ledgerName, newLedgerLocation, openLedger, type Ledger } from "./ledger/db.ts";
import { allScopes, createKey, revokeKeysNamed } from "./ledger/keys.ts";
import { holdDataDir, type DataDirLock } from "./ledger/data-dir-lock.ts";
import { holdsAnyWallet, readDatasetLabel, writeDatasetLabel } from "./ledger/queries/common.ts";
import { sealRows } from "./ledger/seals.ts";
import { createLogger, type Logger } from "./log.ts";
import { createApp } from "./http/app.ts";
import { startWorkerThread, type WorkerThread } from "./sync/host.ts";
import { registerAndEnqueue, unregisterWallet } from "./ledger/queue.ts";
import { version } from "./version.ts";
import { DEMO_LABEL, demoKeyPrefix, demoOwners, demoTenant } from "./demo/identity.ts";

export interface ServerHandle {
  url: string;
  port: number;
  config: Config;
  ledger: Ledger;
  stop(): Promise<void>;
}

/** `clock` (tests): the worker's clock, which the test sets (src/sync/shared-clock.ts). */
interface ServeOptions {
  demo?: boolean;
  offline?: boolean;
  quiet?: boolean;
  clock?: SharedArrayBuffer;
  webhookKeyEnv?: string;
}

/**
 * `offline` (tests) starts neither the issuer and mint polls nor the job claims. `demo` serves the
 * embedded demo from the demo's own data dir and prints a fresh demo key.
 */
export async function startServer(flags: Record<string, unknown>, opts: ServeOptions & { env?: Record<string, string | undefined> } = {}): Promise<ServerHandle> {
  const config = loadConfig(flags, opts.env ?? process.env, { demo: opts.demo });
  if (opts.demo && config.databaseUrl) throw new Error("the demo runs on SQLite in its own data dir; unset DATABASE_URL (or --database-url) to serve it");
  const logger = createLogger(config.logLevel);
  // One server per data dir, for this process's life. Servers sharing a PostgreSQL ledger share
  // it by design (their claims go through the database), so they hold no data dir.
  const lock = config.databaseUrl ? { release() {} } : holdDataDir(config.dataDir);
  let ledger: Ledger | null = null;
  try {
    // Said before it happens, as every command does (docs/cli.md#new-ledgers).
    const fresh = await newLedgerLocation(config);
    if (fresh) logger.info("creating a new ledger", { ledger: fresh });
    ledger = await openLedger(config);
    await checkDataset(ledger, config, opts);
    if (opts.demo) await writeDatasetLabel(ledger.db, DEMO_LABEL);
    await ledger.db.write((tx) => sealRows(tx)); // the label, and rows from before seals existed
    // The webhook key is environment-only (docs/events.md#secrets-at-rest): handed to the worker thread, which signs.
    return await serve(ledger, config, logger, lock, { ...opts, webhookKeyEnv: (opts.env ?? process.env).WEBHOOK_SECRET_KEY });
  } catch (e) {
    await ledger?.close();
    lock.release();
    throw e;
  }
}

async function serve(ledger: Ledger, config: Config, logger: Logger, lock: DataDirLock, opts: ServeOptions): Promise<ServerHandle> {
  let worker: WorkerThread | null = null;
  const { app, metrics, health } = await createApp({
    ledger,
    config,
    logger,
    version,
    demoOwners: opts.demo ? demoOwners() : undefined,
    registerWallet: (tenantId, maxWallets, owner) => (worker ? worker.register(tenantId, maxWallets, owner) : registerAndEnqueue(ledger.db, tenantId, maxWallets, owner)),
    removeWallet: async (tenantId, owner) => (worker ? worker.unregister(tenantId, owner) : (await unregisterWallet(ledger.db, tenantId, owner)).removed),
  });
  // The worker runs on its own thread with its own connection: syncs, polls, the engine and every
  // booking write happen there, never on this thread, which answers HTTP. The demo's worker first
  // loads the embedded recording through its recorded transport (the demo is offline). Offline
  // (tests that write ledger rows themselves) there is no worker, except for the demo's, which
  // then only loads it.
  if (!opts.offline || opts.demo) {
    worker = startWorkerThread({
      config,
      demo: Boolean(opts.demo),
      pollNetwork: !opts.offline,
      logger,
      clock: opts.clock,
      webhookKeyEnv: opts.webhookKeyEnv,
      onRpc: (m, o, n) => metrics.rpcRequest(m, o, n),
      onWebhooks: (o, n) => metrics.webhookAttempts(o, n),
      onDatabaseError: (e) => void health.noteError(e),
    });
    try {
      await worker.ready;
    } catch (e) {
      await worker.stop();
      throw e;
    }
  }
  try {
    listen(app, config);
  } catch (e) {
    await worker?.stop();
    throw e;
  }
  const port = app.server!.port!;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  // Every URL from the settings is shown through describeUrl: their keys sit in queries and paths.
  const providers = { rpc: describeUrl(config.solanaRpcUrl), issuer: issuerFeedOff(config) ? FEED_OFF : describeUrl(config.xstocksApiUrl) };
  logger.info("listening", { url, ledger: ledgerName(ledger), dataset: (await readDatasetLabel(ledger.db))?.kind ?? "mainnet", ...providers });
  if (opts.demo) {
    const key = await rotateDemoKey(ledger);
    if (!opts.quiet) process.stdout.write(demoBanner(url, config.dataDir, key));
  }
  return {
    url,
    port,
    config,
    ledger,
    async stop() {
      // Stop accepting; in-flight requests finish, idle keep-alive connections are closed after a
      // short grace period rather than waiting for their idle timeout.
      await Promise.race([app.stop(false), new Promise((r) => setTimeout(r, 2000))]);
      await worker?.stop(); // the job in hand finishes its transaction; a cut one is re-claimed after its lease
      await ledger.close();
      lock.release();
    },
  };
}

/**
 * One server per port: Elysia asks Bun for SO_REUSEPORT, which would let a second server bind
 * the same port and the kernel split requests between two ledgers. Refused instead.
 */
function listen(app: Awaited<ReturnType<typeof createApp>>["app"], config: Config): void {
  try {
    app.listen({ port: config.port, hostname: config.host, reusePort: false });
  } catch (e) {
    if ((e as { code?: string }).code === "EADDRINUSE") throw new Error(`port ${config.port} on ${config.host} is in use`);
    throw e;
  }
}

/**
 * A demo ledger is never mixed with live data. `--demo` refuses a data dir holding live data;
 * a server without it refuses the demo's data dir, where its polls and syncs would write live
 * issuer and chain data (an offline server, which fetches nothing, may open it).
 */
async function checkDataset(ledger: Ledger, config: Config, opts: { demo?: boolean; offline?: boolean }): Promise<void> {
  const label = await readDatasetLabel(ledger.db);
  if (opts.demo) {
    // A wallet no tenant follows any more still holds live data (its observations stay).
    const live = await holdsAnyWallet(ledger.db);
    if ((label && label.kind !== "synthetic") || (!label && live)) {
      throw new Error(`data dir ${config.dataDir} holds live data; --demo needs an empty data dir or the demo's own (use --data-dir)`);
    }
  } else if (label?.kind === "synthetic" && !opts.offline) {
    throw new Error(`data dir ${config.dataDir} holds the synthetic demo ledger; serve it with --demo, or pass --data-dir for live data`);
  }
}

/** Each demo start prints a fresh all-scope key and revokes the ones earlier starts printed. */
function rotateDemoKey(ledger: Ledger): Promise<{ key: string; revoked: number }> {
  return ledger.db.write(async (tx) => {
    const revoked = await revokeKeysNamed(tx, demoTenant, demoKeyPrefix);
    const { key } = await createKey(tx, { name: `${demoKeyPrefix}${Date.now()}`, tenant: demoTenant, scopes: [...allScopes] });
    return { key, revoked };
  });
}

function demoBanner(url: string, dataDir: string, demo: { key: string; revoked: number }): string {
  const earlier = demo.revoked === 0 ? "" : `(The ${demo.revoked === 1 ? "key" : `${demo.revoked} keys`} printed by earlier demo starts ${demo.revoked === 1 ? "is" : "are"} now revoked.)\n`;
  return (
    `\nca-ledger demo is ready at ${url} (synthetic dataset).\nData dir: ${dataDir} (the demo's own; live data never goes there)\n` +
    `Demo key (all scopes, shown once):\n  ${demo.key}\n${earlier}` +
    `Dashboard: open ${url}/ in a browser and sign in with the key above.\n` +
    `Or try:\n  curl -s -H 'authorization: Bearer ${demo.key}' '${url}/v1/income?owner=${demoOwners()[0]}'\n\n`
  );
}
