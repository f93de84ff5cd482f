// A ledger grown the way users grow one: the compiled binary serves a data dir (or, with a
// database URL, one or more servers share a PostgreSQL ledger), wallets are registered over HTTP,
// and the workers sync them from loopback JSON-RPC and xStocks servers (lib/scale-chain.ts).
// Used by bench/scale.ts (measures while it grows), bench/http.ts (reads from a 10,000-wallet
// ledger built this way) and bench/postgres.ts (the same on PostgreSQL, one and two servers).
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadIssuerFixture, startIssuerServer, type IssuerData } from "../../test/support/issuer-server.ts";
import { startRpcServer, type RpcServer } from "../../test/support/rpc-server.ts";
import { serverEnv } from "../../test/support/server-env.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { buildScaleChain, type ScaleChain } from "./scale-chain.ts";
import { q, type Statement } from "../../test/support/sql.ts";

export const binary = join(import.meta.dir, "..", "..", "dist", "ca-ledger");

export interface ScaleRun {
  url: string;
  key: string;
  dataDir: string;
  dbPath: string;
  pid: number;
  scale: ScaleChain;
  rpc: RpcServer;
  issuerData: IssuerData;
  /** The servers' URLs (one unless asked for more; `url` is the first). */
  urls: string[];
  /** The bench's own view of the ledger (it watches the workers' progress through it). */
  ledger: Ledger;
  one<T>(stmt: Statement<T>): Promise<T>;
  /** Registers a wallet, through the servers in turn. */
  register(owner: string): Promise<void>;
  /** Registers wallets [from, to) over HTTP, 16 at a time, and waits until all are synced and booked. */
  grow(from: number, to: number, expectedFinished: number): Promise<number>;
  pendingMarks(): Promise<number>;
  until(what: string, check: () => Promise<boolean> | boolean, ms: number): Promise<void>;
  /** Stops the server and the loopback servers; the data dir stays. */
  stop(): Promise<void>;
}

export async function startScaleRun(extraEnv: Record<string, string> = {}, opts: { databaseUrl?: string; servers?: number } = {}): Promise<ScaleRun> {
  if (!existsSync(binary)) throw new Error("build the binary first: npm run build");
  const dataDir = mkdtempSync(join(tmpdir(), "cal-bench-scale-"));
  const dbPath = join(dataDir, "ledger.db");
  const scale = buildScaleChain();
  const rpc = startRpcServer(scale.chain);
  const issuerData = loadIssuerFixture();
  const issuer = startIssuerServer(issuerData);
  const env = serverEnv(
    dataDir,
    { rpcUrl: rpc.url, issuerUrl: issuer.url },
    {
      ISSUER_POLL_SECONDS: "2",
      MINT_POLL_SECONDS: "3600",
      RESYNC_SECONDS: "0",
      MAX_WALLETS_PER_TENANT: "1000000",
      RATE_LIMIT_PER_MINUTE: "1000000000",
      AUTH_FAILURES_PER_MINUTE: "1000000000",
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
      ...extraEnv,
    },
  );

  const keyRun = Bun.spawnSync([binary, "keys", "create", "bench", "--tenant", "bench", "--scopes", "assets:read,wallets:sync,ledger:read", "--json", "--data-dir", dataDir], { env });
  if (keyRun.exitCode !== 0) throw new Error(keyRun.stderr.toString());
  const key = JSON.parse(keyRun.stdout.toString()).key as string;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

  const procs: ReturnType<typeof Bun.spawn>[] = [];
  const urls: string[] = [];
  for (let n = 0; n < (opts.servers ?? 1); n++) {
    // Servers sharing a PostgreSQL ledger hold no data dir: each its own anyway, for its HOME.
    const own = n === 0 ? dataDir : mkdtempSync(join(tmpdir(), "cal-bench-scale-"));
    const { proc, url } = await serveOn(own, { ...env, HOME: own });
    procs.push(proc);
    urls.push(url);
  }
  const url = urls[0]!;

  const ledger = await openLedger({ dataDir, databaseUrl: opts.databaseUrl ?? null }, { migrate: false });
  const one = async <T>([stmt, values]: Statement<T>) => (await ledger.db.get(stmt, values))!;
  const finishedJobs = async () => (await one(q<{ n: number }>`SELECT count(*) AS n FROM sync_jobs WHERE status IN ('complete', 'partial')`)).n;
  const pendingMarks = async () => (await one(q<{ n: number }>`SELECT (SELECT count(*) FROM dirty_wallets) + (SELECT count(*) FROM dirty_mints) AS n`)).n;
  let turn = 0;
  const register = (owner: string) =>
    fetch(`${urls[turn++ % urls.length]}/v1/wallets/sync`, { method: "POST", headers, body: JSON.stringify({ owner }) }).then((r) => {
      if (r.status !== 202) throw new Error(`register: ${r.status}`);
    });
  const until = async (what: string, check: () => Promise<boolean> | boolean, ms: number) => {
    const end = performance.now() + ms;
    while (!(await check())) {
      if (performance.now() > end) throw new Error(`timed out: ${what}`);
      await Bun.sleep(20);
    }
  };
  return {
    url,
    urls,
    key,
    dataDir,
    dbPath,
    pid: procs[0]!.pid,
    scale,
    rpc,
    issuerData,
    ledger,
    one,
    register,
    pendingMarks,
    until,
    async grow(from, to, expectedFinished) {
      const t = performance.now();
      let next = from;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < to) await register(scale.wallet(next++));
        }),
      );
      await until(`${to} wallets synced`, async () => (await finishedJobs()) >= expectedFinished && (await pendingMarks()) === 0, 3_600_000);
      return (performance.now() - t) / 1000;
    },
    async stop() {
      for (const proc of procs) proc.kill("SIGTERM");
      await Promise.all(procs.map((p) => p.exited));
      await ledger.close();
      rpc.stop();
      issuer.stop();
    },
  };
}

/** `ca-ledger serve` on a port the OS just handed out, once it answers health. */
async function serveOn(dataDir: string, env: Record<string, string>) {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([binary, "serve", "--data-dir", dataDir, "--port", String(port)], { env, stdout: "ignore", stderr: "inherit" });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/v1/health`)).status === 200) break;
    } catch {}
    if (i > 3000) throw new Error("serve did not start");
    await Bun.sleep(5);
  }
  return { proc, url };
}
