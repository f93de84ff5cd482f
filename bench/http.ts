// bench/http: the compiled binary (`dist/ca-ledger serve`) under autocannon, 64 connections, on
// (a) the demo ledger (`serve --demo`) and (b) a 10,000-wallet ledger grown the way users grow one
// (bench/lib/scale-run.ts: wallets registered over HTTP and synced by the binary's worker from
// loopback JSON-RPC and xStocks servers, plus one wallet holding all 13 recorded mints), for
// portfolio, income (limit=50), actions list and action detail. In the same run, the minimum work
// per route (bench/lib/min-server.ts: raw bun:sqlite + JSON.stringify in a bare Bun.serve child
// process, same file, same SQL) and the same bytes served as a constant. Prints requests/s,
// p50/p99, the server's peak RSS (VmHWM), our throughput / minimum, and cold start to the first
// 200 on /v1/health (median of 5). With --baseline <binary> (an earlier build), that binary
// serves a copy of each ledger beside ours and is measured in the same run, route by route,
// against the same minimum: before and after in one table. Each route is measured for `--rounds`
// rounds (default 3): ours, the baseline and the minimum in turn, in reverse order every other
// round; the table gives each server's medians, and as its ratio the median of the rounds' own
// ratios (a round's runs are seconds apart, so the machine's drifting load moves them less than
// it moves one pass per server: a single pass read the same build from 0.56 to 0.76).
//
//   ./node_modules/.bin/bun bench/http.ts [--duration 3] [--connections 64] [--rounds 3] [--wallets 10000 | --ledger DIR] [--rebuild] [--baseline old-binary] [--json out.json]
//
// With `--before PATH` (another build of the binary, e.g. main's), only the demo ledger's routes,
// each binary serving its own demo, the two measured in turn for `--rounds` rounds (default 3):
// requests/s and p99 before and after, medians over the rounds.
// @ts-expect-error autocannon ships no types
import autocannon from "autocannon";
import { Database } from "bun:sqlite";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { busiestWallet, richestAction } from "./lib/read-picks.ts";
import { startScaleRun } from "./lib/scale-run.ts";
import { benchServerEnv, freePort, waitHealthy } from "./lib/served-binary.ts";
import { median } from "./lib/stats.ts";
import { inTurn } from "./lib/turns.ts";
import { q } from "../test/support/sql.ts";

const repoRoot = join(import.meta.dir, "..");
const binary = join(repoRoot, "dist", "ca-ledger");
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const DURATION = Number(opt("duration", "3"));
const BASELINE = opt("baseline", "");
const CONNECTIONS = Number(opt("connections", "64"));
/** The grown ledger's wallets (10,000; fewer for a quicker look, e.g. `--wallets 2000`). */
const WALLETS = Number(opt("wallets", "10000"));
const sizeLabel = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
let BIG = sizeLabel(WALLETS);
/** A ledger grown before (a data dir with the heavy wallet, e.g. a bench/scale run's): a copy is read instead of growing one. */
const LEDGER = opt("ledger", "");
const WARMUP = 0.5;
const ROUNDS = Number(opt("rounds", "3"));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a whole number of at least 1");
const targets = { ratio: 0.7, p99Ms: 25, rssMb: 200, coldMs: 300 };
const dirs: string[] = [];
const children: { kill(): void }[] = [];
const tmp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  dirs.push(d);
  return d;
};
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Served {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
}

function serve(dataDir: string, demo: boolean, bin = binary): Served {
  const port = freePort();
  const proc = Bun.spawn([bin, "serve", "--port", String(port), "--data-dir", dataDir, ...(demo ? ["--demo"] : [])], { env: benchServerEnv(), stdout: "ignore", stderr: "ignore" });
  children.push(proc);
  return { proc, url: `http://127.0.0.1:${port}` };
}

async function stop(s: { proc: ReturnType<typeof Bun.spawn> }) {
  s.proc.kill("SIGTERM");
  await Promise.race([s.proc.exited, Bun.sleep(3000)]);
  if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  bytes: number;
}

async function cannon(url: string, headers: Record<string, string>, duration = DURATION): Promise<Load> {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, bytes: r.throughput.average / Math.max(1, r.requests.average) };
}

interface RouteSpec {
  name: string;
  path: string;
}
interface Row {
  ledger: string;
  route: string;
  /** Each server's medians over the rounds. */
  ours: Load;
  baseline?: Load;
  min: Load;
  constant: Load;
  /** The median of the rounds' own ratios of requests/s, ours (or the baseline's) over the minimum's. */
  ratio: number;
  baselineRatio?: number;
  rssMb: number;
  bodyBytes: number;
}

/** Each figure's median over the rounds. */
function medianLoad(loads: Load[]): Load {
  const m = (k: keyof Load) => median(loads.map((l) => l[k]));
  return { rps: m("rps"), p50: m("p50"), p99: m("p99"), non2xx: Math.max(...loads.map((l) => l.non2xx)), errors: Math.max(...loads.map((l) => l.errors)), bytes: m("bytes") };
}

/** `base`: the baseline binary serving a copy of the same ledger, measured right after ours on each route. */
async function benchLedger(label: string, s: Served, key: string, dbPath: string, routes: RouteSpec[], base?: Served): Promise<Row[]> {
  const headers = { authorization: `Bearer ${key}` };
  // The bytes ours answers, for the constant server and a sanity check.
  const constants: Record<string, string> = {};
  for (const r of routes) {
    const res = await fetch(s.url + r.path, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${label} ${r.path}: ${res.status} ${text.slice(0, 200)}`);
    constants[r.path] = text;
  }
  const constFile = join(tmp("cal-bench-const-"), "constants.json");
  writeFileSync(constFile, JSON.stringify(constants));
  const sqlPort = freePort(),
    constPort = freePort();
  const min = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "min-server.ts"), dbPath, String(sqlPort), String(constPort), constFile], { stdout: "pipe", stderr: "inherit" });
  children.push(min);
  const reader = (min.stdout as ReadableStream<Uint8Array>).getReader();
  await reader.read(); // "ready"
  const minUrl = `http://127.0.0.1:${sqlPort}`,
    constUrl = `http://127.0.0.1:${constPort}`;
  const minBody = await (await fetch(minUrl + routes[0]!.path)).text();
  if (!minBody.startsWith("{")) throw new Error("min server answered " + minBody.slice(0, 100));

  const rows: Row[] = [];
  for (const r of routes) {
    if (base) {
      const same = await (await fetch(base.url + r.path, { headers })).text();
      if (same.length !== constants[r.path]!.length) console.error(`warning: ${label} ${r.name}: the baseline answers ${same.length} bytes, ours ${constants[r.path]!.length}`);
    }
    const sides = [{ who: "ours", url: s.url, headers }, ...(base ? [{ who: "baseline", url: base.url, headers }] : []), { who: "min", url: minUrl, headers: {} }];
    for (const side of sides) await cannon(side.url + r.path, side.headers, WARMUP);
    const runs = new Map<string, Load[]>(sides.map((side) => [side.who, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of inTurn(sides, round)) runs.get(side.who)!.push(await cannon(side.url + r.path, side.headers));
    }
    const rssMb = peakRssMb(s.proc.pid);
    const byRound = (who: string) => median(runs.get(who)!.map((l, i) => l.rps / runs.get("min")![i]!.rps));
    const ours = medianLoad(runs.get("ours")!);
    const baseline = base ? medianLoad(runs.get("baseline")!) : undefined;
    const m = medianLoad(runs.get("min")!);
    const c = await cannon(constUrl + r.path, {});
    for (const [who, l] of [
      ["ours", ours],
      ["baseline", baseline],
      ["min", m],
      ["const", c],
    ] as const) {
      if (l && (l.non2xx || l.errors)) console.error(`warning: ${label} ${r.name} ${who}: ${l.non2xx} non-2xx, ${l.errors} errors`);
    }
    const ratio = byRound("ours");
    const baselineRatio = base ? byRound("baseline") : undefined;
    rows.push({ ledger: label, route: r.name, ours, baseline, min: m, constant: c, ratio, baselineRatio, rssMb, bodyBytes: constants[r.path]!.length });
    console.error(
      `  ${label} ${r.name}: ours ${Math.round(ours.rps)}/s (${ratio.toFixed(2)})${baseline ? `, baseline ${Math.round(baseline.rps)}/s (${baselineRatio!.toFixed(2)})` : ""}, min ${Math.round(m.rps)}/s, const ${Math.round(c.rps)}/s`,
    );
  }
  min.kill();
  await min.exited;
  return rows;
}

function pickRoutes(dbPath: string, owner?: string): { routes: RouteSpec[]; owner: string; actionId: string } {
  const db = new Database(dbPath, { readonly: true });
  const o = owner ?? busiestWallet(db);
  const actionId = richestAction(db, o);
  db.close();
  return {
    owner: o,
    actionId,
    routes: [
      { name: "portfolio", path: `/v1/portfolio?owner=${o}` },
      { name: "income (limit=50)", path: `/v1/income?owner=${o}&limit=50` },
      { name: "actions list", path: `/v2/actions?owner=${o}&limit=50` },
      { name: "action detail", path: `/v2/actions/${actionId}?owner=${o}` },
      // The lots are derived per request from the tenant's whole history (docs/lots.md#the-three-routes).
      { name: "lots", path: `/v2/lots?owner=${o}` },
      { name: "gains (year)", path: `/v2/reports/gains?year=2026&owner=${o}` },
      { name: "holdings statement", path: `/v2/reports/holdings?asOf=2026-06-30&owner=${o}` },
    ],
  };
}

/**
 * Issue 19's figure: a tenant's year gains report over `n` of its wallets, one request at a time
 * (what a holder waits for), on the 10k ledger: median and slowest of 20, after one warm-up.
 */
async function gainsOverWallets(url: string, key: string, dbPath: string, n: number): Promise<{ wallets: number; ms: number[] }> {
  const db = new Database(dbPath, { readonly: true });
  const owners = (db.query("SELECT owner FROM tenant_wallets ORDER BY owner LIMIT ?").all(n) as { owner: string }[]).map((r) => r.owner);
  db.close();
  const path = `/v2/reports/gains?year=2026&${owners.map((o) => `owner=${o}`).join("&")}`;
  const ask = async () => {
    const t0 = performance.now();
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
    await res.text();
    if (res.status !== 200) throw new Error(`gains over ${owners.length} wallets: ${res.status}`);
    return performance.now() - t0;
  };
  await ask();
  const ms: number[] = [];
  for (let i = 0; i < 20; i++) ms.push(await ask());
  return { wallets: owners.length, ms: ms.sort((x, y) => x - y) };
}

async function coldStart(dataDir: string, demo: boolean, runs = 5, bin = binary): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = freePort();
    const t0 = performance.now();
    const proc = Bun.spawn([bin, "serve", "--port", String(port), "--data-dir", dataDir, ...(demo ? ["--demo"] : [])], { env: benchServerEnv(), stdout: "ignore", stderr: "ignore" });
    children.push(proc);
    await waitHealthy(`http://127.0.0.1:${port}`);
    times.push(performance.now() - t0);
    await stop({ proc });
  }
  return times;
}

async function main() {
  const started = performance.now();
  if (!existsSync(binary) || args.includes("--rebuild")) {
    console.error("building dist/ca-ledger …");
    const b = Bun.spawnSync([process.execPath, "run", "build"], { cwd: repoRoot, stdout: "inherit", stderr: "inherit" });
    if (b.exitCode !== 0) throw new Error("build failed");
  }
  const rows: Row[] = [];
  const cold: Record<string, number[]> = {};

  // (a) the demo ledger, as `serve --demo` prepares it.
  const demoDir = tmp("cal-bench-demo-");
  const demo2 = serve(demoDir, true);
  await waitHealthy(demo2.url);
  const keyA = await readKeyFromCli(demoDir); // the demo prints its own key once; a CLI key is what a user makes
  const a = pickRoutes(join(demoDir, "ledger.db"));
  console.error(`(a) demo ledger: owner ${a.owner}, action ${a.actionId}`);
  const baseDemo = await baselineOf(demoDir, true);
  rows.push(...(await benchLedger("demo", demo2, keyA, join(demoDir, "ledger.db"), a.routes, baseDemo?.served)));
  await stop(demo2);
  if (baseDemo) await stop(baseDemo.served);
  cold.demo = await coldStart(demoDir, true);
  if (baseDemo) cold["demo, baseline"] = await coldStart(baseDemo.dir, true, 5, BASELINE);

  // (b) 10,000 wallets, synced through the binary.
  const big = LEDGER ? grownLedger(LEDGER) : await growLedger(WALLETS);
  BIG = sizeLabel(big.wallets);
  const bigDir = big.dataDir;
  console.error(`(b) ${BIG} ledger: ${big.wallets} wallets, ${big.actions} actions, ${big.journal} journal entries, grown in ${big.seconds.toFixed(0)} s`);
  const keyB = await readKeyFromCli(bigDir, "bench");
  const baseBig = await baselineOf(bigDir, false);
  const sB = serve(bigDir, false);
  await waitHealthy(sB.url);
  const b = pickRoutes(join(bigDir, "ledger.db"), big.heavyOwner);
  rows.push(...(await benchLedger(BIG, sB, keyB, join(bigDir, "ledger.db"), b.routes, baseBig?.served)));
  const gains100 = await gainsOverWallets(sB.url, keyB, join(bigDir, "ledger.db"), 100);
  await stop(sB);
  if (baseBig) await stop(baseBig.served);
  cold[BIG] = await coldStart(bigDir, false);
  if (baseBig) cold[`${BIG}, baseline`] = await coldStart(baseBig.dir, false, 5, BASELINE);

  // Report.
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(`\n${BIG} ledger: a year gains report over ${gains100.wallets} wallets, one request at a time: median ${f(gains100.ms[10]!, 1)} ms, slowest of 20 ${f(gains100.ms[19]!, 1)} ms`);
  const mark = (ok: boolean) => (ok ? "" : " ✗");
  console.log(`\nbench/http — ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} round(s) a route (medians; a ratio is the median of the rounds' own), compiled binary ${binary}`);
  console.log(`targets: ratio ≥ ${targets.ratio}, p99 < ${targets.p99Ms} ms, RSS < ${targets.rssMb} MB, cold start < ${targets.coldMs} ms\n`);
  const header = [
    "ledger",
    "route",
    "bytes",
    "ours req/s",
    "p50 ms",
    "p99 ms",
    "min req/s",
    "min p99",
    "const req/s",
    "ratio ours/min",
    "peak RSS MB",
    ...(BASELINE ? ["baseline req/s", "baseline p99", "ratio baseline/min"] : []),
  ];
  const table = rows.map((r) => [
    r.ledger,
    r.route,
    String(r.bodyBytes),
    f(r.ours.rps),
    String(r.ours.p50),
    String(r.ours.p99) + mark(r.ours.p99 < targets.p99Ms),
    f(r.min.rps),
    String(r.min.p99),
    f(r.constant.rps),
    f(r.ratio, 2) + mark(r.ratio >= targets.ratio),
    f(r.rssMb, 1) + mark(r.rssMb < targets.rssMb),
    ...(r.baseline ? [f(r.baseline.rps), String(r.baseline.p99), f(r.baselineRatio!, 2)] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const t of table) console.log(line(t));
  for (const [k, v] of Object.entries(cold)) {
    console.log(`\ncold start (${k}), spawn → first 200 on /v1/health: median ${f(median(v))} ms${mark(median(v) < targets.coldMs)} (runs: ${v.map((x) => f(x)).join(", ")})`);
  }
  console.log(`\ntotal ${f((performance.now() - started) / 1000, 1)} s`);
  const out = opt("json", "");
  if (out) writeFileSync(out, JSON.stringify({ rows, cold, targets, connections: CONNECTIONS, duration: DURATION, rounds: ROUNDS, baseline: BASELINE || null }, null, 2));
}

/** With --baseline: that binary serving a copy of the data dir (one server per data dir), started and healthy. */
async function baselineOf(dataDir: string, demo: boolean): Promise<{ served: Served; dir: string } | null> {
  if (!BASELINE) return null;
  const dir = tmp("cal-bench-baseline-");
  cpSync(dataDir, dir, { recursive: true });
  const served = serve(dir, demo, BASELINE);
  await waitHealthy(served.url);
  return { served, dir };
}

/** A ledger of `wallets` wallets and one heavy wallet (its lists fill pages of 50), grown by real syncs. */
async function growLedger(wallets: number) {
  const run = await startScaleRun();
  dirs.push(run.dataDir);
  const t = performance.now();
  await run.grow(0, wallets, wallets);
  const heavyOwner = run.scale.heavyWallet();
  await run.register(heavyOwner);
  await run.until(
    "the heavy wallet synced",
    async () => (await run.one(q<{ n: number }>`SELECT count(*) AS n FROM sync_jobs WHERE owner = ${heavyOwner} AND status = 'complete'`)).n === 1 && (await run.pendingMarks()) === 0,
    600_000,
  );
  const counts = await run.one(q<{ actions: number; journal: number }>`SELECT (SELECT count(*) FROM actions) AS actions, (SELECT count(*) FROM journal) AS journal`);
  await run.stop();
  return { dataDir: run.dataDir, heavyOwner, wallets: wallets + 1, ...counts, seconds: (performance.now() - t) / 1000 };
}

/** A copy of a ledger grown before; its heavy wallet is the one with the most actions. */
function grownLedger(from: string) {
  const dataDir = tmp("cal-bench-grown-");
  cpSync(from, dataDir, { recursive: true });
  const db = new Database(join(dataDir, "ledger.db"), { readonly: true });
  const counts = db.query("SELECT (SELECT count(*) FROM tenant_wallets) AS wallets, (SELECT count(*) FROM actions) AS actions, (SELECT count(*) FROM journal) AS journal").get() as {
    wallets: number;
    actions: number;
    journal: number;
  };
  const heavyOwner = (db.query("SELECT owner FROM actions GROUP BY owner ORDER BY count(*) DESC LIMIT 1").get() as { owner: string }).owner;
  db.close();
  return { dataDir, heavyOwner, ...counts, seconds: 0 };
}

async function readKeyFromCli(dataDir: string, tenant = "demo", bin = binary): Promise<string> {
  const r = Bun.spawnSync([bin, "keys", "create", `bench-${Date.now()}`, "--tenant", tenant, "--scopes", "ledger:read", "--json", "--data-dir", dataDir], { env: benchServerEnv() });
  if (r.exitCode !== 0) throw new Error("keys create failed: " + r.stderr.toString());
  return (JSON.parse(r.stdout.toString()) as { key: string }).key;
}

/** The demo's routes on two builds, in turn, round after round (see the head of this file). */
async function compareDemo(before: string) {
  const sides = [];
  for (const [label, bin] of [
    ["before", before],
    ["after", binary],
  ] as const) {
    const dir = tmp(`cal-bench-${label}-`);
    const s = serve(dir, true, bin);
    await waitHealthy(s.url);
    sides.push({ label, bin, s, key: await readKeyFromCli(dir, "demo", bin), routes: pickRoutes(join(dir, "ledger.db")).routes });
  }
  const runs = new Map<string, Load[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, route] of sides[0]!.routes.entries()) {
      for (const side of inTurn(sides, round)) {
        const path = side.routes[i]!.path;
        const headers = { authorization: `Bearer ${side.key}` };
        await cannon(side.s.url + path, headers, WARMUP);
        const l = await cannon(side.s.url + path, headers);
        if (l.non2xx || l.errors) console.error(`warning: ${side.label} ${route.name}: ${l.non2xx} non-2xx, ${l.errors} errors`);
        runs.set(`${side.label} ${route.name}`, [...(runs.get(`${side.label} ${route.name}`) ?? []), l]);
        console.error(`  round ${round + 1} ${side.label} ${route.name}: ${Math.round(l.rps)}/s, p99 ${l.p99} ms`);
      }
    }
  }
  for (const side of sides) await stop(side.s);
  console.log(`\nbench/http --before — demo ledger, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds in turn; medians`);
  console.log(`before: ${before}\nafter:  ${binary}\n`);
  console.log("| route | before req/s | after req/s | after/before | before p99 ms | after p99 ms |\n|---|---|---|---|---|---|");
  for (const route of sides[0]!.routes) {
    const [b, a] = ["before", "after"].map((l) => medianLoad(runs.get(`${l} ${route.name}`)!));
    console.log(`| ${route.name} | ${b!.rps.toFixed(0)} | ${a!.rps.toFixed(0)} | ${(a!.rps / b!.rps).toFixed(3)} | ${b!.p99} | ${a!.p99} |`);
  }
}

try {
  const before = opt("before", "");
  await (before ? compareDemo(before) : main());
} finally {
  for (const c of children) {
    try {
      c.kill();
    } catch {
      /* gone */
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
