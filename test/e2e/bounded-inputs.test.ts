// Inputs of hundreds of megabytes against the compiled binary, its memory measured by the kernel:
// - `serve` polling an issuer feed of 100 pages of 4 MB of valid records (400 MB) reads up to its
//   cap (ISSUER_FEED_MAX_MIB), reports the feed degraded, stores nothing of that poll, and its
//   peak resident memory stays under half the feed's size above a normal poll's;
// - `rates import` streams a 47 MB history file (every ISO 4217 code, every day since 1999) line
//   by line, so its peak memory stays under twice the file's size, and refuses a code that is not
//   ISO 4217, a future date, absurd digits and an endless line, naming the line, storing nothing.
// Peak memory is the kernel's high-water mark of the process (VmHWM; for a command that exits,
// its rusage read by a small wrapper process), compared with the same binary on a small input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliAsync, ensureBinary, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { ledgerEnv } from "../support/engine.ts";
import { hostileHistoryServer } from "../support/hostile-issuer.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { baseEnv, serveBinary, type Served } from "./trust-helpers.ts";
import { q } from "../support/sql.ts";

const MiB = 1024 * 1024;
const running: Served[] = [];
beforeAll(() => {
  ensureBinary();
}, 180_000);
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  removeTempDirs();
});

/** The kernel's high-water mark of a running process's resident memory, in bytes. */
const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

/** A server on its own data dir whose issuer feed is `feedUrl`, polled once at start, with an ops key. */
async function serveWithFeed(feedUrl: string, extra: Record<string, string> = {}) {
  const dir = tempDir("cal-bounded-");
  const env = { ...baseEnv(tempDir("cal-home-"), { XSTOCKS_API_URL: feedUrl, ISSUER_POLL_SECONDS: "3600", CA_LEDGER_DATA_DIR: dir, ...ledgerEnv(dir), ...extra }) };
  const key = JSON.parse((await cliAsync(["keys", "create", "ops", "--tenant", "ops", "--scopes", "ops:read", "--json", "--data-dir", dir], env)).stdout).key;
  const server = await serveBinary([], env);
  running.push(server);
  const feedCheck = async () => {
    const body = await (await fetch(server.url + "/v1/ops/status", { headers: { authorization: `Bearer ${key}` } })).json();
    return body.checks.find((c: { name: string }) => c.name === "issuer_feed_freshness") as { status: string; message: string };
  };
  return { dir, server, feedCheck };
}

/** Waits until the ops check shows the poll's outcome; fails at once if memory passes `ceiling` meanwhile. */
async function untilPolled(s: Awaited<ReturnType<typeof serveWithFeed>>, done: (message: string) => boolean, ceiling = Infinity) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const check = await s.feedCheck();
    if (done(check.message)) return check;
    expect(peakRss(s.server.proc.pid)).toBeLessThan(ceiling);
    if (Date.now() > deadline) throw new Error(`the issuer poll did not finish: ${check.message}`);
    await Bun.sleep(100);
  }
}

const stored = (dir: string) =>
  withLedger(dir, async (l) => ({
    instruments: (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM instruments`))!.n,
    revisions: (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_revisions`))!.n,
    rejections: (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_rejections`))!.n,
  }));

describe("an issuer feed of 400 MB", () => {
  test("the server reads up to its cap, says the feed is degraded and why, stores nothing of the poll, and its peak memory stays far below the feed", async () => {
    // The same binary polling the recorded feed: what a server holds for a real poll.
    const recorded = startIssuerServer(loadIssuerFixture());
    const normal = await serveWithFeed(recorded.url);
    await untilPolled(normal, (m) => m.startsWith("Last success"));
    const normalPeak = peakRss(normal.server.proc.pid);
    await normal.server.stop();
    recorded.stop();

    const feedBytes = 100 * 4 * MiB;
    const hostile = hostileHistoryServer(loadIssuerFixture(), { pageBytes: 4 * MiB, pages: 100 });
    try {
      // A generous bound: half the feed above a poll of the recorded feed (holding the
      // feed would take several times its size); the cap lets the server read 16 MiB.
      const ceiling = normalPeak + feedBytes / 2;
      const s = await serveWithFeed(hostile.url, { ISSUER_FEED_MAX_MIB: "16", ISSUER_FEED_MAX_RECORDS: "1000000" }); // the byte cap binds
      const check = await untilPolled(s, (m) => m.includes("degraded"), ceiling);
      expect(check).toMatchObject({ status: "warn", message: expect.stringContaining("degraded: over its cap: more than 16 MiB (ISSUER_FEED_MAX_MIB) in one poll; nothing of this poll was stored") });
      const peak = peakRss(s.server.proc.pid);
      console.log(
        `issuer feed of ${feedBytes / MiB} MiB: peak RSS ${(peak / MiB).toFixed(0)} MiB (a recorded-feed poll: ${(normalPeak / MiB).toFixed(0)} MiB); ${(hostile.sentBytes() / MiB).toFixed(1)} MiB pulled`,
      );
      expect(peak).toBeLessThan(ceiling);
      expect(hostile.sentBytes()).toBeLessThan(32 * MiB);
      expect(await stored(s.dir)).toEqual({ instruments: 0, revisions: 0, rejections: 0 });
    } finally {
      hostile.stop();
    }
  }, 240_000);
});

/**
 * Runs the binary to its end through a small wrapper process that reads the command's peak memory
 * from its rusage: a process forked from the test runner would carry the runner's own memory in it.
 */
async function measured(args: string[]) {
  const report = join(tempDir("cal-rss-"), "rss.json");
  const wrapper = `const p = Bun.spawn(${JSON.stringify([ensureBinary(), ...args])}, { stdout: "inherit", stderr: "inherit" });
    const code = await p.exited;
    await Bun.write(${JSON.stringify(report)}, JSON.stringify({ code, maxRSS: p.resourceUsage().maxRSS }));`;
  const at = args.indexOf("--data-dir");
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1", ...(at >= 0 ? ledgerEnv(args[at + 1]!) : {}) };
  const proc = Bun.spawn([process.execPath, "-e", wrapper], { env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const { code, maxRSS } = JSON.parse(readFileSync(report, "utf8")) as { code: number; maxRSS: number };
  return { code, stdout, stderr, maxRSS };
}

const sample = join(import.meta.dir, "..", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");
const rates = (dir: string) => withLedger(dir, async (l) => (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM reference_rates`))!.n);
const CODES = Intl.supportedValuesOf("currency").filter((c) => c !== "EUR" && c !== "USD");

/**
 * A history file of every day from 1999-01-04 (`days` of them), newest first, with a column for
 * USD and every other ISO 4217 code and rates of 19 characters; `last` is appended as its last line.
 */
async function wideHistory(path: string, days: number, last?: string): Promise<number> {
  const out = Bun.file(path).writer();
  out.write(["Date", "USD", ...CODES, ""].join(",") + "\n");
  const start = Date.UTC(1999, 0, 4);
  for (let d = days - 1; d >= 0; d--) {
    const cells = [new Date(start + d * 86_400_000).toISOString().slice(0, 10), "1.1234"];
    for (let i = 0; i < CODES.length; i++) cells.push(`${100_000 + ((d * 7 + i) % 899_999)}.123456789`);
    out.write(cells.join(",") + ",\n");
  }
  if (last) out.write(last + "\n");
  await out.end();
  return statSync(path).size;
}

describe("rates import of a large file", () => {
  test("streams a 47 MB file line by line: its peak memory stays under twice the file's size; a future day on its last line refuses it whole, naming the line", async () => {
    const dir = tempDir();
    const small = await measured(["rates", "import", sample, "--data-dir", dir]);
    expect(small.code).toBe(0);
    const before = await rates(dir);

    const file = join(tempDir("cal-wide-"), "eurofxref-hist.csv");
    const size = await wideHistory(file, 9_000, ["2999-01-01", "1.1", ...CODES.map(() => "1.1"), ""].join(","));
    const big = await measured(["rates", "import", file, "--data-dir", dir]);
    console.log(`rates import of ${(size / MiB).toFixed(0)} MiB: peak RSS ${(big.maxRSS / MiB).toFixed(0)} MiB (the 2 KB sample: ${(small.maxRSS / MiB).toFixed(0)} MiB)`);
    expect({ code: big.code, stdout: big.stdout }).toEqual({ code: 1, stdout: "" });
    expect(big.stderr).toContain(`${file} line 9002, column 1: the date 2999-01-01 is after today`);
    expect(big.stderr).toContain("nothing was imported");
    // Streaming holds a line at a time (the growth is the garbage collector's slack, about 45 MiB
    // whatever the size); reading the file whole took about 90 times its size (4.2 GiB).
    expect(big.maxRSS).toBeLessThan(small.maxRSS + 2 * size);
    expect(await rates(dir)).toBe(before);
  }, 180_000);
});

describe("rates import refuses what no ECB file holds", () => {
  test("a code that is not ISO 4217, a future day, a day before the euro, absurd digits, an endless line: each named at its line, nothing stored", async () => {
    const dir = tempDir();
    expect((await cliAsync(["rates", "import", sample, "--data-dir", dir])).code).toBe(0);
    const before = await rates(dir);
    const lines = readFileSync(sample, "utf8").split("\n");
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const variant = (name: string, edit: (ls: string[]) => string[]) => {
      const p = join(dir, name);
      writeFileSync(p, edit([...lines]).join("\n"));
      return p;
    };
    const cases: [string, RegExp][] = [
      [variant("code.csv", (ls) => [ls[0]!.replace("JPY", "XYZ"), ...ls.slice(1)]), /line 1, column 3: XYZ is not an ISO 4217 currency code/],
      [variant("future.csv", (ls) => [ls[0]!, ls[1]!.replace(/^[^,]+/, tomorrow), ...ls.slice(2)]), new RegExp(`line 2, column 1: the date ${tomorrow} is after today`)],
      [
        variant("old.csv", (ls) => ls.map((l, i) => (i === 5 ? l.replace(/^[^,]+/, "1998-12-31") : l))),
        /line 6, column 1: the date 1998-12-31 is before the ECB's first euro reference rates \(1999-01-04\)/,
      ],
      [
        variant("digits.csv", (ls) => ls.map((l, i) => (i === 3 ? l.replace(/^([^,]+),[^,]+,/, `$1,1.${"1".repeat(5000)},`) : l))),
        /line 4, column 2: USD: at most 9 digits before the point and 9 after, got 1\.1{38}…/,
      ],
      [
        variant("integer.csv", (ls) => ls.map((l, i) => (i === 3 ? l.replace(/^([^,]+),[^,]+,/, "$1,1234567890,") : l))),
        /line 4, column 2: USD: at most 9 digits before the point and 9 after, got 1234567890/,
      ],
      [variant("endless.csv", (ls) => [...ls.slice(0, 7), "2025-11-28," + "9".repeat(100_000), ...ls.slice(7)]), /line 8: longer than 16384 characters/],
    ];
    for (const [file, message] of cases) {
      const r = await cliAsync(["rates", "import", file, "--data-dir", dir]);
      expect({ file, code: r.code, stdout: r.stdout }).toEqual({ file, code: 1, stdout: "" });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("nothing was imported");
    }
    expect(await rates(dir)).toBe(before);
  }, 60_000);
});
