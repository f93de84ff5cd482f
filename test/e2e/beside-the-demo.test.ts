// Commands typed while the demo runs, on the compiled binary with a real HOME: every command that
// takes --data-dir takes --demo (the demo's own data dir); with it, `keys create` and `rates
// import` reach the demo the server is showing; without it, a command that would create a new
// ledger says where on stderr before it does, and points at the demo's. --demo never creates a
// ledger, and is refused with a database URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliAsync, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { ledgerArgs, testEngine } from "../support/engine.ts";
import { repoRoot } from "../harness/index.ts";
import { readFixture } from "../support/chain.ts";
import { HONX_MINT } from "../support/wallet-chain.ts";
import { api, baseEnv, serveBinary, type Served } from "./trust-helpers.ts";

const home = tempDir("cal-beside-home-");
const env = baseEnv(home);
const liveLedger = join(home, ".local", "share", "ca-ledger", "ledger.db");
const demoLedger = join(home, ".local", "share", "ca-ledger-demo", "ledger.db");
const ratesSample = join(repoRoot, "test", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");
const run = (args: string[], extra: Record<string, string> = {}) => cliAsync(args, { ...env, ...extra });
let demo: Served | null = null;

beforeAll(() => {
  mkdirSync(home, { recursive: true });
});
afterAll(async () => {
  await demo?.stop("SIGKILL");
  removeTempDirs();
});

/** Every command of the binary, found by walking `--help` (so a new command is covered at once). */
async function allCommands(path: string[] = []): Promise<string[][]> {
  const help = (await run([...path, "--help"])).stdout;
  const at = help.indexOf("\nCommands:\n");
  if (at < 0) return [path];
  const names = help
    .slice(at)
    .split("\n")
    .filter((l) => /^ {2}\S+$/.test(l))
    .map((l) => l.trim());
  return (await Promise.all(names.map((n) => allCommands([...path, n])))).flat();
}

describe("--demo beside --data-dir", () => {
  test("every command that takes --data-dir takes --demo", async () => {
    const commands = await allCommands();
    expect(commands.length).toBeGreaterThanOrEqual(12);
    for (const c of commands) {
      const help = (await run([...c, "--help"])).stdout;
      if (!help.includes("--data-dir")) continue;
      expect({ command: c.join(" "), demo: /^ {2}--demo$/m.test(help) }).toEqual({ command: c.join(" "), demo: true });
    }
  }, 60_000);

  test("with --demo and no demo ledger yet: exit 1 saying to start the demo, and nothing is created", async () => {
    for (const c of [["keys", "create", "k", "--tenant", "demo"], ["rates", "import", ratesSample], ["migrate"]]) {
      const r = await run([...c, "--demo"]);
      expect({ c, code: r.code }).toEqual({ c, code: 1 });
      expect(r.stderr).toContain(`no demo ledger at ${demoLedger}: start the demo first with 'ca-ledger serve --demo'`);
    }
    expect(existsSync(join(home, ".local", "share", "ca-ledger-demo"))).toBe(false);
    expect(existsSync(join(home, ".local", "share", "ca-ledger"))).toBe(false);
  }, 60_000);

  test("while the demo runs, keys create --demo and rates import --demo reach it, and no live ledger appears", async () => {
    demo = await serveBinary(["--demo"], env);
    expect(demo.stdout()).toContain(join(home, ".local", "share", "ca-ledger-demo"));
    const created = await run(["keys", "create", "reader", "--tenant", "demo", "--json", "--demo"]);
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: "" });
    const wallets = await api(demo.url, "/v1/wallets", JSON.parse(created.stdout).key);
    expect(wallets.status).toBe(200);
    expect(wallets.body.wallets.length).toBeGreaterThan(0);

    const rates = await run(["rates", "import", ratesSample, "--json", "--demo"]);
    expect({ code: rates.code, stderr: rates.stderr }).toEqual({ code: 0, stderr: "" });
    const currencies = await api(demo.url, "/v2/reports/currencies", JSON.parse(created.stdout).key);
    expect(currencies.body.currencies.map((c: { currency: string }) => c.currency)).toContain("EUR");

    expect((await run(["keys", "list", "--demo"])).stdout).toContain("reader");
    expect((await run(["verify", "--demo"])).code).toBe(0);
    expect(existsSync(liveLedger)).toBe(false);
  }, 60_000);

  test("--demo with a database URL is a usage error", async () => {
    const r = await run(["keys", "list", "--demo"], { DATABASE_URL: "postgres://u@127.0.0.1:9/db" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--demo uses the demo's SQLite ledger");
  });
});

describe("a command that would create a new ledger says where first", () => {
  test("without --data-dir beside the demo: the live ledger's path and the demo's, then it is created; the next run says nothing", async () => {
    expect(existsSync(demoLedger)).toBe(true); // left by the test above
    const first = await run(["rates", "import", ratesSample, "--json"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`ca-ledger: no ledger at ${liveLedger} yet; creating a new one there. The demo's ledger is ${demoLedger}: add --demo to use it instead.\n`);
    expect(existsSync(liveLedger)).toBe(true);
    const again = await run(["keys", "create", "k", "--tenant", "acme", "--json"]);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: "" });
  }, 60_000);

  // SQLite's: a PostgreSQL ledger needs no data dir (its database is checked before it is named).
  if (testEngine === "sqlite")
    test("it is said before anything is created: a data dir that cannot be made still gets the line first", async () => {
      const file = join(tempDir(), "a-file");
      writeFileSync(file, "");
      const r = await run(["keys", "create", "k", "--tenant", "acme", "--data-dir", join(file, "ledger")]);
      expect(r.code).toBe(1);
      expect(r.stderr.split("\n")[0]).toBe(`ca-ledger: no ledger at ${join(file, "ledger", "ledger.db")} yet; creating a new one there.`);
    });

  test("every creating command, on this run's engine (a PostgreSQL database with no ledger is named by its URL)", async () => {
    const records = join(tempDir(), "records.json");
    const honx = readFixture("xstocks/HONx.json").corporateActions[0];
    writeFileSync(records, JSON.stringify([{ ...honx, eventId: "operator-1", version: 1, mint: HONX_MINT }]));
    for (const c of [["keys", "create", "k", "--tenant", "acme"], ["rates", "import", ratesSample], ["migrate"], ["import", "issuer-records", records]]) {
      const dir = join(tempDir(), "fresh");
      const args = [...c, ...ledgerArgs(dir)];
      const r = await run(args);
      const where = testEngine === "sqlite" ? join(dir, "ledger.db") : /postgres:\/\/\S+/.exec(r.stderr)?.[0];
      expect({ c, line: r.stderr.split("\n")[0] }).toEqual({ c, line: `ca-ledger: no ledger at ${where} yet; creating a new one there.` });
      expect((await run(args)).stderr).not.toContain("creating a new one");
    }
  }, 120_000);

  test("serve on a new data dir logs where it creates the ledger", async () => {
    const dir = join(tempDir(), "served");
    const s = await serveBinary(ledgerArgs(dir), { ...env, LOG_LEVEL: "info" });
    await s.stop();
    const line = s
      .stderr()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "creating a new ledger");
    expect(line?.ledger).toEqual(testEngine === "sqlite" ? join(dir, "ledger.db") : expect.stringMatching(/^postgres:\/\//));
  }, 60_000);
});
