// Shared by the ops tests: the compiled binary, temp data dirs, a demo ledger, and a writer
// that appends real journal entries (issuer corrections re-booked through the replay).
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDemo } from "../../src/demo/load.ts";
import type { DemoRecording } from "../../src/demo/transport.ts";
import { parseEcbHistory } from "../../src/domain/reference-rates.ts";
import { Database } from "bun:sqlite";
import { ledgerPath, openLedger, pageSizeOf, type Ledger } from "../../src/ledger/db.ts";
import { rebookEverything } from "../../src/ledger/booking.ts";
import { importRates } from "../../src/ledger/reference-rates.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { ledgerEnv, ledgerTarget } from "../support/engine.ts";
import { jsonText, q, raw, type Statement } from "../support/sql.ts";

export const root = join(import.meta.dir, "..", "..");
export const binary = join(root, "dist", "ca-ledger");
const bun = join(root, "node_modules", ".bin", "bun");

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(ts|tsx|sql|json|css|html|svg)$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The compiled binary, built when missing or older than the sources (the tests must exercise
 * the commands as they are now). Built beside and renamed, so a concurrent run never executes a
 * half-written file. The same build as `bun run build` (scripts/build.ts), minus the migrations
 * generator (a generated file other work owns); the dashboard's module is regenerated first when
 * web/ is newer.
 */
export function ensureBinary(): string {
  const embedded = join(root, "bundles", "dashboard.ts");
  if (newestSource(join(root, "web")) > statSync(embedded).mtimeMs) {
    const r = Bun.spawnSync([bun, "run", "scripts/gen-dashboard.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`dashboard bundle failed: ${r.stderr.toString()}`);
  }
  const stale =
    !existsSync(binary) || statSync(binary).mtimeMs < Math.max(...["cli", "src", "bundles", "migrations", "migrations-postgres", "schemas", "client/src"].map((d) => newestSource(join(root, d))));
  if (!stale) return binary;
  const tmp = `${binary}.build-${process.pid}`;
  const r = Bun.spawnSync([bun, "scripts/build.ts", tmp], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr.toString()}`);
  renameSync(tmp, binary);
  return binary;
}

const dirs: string[] = [];
/** Each test file calls this from afterAll. */
export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDir(prefix = "cal-ops-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The binary's environment: the caller's, over a clean base; on PostgreSQL test runs the
 * database paired with the `--data-dir` the command names.
 */
function binaryEnv(args: string[], env: Record<string, string>): Record<string, string> {
  const at = args.indexOf("--data-dir");
  const database = at >= 0 && args[at + 1] ? ledgerEnv(args[at + 1]!) : {};
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1", ...database, ...env };
}

/** Runs the compiled binary to its end. */
export function cli(args: string[], env: Record<string, string> = {}): CliResult {
  const r = Bun.spawnSync([ensureBinary(), ...args], { env: binaryEnv(args, env), stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** Same, without blocking the event loop (an in-process server must keep answering). */
export async function cliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const p = Bun.spawn([ensureBinary(), ...args], { env: binaryEnv(args, env), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** A data dir holding the embedded demo ledger (real cases, replayed through the engine). */
/** A data dir holding the demo, loaded now; `recording`: another demo recording (default the embedded one). */
export async function demoDataDir(recording?: DemoRecording): Promise<string> {
  const dir = tempDir("cal-demo-");
  const ledger = await openLedger(ledgerTarget(dir));
  await loadDemo(ledger, undefined, undefined, recording);
  await ledger.close();
  return dir;
}

/**
 * One issuer correction: a new version of a stored cash-dividend record with another cash
 * amount, stored and re-booked in one transaction (as one commit, so any snapshot is replayed).
 * Every wallet holding the mint then gets a reversal and a new recognition.
 */
export async function appendCorrection(db: Sql, step: number, now = new Date()): Promise<void> {
  const base = await db.get(
    ...q<{ payload: string }>`SELECT payload FROM issuer_revisions WHERE ${jsonText(raw("payload"), "caType")} = 'CashDividend'
     AND event_id IN (SELECT action_event FROM (SELECT ${jsonText(raw("e.record"), "matched.eventId")} AS action_event FROM actions a JOIN action_events e ON e.id = a.event_id
       WHERE e.treatment = 'income' AND a.usd IS NOT NULL) AS matched)
     ORDER BY id LIMIT 1`,
  );
  if (!base) throw new Error("no matched cash dividend to correct");
  const record = JSON.parse(base.payload);
  const top = (await db.get(...q<{ v: number }>`SELECT max(version) AS v FROM issuer_revisions WHERE event_id = ${record.eventId}`))!;
  const gross = (0.5 + step / 100).toFixed(2);
  const corrected = { ...record, version: top.v + 1, grossCashflowUsd: gross, netCashflowUsd: (Number(gross) * 0.7).toFixed(3), status: "Updated" };
  await db.write(async (tx) => {
    await storeObservations(tx, { issuerRecords: [corrected] }, now);
    await rebookEverything(tx, now);
  });
}

/** The recorded ECB sample (test/fixtures/ecb/README.md), imported as `ca-ledger rates import` does. */
export const ecbSample = join(root, "test", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");
export const importEcbSample = (db: Sql) => importRates(db, parseEcbHistory(readFileSync(ecbSample, "utf8"), "2026-01-09"));

export async function count(db: Sql, [stmt, values]: Statement): Promise<number> {
  return Number((await db.get(stmt, values))!.n);
}

/** A ledger file made, empty, with pages of `bytes` and in WAL mode (every ledger before 8 KiB pages had 4 KiB). */
export function ledgerFileWithPages(dir: string, bytes: number): void {
  const made = new Database(ledgerPath(dir), { create: true });
  try {
    made.exec(`PRAGMA page_size = ${bytes}`);
    made.exec("PRAGMA journal_mode = WAL");
  } finally {
    made.close();
  }
}

/** The page size of a SQLite file, read without keeping it open. */
export function pageSizeOfFile(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return pageSizeOf(db);
  } finally {
    db.close();
  }
}

export async function withLedger<T>(dir: string, fn: (l: Ledger) => T | Promise<T>): Promise<T> {
  const l = await openLedger(ledgerTarget(dir), { migrate: false });
  try {
    return await fn(l);
  } finally {
    await l.close();
  }
}

export interface Serving {
  url: string;
  stderr(): string;
  kill(): Promise<void>;
}

/** `ca-ledger serve` from the compiled binary on a free loopback port, once it answers health. */
export async function serveBinary(dataDir: string, args: string[] = [], env: Record<string, string> = {}): Promise<Serving> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const proc = Bun.spawn([ensureBinary(), "serve", "--data-dir", dataDir, "--port", String(port), ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NO_COLOR: "1",
      SOLANA_RPC_URL: "http://127.0.0.1:9",
      XSTOCKS_API_URL: "http://127.0.0.1:9/api/v2",
      ...ledgerEnv(dataDir),
      ...env,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += dec.decode(chunk, { stream: true });
  })();
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ; await Bun.sleep(20)) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${stderr}`);
    if ((await fetch(`${url}/v1/health`).catch(() => null))?.status === 200) break;
    if (Date.now() - started > 15_000) throw new Error(`serve did not answer within 15 s: ${stderr}`);
  }
  return {
    url,
    stderr: () => stderr,
    /** SIGKILL: these tests are not about shutdown, and a graceful stop waits out keep-alive connections. */
    async kill() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
