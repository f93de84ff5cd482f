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
//     run (probed from another thread), beside the same figures for a server that does nothing
//     (another process; the baseline for the machine's own scheduling noise, same run);
//   - the bytes the server process wrote during that re-booking, from /proc/<pid>/io (every
//     thread): `wchar`, the bytes it handed to write() (the WAL's frames, the checkpoints into the
//     database, SQLite's temporary files, and the little its HTTP answers to the prober take), the
//     figure the target is set on; beside it write_bytes less cancelled_write_bytes, what the
//     kernel counted towards the disk (whole pages, each time one is dirtied again: here it
//     counted about three times wchar for the same WAL traffic, and varies with write-back);
//   - the server's peak RSS (VmHWM, both of its threads), the database size (file and WAL, once the
//     server's booking is idle and it has emptied its WAL) and that size per followed wallet; after
//     the last size, where the bytes are (SQLite's dbstat).
//
//   ./node_modules/.bin/bun bench/scale.ts [--sizes 100,1000,10000] [--new 20] [--json out.json] [--keep]
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { HONX_HOLDERS } from "./lib/scale-chain.ts";
import { binary, startScaleRun } from "./lib/scale-run.ts";
import { median, quantile } from "./lib/stats.ts";
import { q } from "../test/support/sql.ts";
import { ledgerBytesOnDisk } from "../src/ledger/db.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const SIZES = opt("sizes", "100,1000,10000").split(",").map(Number);
const NEW = Number(opt("new", "20"));
const targets = { newSyncRatio: 1.5, healthMs: 50, rebookS: 2, rssMb: 300, rpcCalls: 12, kibPerWallet: 32, rebookWrittenMb: 20 };

const run = await startScaleRun();
const { url, key, scale, rpc, issuerData, dbPath, one, register, until } = run;
const headers = { authorization: `Bearer ${key}` };

// The do-nothing server: a separate process, so it competes for the cores like ca-ledger does.
const idle = Bun.spawn([process.execPath, "-e", "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') }); console.log(s.port)"], { stdout: "pipe" });
const idlePort = await firstLine(idle.stdout as ReadableStream<Uint8Array>);
const prober = new Worker(new URL("./lib/prober.ts", import.meta.url).href);
prober.postMessage({ type: "start", url, key, owner: scale.wallet(0), baseline: `http://127.0.0.1:${idlePort}/` });
interface Probe {
  health: number[];
  portfolio: number[];
  baseline: number[];
  errors: number;
}
const probeReport = () =>
  new Promise<Probe>((resolve) => {
    prober.onmessage = (e) => resolve(e.data);
    prober.postMessage({ type: "report" });
  });

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.pid}/status`, "utf8"))![1]) / 1024;
const dbBytes = () => ledgerBytesOnDisk(dbPath);
/** Bytes the server process (all its threads) has written so far: handed to write(), and counted towards the disk. */
const writtenBytes = () => {
  const io = readFileSync(`/proc/${run.pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)![1]);
  return { handed: field("wchar"), disk: field("write_bytes") - field("cancelled_write_bytes") };
};
/**
 * Once booking is idle the server empties the WAL (docs/storage.md#the-wal), within half a second
 * when a reader held it: the bytes written and the size on disk are both read after that (or after
 * 5 s, for a server that does not), so they count the WAL's copy into the database, and not the
 * WAL of the moment.
 */
const walSettled = () => until("the WAL emptied", () => !existsSync(`${dbPath}-wal`) || statSync(`${dbPath}-wal`).size <= 64 * 1024, 5_000).catch(() => {});
const followed = async () => (await one(q<{ n: number }>`SELECT count(DISTINCT owner) AS n FROM tenant_wallets`)).n;

/** Pages per table and index of the stopped server's database. */
function whereTheBytesAre(): { name: string; bytes: number; unused: number }[] {
  const db = new Database(dbPath);
  try {
    return db.query("SELECT name, SUM(pgsize) AS bytes, SUM(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 15").all() as { name: string; bytes: number; unused: number }[];
  } finally {
    db.close();
  }
}

/** One new wallet, alone: registration to `complete`, and the RPC calls it took. */
async function newWallet(index: number): Promise<{ ms: number; calls: number }> {
  const owner = scale.wallet(index);
  const before = rpc.requests;
  const t = performance.now();
  await register(owner);
  for (;;) {
    const s = (await (await fetch(`${url}/v1/wallets/${owner}/status`, { headers })).json()) as { status: string };
    if (s.status === "complete" || s.status === "partial") break;
    await Bun.sleep(2);
  }
  return { ms: performance.now() - t, calls: rpc.requests - before };
}

/** A corrected revision of a HONx dividend record; the time from its storage to the 1,000 holders re-booked. */
async function rebookAfterIssuerRecord(k: number): Promise<{ seconds: number; wallets: number; writtenMb: number; diskMb: number }> {
  const written = writtenBytes();
  const records = issuerData.history.filter((r) => r.xstockSymbol === "HONx" && r.caType === "CashDividend");
  const base = records[records.length - 1]!;
  const top = Math.max(...issuerData.history.filter((r) => r.eventId === base.eventId).map((r) => r.version));
  const net = (Number(base.netCashflowUsd ?? "0.5") + (k + 1) / 1000).toFixed(6);
  issuerData.history.push({ ...base, version: top + 1, netCashflowUsd: net, status: "Corrected" });
  const reversals = async () => (await one(q<{ n: number }>`SELECT count(*) AS n FROM journal WHERE entry_type = 'reversal'`)).n;
  const reversalsBefore = await reversals();
  await until("the revision stored", async () => (await one(q<{ n: number }>`SELECT count(*) AS n FROM issuer_revisions WHERE event_id = ${base.eventId} AND version = ${top + 1}`)).n === 1, 30_000);
  const storedAt = Date.parse((await one(q<{ at: string }>`SELECT ingested_at AS at FROM issuer_revisions WHERE event_id = ${base.eventId} AND version = ${top + 1}`)).at);
  await until("the re-booking", async () => (await run.pendingMarks()) === 0 && (await reversals()) >= reversalsBefore + HONX_HOLDERS, 600_000);
  const wallets = (await reversals()) - reversalsBefore;
  const seconds = (Date.now() - storedAt) / 1000;
  await walSettled();
  const after = writtenBytes();
  return { seconds, wallets, writtenMb: (after.handed - written.handed) / 2 ** 20, diskMb: (after.disk - written.disk) / 2 ** 20 };
}

interface Latency {
  healthMax: number;
  healthP99: number;
  portfolioP99: number;
  idleMax: number;
  idleP99: number;
}
interface Row {
  size: number;
  growS: number;
  newSyncMs: number;
  ratio: number;
  rpcCalls: number;
  rebookS: number | null;
  rebookWallets: number | null;
  rebookWrittenMb: number | null;
  rebookDiskMb: number | null;
  growing: Latency;
  settled: Latency;
  rssMb: number;
  dbMb: number;
  /** Wallets followed when the size was measured (the size and its new wallets). */
  followed: number;
  kibPerWallet: number;
  probeErrors: number;
}
const latency = (p: Probe): Latency => ({
  healthMax: Math.max(...p.health),
  healthP99: quantile(p.health, 0.99),
  portfolioP99: quantile(p.portfolio, 0.99),
  idleMax: Math.max(...p.baseline),
  idleP99: quantile(p.baseline, 0.99),
});
const rows: Row[] = [];
let registered = 0;
let probes = 0;
try {
  for (const size of SIZES) {
    await probeReport(); // reset
    const growS = await run.grow(registered, size, size + probes);
    const growing = await probeReport();
    registered = size;
    const news: { ms: number; calls: number }[] = [];
    for (let k = 0; k < NEW; k++) news.push(await newWallet(1_000_000 + size * 1000 + k));
    probes += NEW;
    const rebook = size >= HONX_HOLDERS ? await rebookAfterIssuerRecord(rows.length) : null;
    const settled = await probeReport();
    const newSyncMs = median(news.map((n) => n.ms));
    await walSettled();
    const bytes = dbBytes();
    const wallets = await followed();
    rows.push({
      size,
      growS,
      newSyncMs,
      ratio: rows.length ? newSyncMs / rows[0]!.newSyncMs : 1,
      rpcCalls: median(news.map((n) => n.calls)),
      rebookS: rebook?.seconds ?? null,
      rebookWallets: rebook?.wallets ?? null,
      rebookWrittenMb: rebook?.writtenMb ?? null,
      rebookDiskMb: rebook?.diskMb ?? null,
      growing: latency(growing),
      settled: latency(settled),
      rssMb: peakRssMb(),
      dbMb: bytes / 2 ** 20,
      followed: wallets,
      kibPerWallet: bytes / 1024 / wallets,
      probeErrors: growing.errors + settled.errors,
    });
    const r = rows.at(-1)!;
    console.log(
      `${size} wallets: grown in ${growS.toFixed(1)} s (${Math.round((size - (rows.length > 1 ? rows.at(-2)!.size : 0)) / growS)} wallets/s); new wallet ${newSyncMs.toFixed(0)} ms (${r.ratio.toFixed(2)}×), ${r.rpcCalls} RPC calls; ` +
        `re-book ${rebook ? `${rebook.wallets} wallets in ${rebook.seconds.toFixed(2)} s, ${rebook.writtenMb.toFixed(1)} MiB written (${rebook.diskMb.toFixed(1)} MiB counted towards the disk)` : "-"}; health max ${r.growing.healthMax.toFixed(1)} / ${r.settled.healthMax.toFixed(1)} ms (idle server ${r.growing.idleMax.toFixed(1)} / ${r.settled.idleMax.toFixed(1)}); RSS ${r.rssMb.toFixed(0)} MiB; db ${r.dbMb.toFixed(1)} MiB (${r.kibPerWallet.toFixed(1)} KiB per wallet)`,
    );
  }
} finally {
  prober.postMessage({ type: "stop" });
  prober.terminate();
  idle.kill();
  await run.stop();
}

const mark = (ok: boolean) => (ok ? "" : " ✗");
const f = (x: number) => x.toFixed(1);
console.log("\nPhases: 'growing' while the size's wallets register and sync (16 registrations at a time, 4 syncs); 'settled' while new wallets sync one at a time and 1,000 wallets re-book.");
console.log(
  "| wallets | new wallet sync ms | ratio to first | RPC calls / new wallet | re-book 1,000 wallets s | /v1/health max ms growing · settled | /v1/health p99 growing | /v1/portfolio p99 growing | idle server max · p99 growing | peak RSS MiB | db MiB | db KiB / wallet | re-book MiB written · towards the disk |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.size} | ${r.newSyncMs.toFixed(0)} | ${r.ratio.toFixed(2)}${mark(r.ratio <= targets.newSyncRatio)} | ${r.rpcCalls}${mark(r.rpcCalls <= targets.rpcCalls)} | ${r.rebookS === null ? "-" : r.rebookS.toFixed(2) + mark(r.rebookS < targets.rebookS)} | ${f(r.growing.healthMax)}${mark(r.growing.healthMax < targets.healthMs)} · ${f(r.settled.healthMax)}${mark(r.settled.healthMax < targets.healthMs)} | ${f(r.growing.healthP99)} | ${f(r.growing.portfolioP99)} | ${f(r.growing.idleMax)} · ${f(r.growing.idleP99)} | ${r.rssMb.toFixed(0)}${mark(r.rssMb < targets.rssMb)} | ${r.dbMb.toFixed(1)} | ${r.kibPerWallet.toFixed(1)}${mark(r.kibPerWallet <= targets.kibPerWallet)} | ${r.rebookWrittenMb === null ? "-" : `${r.rebookWrittenMb.toFixed(1)}${mark(r.rebookWrittenMb <= targets.rebookWrittenMb)} · ${r.rebookDiskMb!.toFixed(1)}`} |`,
  );
}
console.log(
  `targets: new wallet ≤ ${targets.newSyncRatio}× the first size, ≤ ${targets.rpcCalls} RPC calls, re-book < ${targets.rebookS} s, /v1/health < ${targets.healthMs} ms, RSS < ${targets.rssMb} MiB, ≤ ${targets.kibPerWallet} KiB per wallet, re-book ≤ ${targets.rebookWrittenMb} MiB written`,
);
console.log("\nWhere the bytes are at the last size (SQLite's dbstat: each table and index, the largest first, and how much of its pages is empty):");
console.log(
  whereTheBytesAre()
    .map((t) => `  ${t.name}: ${(t.bytes / 2 ** 20).toFixed(1)} MiB (${(t.unused / 2 ** 20).toFixed(1)} empty)`)
    .join("\n"),
);
// What `ca-ledger compact` gives back once the server is stopped (docs/storage.md#compacting-a-ledger):
// the pages left part full by rows placed in key order. Reported beside the target, not against it:
// the server never compacts on its own.
const last = rows.at(-1);
if (last && existsSync(dbPath)) {
  const compact = Bun.spawnSync([binary, "compact", "--data-dir", run.dataDir, "--json"], { env: { PATH: process.env.PATH ?? "", HOME: run.dataDir } });
  if (compact.exitCode === 0) {
    const { bytesAfter } = JSON.parse(compact.stdout.toString()) as { bytesAfter: number };
    console.log(`\nAfter \`ca-ledger compact\` with the server stopped: ${(bytesAfter / 2 ** 20).toFixed(1)} MiB (${(bytesAfter / 1024 / last.followed).toFixed(1)} KiB per wallet)`);
  } else console.log(`\nca-ledger compact failed: ${compact.stderr.toString().trim()}`);
}
const json = opt("json", "");
if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
if (args.includes("--keep")) console.log(`data dir kept: ${run.dataDir}`);
else rmSync(run.dataDir, { recursive: true, force: true });
