// bench/scale: following thousands of wallets through the path users run. The compiled binary
// serves a data dir and syncs real jobs from loopback JSON-RPC and xStocks servers (real wire
// formats, the 13 recorded xStocks mints and their issuer records; see lib/scale-chain.ts). The
// ledger grows to each size by registering wallets over HTTP; at each size it measures:
//   - a new wallet's sync (registration to `complete`), median of --new wallets, and its ratio to
//     the same figure at the first size (the baseline, same run);
//   - RPC calls per new wallet (two mints, one transfer each, warm ledger);
//   - re-booking after one new issuer record on HONx, held by 1,000 wallets (from the revision's
//     storage to the last of those wallets booked);
//   - the worst /v1/health latency and the p99 of /v1/portfolio while the syncs and the re-booking
//     run (probed from another thread);
//   - the server's peak RSS (VmHWM, both of its threads) and the database size.
//
//   ./node_modules/.bin/bun bench/scale.ts [--sizes 100,1000,10000] [--new 20] [--json out.json] [--keep]
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadIssuerFixture, startIssuerServer } from "../test/support/issuer-server.ts";
import { startRpcServer } from "../test/support/rpc-server.ts";
import { buildScaleChain, HONX_HOLDERS } from "./lib/scale-chain.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1]! : dflt; };
const SIZES = opt("sizes", "100,1000,10000").split(",").map(Number);
const NEW = Number(opt("new", "20"));
const targets = { newSyncRatio: 1.5, healthMs: 50, rebookS: 2, rssMb: 300, rpcCalls: 12 };

const repoRoot = join(import.meta.dir, "..");
const binary = join(repoRoot, "dist", "ca-ledger");
if (!existsSync(binary)) throw new Error("build the binary first: npm run build");
const dataDir = mkdtempSync(join(tmpdir(), "cal-bench-scale-"));
const dbPath = join(dataDir, "ledger.db");

const scale = buildScaleChain();
const rpc = startRpcServer(scale.chain);
const issuerData = loadIssuerFixture();
const issuer = startIssuerServer(issuerData);
const env = {
  PATH: process.env.PATH ?? "", HOME: dataDir, NO_COLOR: "1", LOG_LEVEL: "warn",
  SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: issuer.url, ISSUER_POLL_SECONDS: "2", MINT_POLL_SECONDS: "3600", RESYNC_SECONDS: "0",
  MAX_WALLETS_PER_TENANT: "1000000", RATE_LIMIT_PER_MINUTE: "1000000000", AUTH_FAILURES_PER_MINUTE: "1000000000",
};

const keyRun = Bun.spawnSync([binary, "keys", "create", "bench", "--tenant", "bench", "--scopes", "wallets:sync,ledger:read", "--json", "--data-dir", dataDir], { env });
if (keyRun.exitCode !== 0) throw new Error(keyRun.stderr.toString());
const key = JSON.parse(keyRun.stdout.toString()).key as string;
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

const port = (() => { const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }); const p = s.port; s.stop(true); return p; })();
const url = `http://127.0.0.1:${port}`;
const proc = Bun.spawn([binary, "serve", "--data-dir", dataDir, "--port", String(port)], { env, stdout: "ignore", stderr: "inherit" });
for (let i = 0; ; i++) {
  try { if ((await fetch(`${url}/v1/health`)).status === 200) break; } catch {}
  if (i > 3000) throw new Error("serve did not start");
  await Bun.sleep(5);
}

const db = new Database(dbPath, { readonly: true });
const one = <T>(sql: string, ...p: (string | number)[]) => db.query(sql).get(...p) as T;
const finishedJobs = () => one<{ n: number }>("SELECT count(*) AS n FROM sync_jobs WHERE status IN ('complete', 'partial')").n;
const pendingMarks = () => one<{ n: number }>("SELECT (SELECT count(*) FROM dirty_wallets) + (SELECT count(*) FROM dirty_mints) AS n").n;
const register = (owner: string) => fetch(`${url}/v1/wallets/sync`, { method: "POST", headers, body: JSON.stringify({ owner }) }).then((r) => { if (r.status !== 202) throw new Error(`register: ${r.status}`); });

const prober = new Worker(new URL("./lib/prober.ts", import.meta.url).href);
prober.postMessage({ type: "start", url, key, owner: scale.wallet(0) });
const probeReport = () => new Promise<{ health: number[]; portfolio: number[]; errors: number }>((resolve) => { prober.onmessage = (e) => resolve(e.data); prober.postMessage({ type: "report" }); });

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))]! : NaN; };
const median = (xs: number[]) => pct(xs, 0.5);
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))![1]) / 1024;
const dbMb = () => ["", "-wal"].reduce((s, x) => s + (existsSync(dbPath + x) ? statSync(dbPath + x).size : 0), 0) / 2 ** 20;

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out: ${what}`);
    await Bun.sleep(20);
  }
}

/** Registers wallets [from, to) over HTTP, 16 at a time, and waits for every job and booking. */
async function grow(from: number, to: number, expectedFinished: number): Promise<number> {
  const t = performance.now();
  let next = from;
  await Promise.all(Array.from({ length: 16 }, async () => { while (next < to) await register(scale.wallet(next++)); }));
  await until(`${to} wallets synced`, () => finishedJobs() >= expectedFinished && pendingMarks() === 0, 3_600_000);
  return (performance.now() - t) / 1000;
}

/** One new wallet, alone: registration to `complete`, and the RPC calls it took. */
async function newWallet(index: number): Promise<{ ms: number; calls: number }> {
  const owner = scale.wallet(index);
  const before = rpc.requests;
  const t = performance.now();
  await register(owner);
  for (;;) {
    const s = await (await fetch(`${url}/v1/wallets/${owner}/status`, { headers })).json() as { status: string };
    if (s.status === "complete" || s.status === "partial") break;
    await Bun.sleep(2);
  }
  return { ms: performance.now() - t, calls: rpc.requests - before };
}

/** A corrected revision of a HONx dividend record; the time from its storage to the 1,000 holders re-booked. */
async function rebookAfterIssuerRecord(k: number): Promise<{ seconds: number; wallets: number }> {
  const records = issuerData.history.filter((r) => r.xstockSymbol === "HONx" && r.caType === "CashDividend");
  const base = records[records.length - 1]!;
  const top = Math.max(...issuerData.history.filter((r) => r.eventId === base.eventId).map((r) => r.version));
  const net = (Number(base.netCashflowUsd ?? "0.5") + (k + 1) / 1000).toFixed(6);
  issuerData.history.push({ ...base, version: top + 1, netCashflowUsd: net, status: "Corrected" });
  const reversalsBefore = one<{ n: number }>("SELECT count(*) AS n FROM journal WHERE entry_type = 'reversal'").n;
  await until("the revision stored", () => one<{ n: number }>("SELECT count(*) AS n FROM issuer_revisions WHERE event_id = ? AND version = ?", base.eventId, top + 1).n === 1, 30_000);
  const storedAt = Date.parse(one<{ at: string }>("SELECT ingested_at AS at FROM issuer_revisions WHERE event_id = ? AND version = ?", base.eventId, top + 1).at);
  await until("the re-booking", () => pendingMarks() === 0 && one<{ n: number }>("SELECT count(*) AS n FROM journal WHERE entry_type = 'reversal'").n >= reversalsBefore + HONX_HOLDERS, 600_000);
  const wallets = one<{ n: number }>("SELECT count(*) AS n FROM journal WHERE entry_type = 'reversal'").n - reversalsBefore;
  return { seconds: (Date.now() - storedAt) / 1000, wallets };
}

interface Row { size: number; growS: number; newSyncMs: number; ratio: number; rpcCalls: number; rebookS: number | null; rebookWallets: number | null; healthMaxMs: number; portfolioP99Ms: number; rssMb: number; dbMb: number; probeErrors: number }
const rows: Row[] = [];
let registered = 0;
let probes = 0;
try {
  for (const size of SIZES) {
    await probeReport(); // reset
    const growS = await grow(registered, size, size + probes);
    registered = size;
    const news: { ms: number; calls: number }[] = [];
    for (let k = 0; k < NEW; k++) news.push(await newWallet(1_000_000 + size * 1000 + k));
    probes += NEW;
    const rebook = size >= HONX_HOLDERS ? await rebookAfterIssuerRecord(rows.length) : null;
    const probe = await probeReport();
    const newSyncMs = median(news.map((n) => n.ms));
    rows.push({
      size, growS, newSyncMs, ratio: rows.length ? newSyncMs / rows[0]!.newSyncMs : 1, rpcCalls: median(news.map((n) => n.calls)),
      rebookS: rebook?.seconds ?? null, rebookWallets: rebook?.wallets ?? null,
      healthMaxMs: Math.max(...probe.health), portfolioP99Ms: pct(probe.portfolio, 0.99), rssMb: peakRssMb(), dbMb: dbMb(), probeErrors: probe.errors,
    });
    const r = rows.at(-1)!;
    console.log(`${size} wallets: grown in ${growS.toFixed(1)} s; new wallet ${newSyncMs.toFixed(0)} ms (${r.ratio.toFixed(2)}×), ${r.rpcCalls} RPC calls; ` +
      `re-book ${rebook ? `${rebook.wallets} wallets in ${rebook.seconds.toFixed(2)} s` : "-"}; health max ${r.healthMaxMs.toFixed(1)} ms, portfolio p99 ${r.portfolioP99Ms.toFixed(1)} ms; RSS ${r.rssMb.toFixed(0)} MiB; db ${r.dbMb.toFixed(1)} MiB`);
  }
} finally {
  prober.postMessage({ type: "stop" });
  prober.terminate();
  proc.kill("SIGTERM");
  await proc.exited;
  db.close();
  rpc.stop();
  issuer.stop();
}

const mark = (ok: boolean) => (ok ? "" : " ✗");
console.log("\n| wallets | new wallet sync ms | ratio to first | RPC calls / new wallet | re-book 1,000 wallets s | worst /v1/health ms | /v1/portfolio p99 ms | peak RSS MiB | db MiB |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.size} | ${r.newSyncMs.toFixed(0)} | ${r.ratio.toFixed(2)}${mark(r.ratio <= targets.newSyncRatio)} | ${r.rpcCalls}${mark(r.rpcCalls <= targets.rpcCalls)} | ${r.rebookS === null ? "-" : r.rebookS.toFixed(2) + mark(r.rebookS < targets.rebookS)} | ${r.healthMaxMs.toFixed(1)}${mark(r.healthMaxMs < targets.healthMs)} | ${r.portfolioP99Ms.toFixed(1)} | ${r.rssMb.toFixed(0)}${mark(r.rssMb < targets.rssMb)} | ${r.dbMb.toFixed(1)} |`);
}
console.log(`targets: new wallet ≤ ${targets.newSyncRatio}× the first size, ≤ ${targets.rpcCalls} RPC calls, re-book < ${targets.rebookS} s, /v1/health < ${targets.healthMs} ms, RSS < ${targets.rssMb} MiB`);
const json = opt("json", "");
if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
if (args.includes("--keep")) console.log(`data dir kept: ${dataDir}`);
else rmSync(dataDir, { recursive: true, force: true });
