// Secrets in the settings' URLs never reach what the compiled binary prints (docs/postgres.md#the-database-url):
// a database URL is shown as its host, port and database, whatever password it carries (in its
// user part or its query) and whatever fragment; a provider's URL as its scheme and host, its
// keys (path, query, user part) nowhere: not in the startup log, not in an error, not in the
// log lines of a provider that refuses us.
import { afterAll, describe, expect, test } from "bun:test";
import { openLedger } from "../../src/ledger/db.ts";
import { ensureBinary, cliAsync, removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

const secrets = { password: "pw-SECRET-1a", queryPassword: "pw-SECRET-2b", fragment: "SECRET-3c", pathKey: "key-SECRET-4d", queryKey: "key-SECRET-5e", user: "SECRET-user-6f" };
const leaked = (text: string) =>
  Object.values(secrets)
    .filter((s) => text.includes(s))
    .concat(text.includes("SECRET") ? ["SECRET"] : []);

/** An unreachable PostgreSQL (nothing listens on port 1) named with every kind of secret. */
const unreachableDatabase = `postgres://ledger:${secrets.password}@127.0.0.1:1/cal_ledger?sslmode=disable&password=${secrets.queryPassword}#${secrets.fragment}`;

async function sqliteDataDir(): Promise<string> {
  const dir = tempDir("cal-secrets-");
  await (await openLedger(dir)).close();
  return dir;
}

describe("a database URL", () => {
  test("is named by host, port and database in migrate-to-postgres, keys and serve, never with its password or fragment", async () => {
    const dir = await sqliteDataDir();
    const said = "ca-ledger: cannot open the ledger at postgres://127.0.0.1:1/cal_ledger: Failed to connect\n";
    const runs = {
      migrate: await cliAsync(["migrate-to-postgres", "--data-dir", dir, "--database-url", unreachableDatabase]),
      keys: await cliAsync(["keys", "list", "--data-dir", dir], { DATABASE_URL: unreachableDatabase }),
      serve: await cliAsync(["serve", "--port", "0", "--data-dir", dir], { DATABASE_URL: unreachableDatabase }),
    };
    for (const [command, r] of Object.entries(runs)) {
      expect({ command, code: r.code, stderr: r.stderr, leaked: leaked(r.stdout + r.stderr) }).toEqual({ command, code: 1, stderr: said, leaked: [] });
    }
  }, 60_000);
});

describe("a provider's URL", () => {
  test("is named by scheme and host in the startup log; the sync and poll failures it causes carry no key", async () => {
    ensureBinary();
    // A provider that refuses every call (401): the issuer poll and a sync fail at once.
    const provider = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("unauthorized", { status: 401 }) });
    const dir = await sqliteDataDir();
    const url = (path: string) => `http://${secrets.user}:x@127.0.0.1:${provider.port}/${path}/${secrets.pathKey}?api-key=${secrets.queryKey}#${secrets.fragment}`;
    const env = { SOLANA_RPC_URL: url("rpc"), XSTOCKS_API_URL: url("issuer"), LOG_LEVEL: "info" };
    const proc = Bun.spawn([ensureBinary(), "serve", "--port", "0", "--data-dir", dir], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    let stderr = "";
    const reading = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += dec.decode(chunk, { stream: true });
    })();
    try {
      const deadline = Date.now() + 30_000;
      // The worker thread can log its first failed poll before the main thread logs "listening": wait for both lines.
      while (!/"msg":"issuer poll failed".*\n/.test(stderr) || !/"msg":"listening".*\n/.test(stderr)) {
        if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`no issuer poll failure or listening line logged: ${stderr}`);
        await Bun.sleep(50);
      }
      const listening = stderr
        .split("\n")
        .filter((l) => l.includes('"msg":"listening"'))
        .map((l) => JSON.parse(l))[0];
      expect({ rpc: listening?.rpc, issuer: listening?.issuer }).toEqual({ rpc: `http://127.0.0.1:${provider.port}`, issuer: `http://127.0.0.1:${provider.port}` });

      const wallet = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
      const issuerFirst = await cliAsync(["sync", wallet, "--data-dir", tempDir("cal-secrets-sync-")], env);
      expect({ code: issuerFirst.code, said: issuerFirst.stderr.includes(`xStocks /public/assets at 127.0.0.1:${provider.port}: HTTP 401`) }).toEqual({ code: 1, said: true });
      const rpcOnly = await cliAsync(["sync", wallet, "--skip-issuer", "--data-dir", tempDir("cal-secrets-sync-")], env);
      expect({ code: rpcOnly.code, said: /\nerror: \S/.test(rpcOnly.stderr) }).toEqual({ code: 1, said: true });
      expect({ leaked: leaked(stderr + issuerFirst.stdout + issuerFirst.stderr + rpcOnly.stdout + rpcOnly.stderr) }).toEqual({ leaked: [] });
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      await reading;
      provider.stop(true);
    }
  }, 60_000);
});
