// bench/http-alternate: two or more builds of the binary and the minimum work server
// (bench/lib/min-server.ts) measured in alternation on one route, each on its own copy of one
// ledger: every round runs each server in turn (in reverse order every other round) for a fixed
// number of requests at 64 connections, and reads the server's CPU time from /proc around it. On
// a shared machine a single pass per build (bench/http.ts) moves more between runs than a 10%
// change; in alternation the load the machine is under falls on every server alike. Prints, per
// server, the medians of CPU µs a request, of µs a request inside the app (the metrics' duration
// sum; the binaries only), and of requests/s, with each round's requests/s against the
// minimum's. Against the minimum, CPU is given twice: the ratio of the medians, and the median
// (with the quartiles) of each round's own ratio, the minimum's CPU a request in that round over
// the server's. The machine's load drifts over a run; a round's two figures were taken within
// seconds of each other, so their ratio moves less. docs/performance.md cites it.
//
//   ./node_modules/.bin/bun bench/http-alternate.ts <data dir> <demo|plain> <portfolio|detail> [--rounds 6] [--requests 20000] [--floor[=<variant>,…]] <binary> [<binary> …]
//
// `--floor` (the portfolio only) adds the minimum's work under each layer a keyed route of ours
// has, one server each (bench/lib/floor-server.ts): a header read, an async answer, Elysia, and
// Elysia behind an async hook that reads the header. What is left between the last and a binary is
// our own code. `--floor=elysia-keyed,elysia-keyed-sync` (any of floor-server.ts's variants) picks them.
//
// `demo` serves each copy with `serve --demo` (an empty data dir is fine); `plain` serves a grown
// ledger (a data dir bench/scale or bench/http kept). The route is read for the wallet with the
// most actions, and the detail for its action with the most journal entries.
// @ts-expect-error autocannon ships no types
import autocannon from "autocannon";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { busiestWallet, richestAction, withoutAsOf } from "./lib/read-picks.ts";
import { benchServerEnv, freePort, waitHealthy } from "./lib/served-binary.ts";
import { median, quantile } from "./lib/stats.ts";
import { inTurn } from "./lib/turns.ts";

const args = process.argv.slice(2);
const option = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(args.splice(i, 2)[1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
};
const floorArg = args.find((a) => a === "--floor" || a.startsWith("--floor="));
if (floorArg) args.splice(args.indexOf(floorArg), 1);
const floorVariants = !floorArg ? [] : floorArg === "--floor" ? ["header", "async", "elysia", "elysia-keyed"] : floorArg.slice("--floor=".length).split(",");
const floor = floorVariants.length > 0;
const rounds = option("rounds", 6);
const requests = option("requests", 20_000);
const [ledger, mode, which, ...binaries] = args;
if (!ledger || (mode !== "demo" && mode !== "plain") || (which !== "portfolio" && which !== "detail") || !binaries.length) {
  throw new Error("usage: bun bench/http-alternate.ts <data dir> <demo|plain> <portfolio|detail> [--rounds 6] [--requests 20000] [--floor[=<variant>,…]] <binary> [<binary> …]");
}
const env = benchServerEnv();
/** A process's user and system CPU time so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

interface Side {
  name: string;
  pid: number;
  url: string;
  headers: Record<string, string>;
  /** The route's label in the binary's metrics; none for the minimum. */
  route?: string;
}
const dirs: string[] = [];
const processes: { kill(): void; exited: Promise<number> }[] = [];
try {
  const sides: Side[] = [];
  let dbPath = "";
  for (const [i, binary] of binaries.entries()) {
    const dir = mkdtempSync(join(tmpdir(), "cal-http-alt-"));
    dirs.push(dir);
    cpSync(ledger, dir, { recursive: true });
    const port = freePort();
    const server = Bun.spawn([binary, "serve", "--port", String(port), "--data-dir", dir, ...(mode === "demo" ? ["--demo"] : [])], { env, stdout: "ignore", stderr: "ignore" });
    processes.push(server);
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url);
    const made = Bun.spawnSync([binary, "keys", "create", `alt${i}`, "--tenant", mode === "demo" ? "demo" : "bench", "--scopes", "ledger:read,ops:read", "--json", "--data-dir", dir], { env });
    const key = (JSON.parse(made.stdout.toString()) as { key: string }).key;
    sides.push({ name: `${i}:${binary}`, pid: server.pid, url, headers: { authorization: `Bearer ${key}` }, route: which === "portfolio" ? "/v1/portfolio" : "/v2/actions/:id" });
    dbPath = join(dir, "ledger.db");
  }
  const db = new Database(dbPath, { readonly: true });
  const owner = busiestWallet(db);
  const actionId = richestAction(db, owner);
  db.close();
  const minPort = freePort();
  const counts = join(dirs[0]!, "min-counts.json");
  writeFileSync(counts, "{}");
  const minimum = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "min-server.ts"), dbPath, String(minPort), String(freePort()), counts], { stdout: "pipe", stderr: "inherit" });
  processes.push(minimum);
  await (minimum.stdout as ReadableStream).getReader().read(); // it prints once it listens
  sides.push({ name: "minimum", pid: minimum.pid, url: `http://127.0.0.1:${minPort}`, headers: {} });
  // The minimum under each layer a keyed route adds (lib/floor-server.ts), sent the first build's key.
  if (floor) {
    if (which !== "portfolio") throw new Error("--floor measures the portfolio's minimum only");
    for (const variant of floorVariants) {
      const port = freePort();
      const server = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "floor-server.ts"), dbPath, String(port), variant], { stdout: "pipe", stderr: "inherit" });
      processes.push(server);
      await (server.stdout as ReadableStream).getReader().read();
      sides.push({ name: `floor: ${variant}`, pid: server.pid, url: `http://127.0.0.1:${port}`, headers: sides[0]!.headers });
    }
  }

  const path = which === "portfolio" ? `/v1/portfolio?owner=${owner}` : `/v2/actions/${actionId}?owner=${owner}`;
  // Every build must answer the same, and every floor server what the minimum answers (the same
  // work under one more layer); but the time it was asked.
  const answers = new Map<string, string>();
  for (const s of sides) {
    const r = await fetch(s.url + path, { headers: s.headers });
    answers.set(s.name, `${r.status} ${withoutAsOf(await r.text())}`);
  }
  const builds = sides.filter((s) => s.route).map((s) => answers.get(s.name));
  if (builds.some((b) => b !== builds[0])) throw new Error("the builds answer differently");
  for (const s of sides.filter((s) => s.name.startsWith("floor: "))) if (answers.get(s.name) !== answers.get("minimum")) throw new Error(`${s.name} answers differently from the minimum`);
  /** The metrics' duration sum and count of the route (µs inside the app). */
  const inApp = async (s: Side): Promise<[number, number]> => {
    if (!s.route) return [0, 0];
    const text = await (await fetch(`${s.url}/v1/ops/metrics`, { headers: s.headers })).text();
    const read = (k: string) => Number(new RegExp(`caledger_http_request_duration_seconds_${k}\\{method="GET",route="${s.route!.replace(/\//g, "\\/")}"\\} (\\S+)`).exec(text)?.[1] ?? 0);
    return [read("sum"), read("count")];
  };
  const results = new Map<string, { cpu: number[]; app: number[]; rps: number[] }>(sides.map((s) => [s.name, { cpu: [], app: [], rps: [] }]));
  for (const s of sides) await autocannon({ url: s.url + path, headers: s.headers, connections: 64, amount: requests }); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const s of inTurn(sides, round)) {
      const [sum0, count0] = await inApp(s);
      const cpu0 = cpuMs(s.pid);
      const run = await autocannon({ url: s.url + path, headers: s.headers, connections: 64, amount: requests });
      const cpu1 = cpuMs(s.pid);
      const [sum1, count1] = await inApp(s);
      if (run.non2xx || run.errors) throw new Error(`${s.name}: ${run.non2xx} answers not 2xx, ${run.errors} errors`);
      const r = results.get(s.name)!;
      r.cpu.push(((cpu1 - cpu0) * 1000) / run.requests.total);
      r.app.push(count1 > count0 ? ((sum1 - sum0) / (count1 - count0)) * 1e6 : 0);
      r.rps.push(run.requests.average);
    }
  }
  const min = results.get("minimum")!;
  console.log(`${which} (${mode}), ${rounds} rounds of ${requests} requests, medians:`);
  for (const s of sides) {
    const r = results.get(s.name)!;
    const byRound = r.cpu.map((v, i) => min.cpu[i]! / v);
    console.log(
      `  ${s.name.padEnd(40)} CPU ${median(r.cpu).toFixed(1).padStart(6)} µs/request  in the app ${median(r.app).toFixed(1).padStart(6)} µs  ${median(r.rps).toFixed(0).padStart(6)} requests/s` +
        `  against the minimum: CPU ${(median(min.cpu) / median(r.cpu)).toFixed(2)}, by round ${median(byRound).toFixed(2)} (${quantile(byRound, 0.25).toFixed(2)}–${quantile(byRound, 0.75).toFixed(2)}),` +
        ` requests/s by round ${r.rps.map((v, i) => (v / min.rps[i]!).toFixed(2)).join(" ")}`,
    );
  }
} finally {
  for (const p of processes) p.kill();
  for (const p of processes) await p.exited;
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
