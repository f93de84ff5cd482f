// bench/postgres: the ledger on PostgreSQL against SQLite, same run, same machine.
//   (0) the driver: Bun's PostgreSQL client through the port, one query's round trip (1,000
//       point reads one after another, in a transaction, and all at once), beside bun:sqlite;
//   (1) sync throughput: 1,000 wallets registered over HTTP and synced by the binary's workers
//       from loopback JSON-RPC and xStocks servers (lib/scale-run.ts), on SQLite with one server,
//       on PostgreSQL with one server, and with two servers whose workers share the queue;
//   (2) the 10,000-wallet ledger grown on SQLite the same way, copied with `migrate-to-postgres`
//       (timed), then the HTTP routes of bench/http.ts under autocannon (64 connections): SQLite
//       with one server, PostgreSQL with one, PostgreSQL with two (32 connections each, summed).
// Prints requests/s, p50/p99 and each figure's ratio to SQLite's.
//
//   ./node_modules/.bin/bun bench/postgres.ts --postgres postgres://user@host:port/db [--wallets 10000] [--sync-wallets 1000] [--duration 3] [--json out.json]
// The URL names a server where the bench may create databases (`source .ci/postgres-cluster`
// starts a throwaway one and exports it as CA_LEDGER_TEST_POSTGRES, which is used when no flag).
// @ts-expect-error autocannon ships no types
import autocannon from "autocannon";
import { SQL } from "bun";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../src/ledger/db.ts";
import type { Sql } from "../src/ledger/sql/port.ts";
import { binary, startScaleRun, type ScaleRun } from "./lib/scale-run.ts";
import { q } from "../test/support/sql.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const SERVER = opt("postgres", process.env.CA_LEDGER_TEST_POSTGRES ?? "");
const WALLETS = Number(opt("wallets", "10000"));
const SYNC_WALLETS = Number(opt("sync-wallets", "1000"));
const DURATION = Number(opt("duration", "3"));
const CONNECTIONS = 64;
if (!SERVER) throw new Error("name a PostgreSQL server with --postgres (or CA_LEDGER_TEST_POSTGRES)");
if (!existsSync(binary)) throw new Error("build the binary first: npm run build");

const dirs: string[] = [];
let databases = 0;
/** A new database on the server, for one configuration. */
async function freshDatabase(): Promise<string> {
  const admin = new SQL(SERVER);
  const name = `cal_bench_${process.pid}_${++databases}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return url.toString();
}

const env = { LOG_LEVEL: "warn", RESYNC_SECONDS: "0" };

// ---- (0) the driver --------------------------------------------------------------------------

interface DriverRow {
  engine: string;
  sequentialUs: number;
  inTransactionUs: number;
  concurrentUs: number;
}

/** Microseconds per point read of a key by its hash, the read every request makes. */
async function driver(engine: string, target: Parameters<typeof openLedger>[0]): Promise<DriverRow> {
  const ledger = await openLedger(target);
  const n = 1000;
  const read = (db: Sql, i: number) => db.get(...q`SELECT id FROM api_keys WHERE key_sha256 = ${String(i)}`);
  const time = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    return ((performance.now() - t) * 1000) / n;
  };
  try {
    await time(async () => {
      for (let i = 0; i < n; i++) await read(ledger.db, i);
    }); // warm: statements prepared
    return {
      engine,
      sequentialUs: await time(async () => {
        for (let i = 0; i < n; i++) await read(ledger.db, i);
      }),
      inTransactionUs: await time(() =>
        ledger.db.read(async (tx) => {
          for (let i = 0; i < n; i++) await read(tx, i);
        }),
      ),
      concurrentUs: await time(() => Promise.all(Array.from({ length: n }, (_, i) => read(ledger.db, i)))),
    };
  } finally {
    await ledger.close();
  }
}

// ---- (1) sync throughput -------------------------------------------------------------------

interface SyncRow {
  setup: string;
  seconds: number;
  walletsPerSecond: number;
}

async function syncThroughput(setup: string, opts: { databaseUrl?: string; servers?: number }): Promise<SyncRow> {
  const run = await startScaleRun(env, opts);
  dirs.push(run.dataDir);
  try {
    const seconds = await run.grow(0, SYNC_WALLETS, SYNC_WALLETS);
    console.error(`  ${setup}: ${SYNC_WALLETS} wallets in ${seconds.toFixed(1)} s`);
    return { setup, seconds, walletsPerSecond: SYNC_WALLETS / seconds };
  } finally {
    await run.stop();
  }
}

// ---- (2) the HTTP routes on a 10,000-wallet ledger -------------------------------------------

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}
interface HttpRow {
  setup: string;
  route: string;
  load: Load;
}

async function cannon(urls: string[], path: string, key: string, duration = DURATION): Promise<Load> {
  const each = Math.floor(CONNECTIONS / urls.length);
  type Result = { requests: { average: number }; latency: Record<string, number>; errors: number; timeouts: number; non2xx: number };
  const runs: Result[] = await Promise.all(urls.map((u) => autocannon({ url: u + path, headers: { authorization: `Bearer ${key}` }, connections: each, duration, pipelining: 1 })));
  const rps = runs.reduce((n, r) => n + r.requests.average, 0);
  // Each server's percentiles, weighted by what it served: an honest p50/p99 of the pair.
  const weighted = (f: (r: Result) => number) => runs.reduce((n, r) => n + f(r) * r.requests.average, 0) / Math.max(rps, 1);
  return { rps, p50: weighted((r) => r.latency.p50!), p99: weighted((r) => r.latency.p99!), errors: runs.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0) };
}

async function routesOf(run: ScaleRun, heavy: string) {
  const action = (await run.one(q<{ id: string }>`SELECT id FROM actions WHERE owner = ${heavy} ORDER BY effective_at DESC LIMIT 1`)).id;
  return [
    { name: "portfolio", path: `/v1/portfolio?owner=${heavy}` },
    { name: "income (limit=50)", path: `/v1/income?owner=${heavy}&limit=50` },
    { name: "actions list", path: `/v2/actions?owner=${heavy}&limit=50` },
    { name: "action detail", path: `/v2/actions/${action}?owner=${heavy}` },
  ];
}

/** Serves the ledger as `setup` says, loads every route, stops. */
async function httpRoutes(setup: string, key: string, routes: { name: string; path: string }[], serveWith: () => Promise<{ urls: string[]; stop(): Promise<void> }>): Promise<HttpRow[]> {
  const served = await serveWith();
  const rows: HttpRow[] = [];
  try {
    for (const r of routes) {
      await cannon(served.urls, r.path, key, 0.5);
      const load = await cannon(served.urls, r.path, key);
      if (load.errors) console.error(`warning: ${setup} ${r.name}: ${load.errors} errors or non-2xx`);
      rows.push({ setup, route: r.name, load });
      console.error(`  ${setup} ${r.name}: ${Math.round(load.rps)}/s`);
    }
  } finally {
    await served.stop();
  }
  return rows;
}

/** `n` servers of the binary on a ledger, without pollers or jobs to run (reads only). */
async function servers(dataDir: string, n: number, databaseUrl?: string) {
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const proc = Bun.spawn([binary, "serve", "--data-dir", dataDir, "--port", String(port)], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dataDir,
        NO_COLOR: "1",
        LOG_LEVEL: "warn",
        RATE_LIMIT_PER_MINUTE: "1000000000",
        SOLANA_RPC_URL: "http://127.0.0.1:9",
        XSTOCKS_API_URL: "off",
        RESYNC_SECONDS: "0",
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    for (let t = 0; ; t++) {
      try {
        if ((await fetch(`${url}/v1/health`)).status === 200) break;
      } catch {}
      if (t > 3000) throw new Error("serve did not start");
      await Bun.sleep(5);
    }
    urls.push(url);
  }
  return {
    urls,
    async stop() {
      for (const p of procs) p.kill("SIGTERM");
      await Promise.all(procs.map((p) => p.exited));
    },
  };
}

async function main() {
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), "cal-bench-driver-"));
  dirs.push(scratch);
  const drivers = [await driver("bun:sqlite", scratch), await driver("Bun SQL (PostgreSQL)", { dataDir: scratch, databaseUrl: await freshDatabase() })];
  console.error(`(1) sync throughput, ${SYNC_WALLETS} wallets`);
  const sync = [
    await syncThroughput("SQLite, 1 server", {}),
    await syncThroughput("PostgreSQL, 1 server", { databaseUrl: await freshDatabase() }),
    await syncThroughput("PostgreSQL, 2 servers", { databaseUrl: await freshDatabase(), servers: 2 }),
  ];

  console.error(`(2) ${WALLETS} wallets grown on SQLite by real syncs`);
  const run = await startScaleRun(env);
  dirs.push(run.dataDir);
  const growS = await run.grow(0, WALLETS, WALLETS);
  const heavy = run.scale.heavyWallet();
  await run.register(heavy);
  await run.until(
    "the heavy wallet synced",
    async () => (await run.one(q<{ n: number }>`SELECT count(*) AS n FROM sync_jobs WHERE owner = ${heavy} AND status = 'complete'`)).n === 1 && (await run.pendingMarks()) === 0,
    600_000,
  );
  const routes = await routesOf(run, heavy);
  await run.stop();
  const databaseUrl = await freshDatabase();
  const t = performance.now();
  const copied = Bun.spawnSync([binary, "migrate-to-postgres", "--data-dir", run.dataDir, "--database-url", databaseUrl, "--json"], { env: { PATH: process.env.PATH ?? "" } });
  const copyS = (performance.now() - t) / 1000;
  if (copied.exitCode !== 0) throw new Error(`migrate-to-postgres: ${copied.stderr.toString()}`);
  const copy = JSON.parse(copied.stdout.toString()) as { rows: number; ok: boolean };
  console.error(`  grown in ${growS.toFixed(0)} s; migrate-to-postgres copied and verified ${copy.rows} rows in ${copyS.toFixed(1)} s`);

  const http = [
    ...(await httpRoutes("SQLite, 1 server", run.key, routes, () => servers(run.dataDir, 1))),
    ...(await httpRoutes("PostgreSQL, 1 server", run.key, routes, () => servers(run.dataDir, 1, databaseUrl))),
    ...(await httpRoutes("PostgreSQL, 2 servers", run.key, routes, () => servers(run.dataDir, 2, databaseUrl))),
  ];
  report(drivers, sync, http, { growS, copyS, copiedRows: copy.rows });
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const out = opt("json", "");
  if (out) writeFileSync(out, JSON.stringify({ drivers, sync, http, growS, copyS, copiedRows: copy.rows }, null, 2));
}

function report(drivers: DriverRow[], sync: SyncRow[], http: HttpRow[], copy: { growS: number; copyS: number; copiedRows: number }) {
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(`\nbench/postgres — the compiled binary; PostgreSQL ${SERVER.replace(/\/\/[^@]*@/, "//")}\n`);
  console.log("the driver, through the port: µs per point read (1,000 reads)\n");
  console.log("| driver | one after another | in one transaction | all at once |\n|---|---|---|---|");
  for (const d of drivers) console.log(`| ${d.engine} | ${f(d.sequentialUs, 1)} | ${f(d.inTransactionUs, 1)} | ${f(d.concurrentUs, 1)} |`);
  console.log("");
  console.log(`sync throughput: ${SYNC_WALLETS} wallets registered over HTTP (16 at a time), synced and booked\n`);
  console.log("| setup | seconds | wallets/s | ratio to SQLite |\n|---|---|---|---|");
  for (const r of sync) console.log(`| ${r.setup} | ${f(r.seconds, 1)} | ${f(r.walletsPerSecond)} | ${f(r.walletsPerSecond / sync[0]!.walletsPerSecond, 2)} |`);
  console.log(`\n${WALLETS}-wallet ledger grown on SQLite in ${f(copy.growS)} s; migrate-to-postgres copied and verified ${copy.copiedRows} rows in ${f(copy.copyS, 1)} s\n`);
  console.log(`HTTP routes, ${CONNECTIONS} connections (two servers: ${CONNECTIONS / 2} each, summed), ${DURATION} s per run\n`);
  console.log("| route | SQLite 1 server req/s · p50 · p99 ms | PostgreSQL 1 server | ratio | PostgreSQL 2 servers | ratio |\n|---|---|---|---|---|---|");
  for (const route of [...new Set(http.map((r) => r.route))]) {
    const [a, b, c] = ["SQLite, 1 server", "PostgreSQL, 1 server", "PostgreSQL, 2 servers"].map((s) => http.find((r) => r.setup === s && r.route === route)!.load);
    const cell = (l: Load) => `${f(l.rps)} · ${f(l.p50, 1)} · ${f(l.p99, 1)}`;
    console.log(`| ${route} | ${cell(a!)} | ${cell(b!)} | ${f(b!.rps / a!.rps, 2)} | ${cell(c!)} | ${f(c!.rps / a!.rps, 2)} |`);
  }
}

try {
  await main();
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
