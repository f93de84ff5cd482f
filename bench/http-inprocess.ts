// bench/http-inprocess: the app's own `handle` (src/http/app.ts) for one route, in a loop in this
// process, with no socket and no load generator: what a change to our code costs a request,
// without the HTTP server's share and with less of the machine's noise. Each source tree given
// (this one, a worktree of main, …) builds its app on its own copy of one ledger, with a key of its
// own; the apps answer in turns of 5,000 requests, in reverse order every other round, and each
// turn's CPU time (process.cpuUsage) is counted to its tree. Prints each tree's p25 and median µs
// a request. Every tree must answer the same (but the time it was asked). docs/performance.md cites it.
//
//   ./node_modules/.bin/bun bench/http-inprocess.ts <data dir> [--rounds 30] [--path '/v1/portfolio?owner=…'] <tree> [<tree> …]
//
// Without --path: /v1/portfolio for the wallet with the most actions.
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { busiestWallet, withoutAsOf } from "./lib/read-picks.ts";
import { benchServerEnv } from "./lib/served-binary.ts";
import { median, quantile } from "./lib/stats.ts";
import { inTurn } from "./lib/turns.ts";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const rounds = Number(option("rounds") ?? 30);
const pathOption = option("path");
const [ledgerDir, ...trees] = args;
if (!ledgerDir || !trees.length || !Number.isInteger(rounds) || rounds <= 0) {
  throw new Error("usage: bun bench/http-inprocess.ts <data dir> [--rounds 30] [--path '/v1/…'] <tree> [<tree> …]");
}
const TURN = 5000;
const env = benchServerEnv();

interface Side {
  tree: string;
  handle: (request: Request) => Promise<Response>;
  headers: Record<string, string>;
  close: () => Promise<void>;
}
const dirs: string[] = [];
const sides: Side[] = [];
try {
  for (const tree of trees.map((t) => resolve(t))) {
    const dir = mkdtempSync(join(tmpdir(), "cal-http-inprocess-"));
    dirs.push(dir);
    cpSync(ledgerDir, dir, { recursive: true });
    // Each tree's own modules: its app, its ledger code, its key code.
    const { createApp } = await import(join(tree, "src/http/app.ts"));
    const { openLedger } = await import(join(tree, "src/ledger/db.ts"));
    const { loadConfig } = await import(join(tree, "src/config.ts"));
    const { createLogger } = await import(join(tree, "src/log.ts"));
    const { createKey } = await import(join(tree, "src/ledger/keys.ts"));
    const config = loadConfig({ "data-dir": dir }, env, {});
    const ledger = await openLedger(config);
    const { app } = await createApp({ ledger, config, logger: createLogger("warn"), version: "bench" });
    // The tenant that follows the wallets, as bench/scale made it.
    const copy = new Database(join(dir, "ledger.db"), { readonly: true });
    const { slug: tenant } = copy.query("SELECT t.slug FROM tenants t JOIN tenant_wallets w ON w.tenant_id = t.id LIMIT 1").get() as { slug: string };
    copy.close();
    const { key } = await createKey(ledger.db, { name: `inprocess-${sides.length}`, tenant, scopes: ["ledger:read"] });
    sides.push({ tree, handle: (r) => app.handle(r), headers: { authorization: `Bearer ${key}`, host: "127.0.0.1" }, close: () => ledger.close() });
  }
  const db = new Database(join(ledgerDir, "ledger.db"), { readonly: true });
  const owner = busiestWallet(db);
  db.close();
  const url = `http://127.0.0.1${pathOption ?? `/v1/portfolio?owner=${owner}`}`;
  const ask = async (s: Side) => {
    const r = await s.handle(new Request(url, { headers: s.headers }));
    return `${r.status} ${withoutAsOf(await r.text())}`;
  };
  const answers = await Promise.all(sides.map(ask));
  if (answers[0]!.startsWith("4") || answers[0]!.startsWith("5")) throw new Error(`the route answers ${answers[0]!.slice(0, 200)}`);
  if (answers.some((a) => a !== answers[0])) throw new Error("the trees answer differently");

  const turn = async (s: Side): Promise<number> => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < TURN; i++) await (await s.handle(new Request(url, { headers: s.headers }))).arrayBuffer();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / TURN;
  };
  for (const s of sides) for (let i = 0; i < 3; i++) await turn(s); // warm-up
  const results = new Map(sides.map((s) => [s.tree, [] as number[]]));
  for (let round = 0; round < rounds; round++) for (const s of inTurn(sides, round)) results.get(s.tree)!.push(await turn(s));
  console.log(`${url.slice("http://127.0.0.1".length)}: ${rounds} rounds of ${TURN} requests a tree, CPU µs a request`);
  for (const [tree, xs] of results) console.log(`  ${tree.padEnd(40)} p25 ${quantile(xs, 0.25).toFixed(2)}  median ${median(xs).toFixed(2)}`);
} finally {
  for (const s of sides) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
process.exit(0);
