// A real PostgreSQL reached with a URL that carries its password twice (user part and query) and
// a fragment (docs/postgres.md#the-database-url): migrate-to-postgres, serve's startup log and the
// server's own refusal (a database that does not exist) name it by host, port and database only.
import { afterAll, describe, expect, test } from "bun:test";
import { openLedger } from "../../src/ledger/db.ts";
import { cliAsync, ensureBinary, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { freshDatabase } from "../support/engine.ts";

afterAll(removeTempDirs);

const secrets = ["pw-SECRET-1a", "pw-SECRET-2b", "SECRET-3c"];
/** The same database, its password in the user part and in the query, and a fragment (trust authentication ignores the password). */
function withSecrets(url: string): { raw: string; shown: string } {
  const u = new URL(url);
  const raw = `postgres://${u.username || "postgres"}:${secrets[0]}@${u.host}${u.pathname}?password=${secrets[1]}#${secrets[2]}`;
  return { raw, shown: `postgres://${u.host}${u.pathname}` };
}
const leaked = (text: string) => secrets.filter((s) => text.includes(s)).concat(text.includes("SECRET") ? ["SECRET"] : []);

describe("a database URL with its secrets, on a real server", () => {
  test("migrate-to-postgres, serve's startup log and the server's refusal show host, port and database only", async () => {
    const dir = tempDir("cal-pg-secrets-");
    await (await openLedger(dir)).close();
    const { raw, shown } = withSecrets(freshDatabase("secrets"));

    const moved = await cliAsync(["migrate-to-postgres", "--data-dir", dir], { DATABASE_URL: raw });
    expect({ code: moved.code, leaked: leaked(moved.stdout + moved.stderr) }).toEqual({ code: 0, leaked: [] });

    const proc = Bun.spawn([ensureBinary(), "serve", "--port", "0", "--data-dir", tempDir()], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1", DATABASE_URL: raw, XSTOCKS_API_URL: "off", LOG_LEVEL: "info" },
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
      while (!stderr.includes('"msg":"listening"')) {
        if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not log listening: ${stderr}`);
        await Bun.sleep(50);
      }
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      await reading;
    }
    const listening = JSON.parse(stderr.split("\n").find((l) => l.includes('"msg":"listening"'))!);
    expect(listening.ledger).toBe(shown);
    expect(leaked(stderr)).toEqual([]);

    const missing = withSecrets(freshDatabase("secrets_gone").replace(/\/[^/]*$/, "/cal_no_such_database"));
    const refused = await cliAsync(["keys", "list", "--data-dir", tempDir()], { DATABASE_URL: missing.raw });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith(`ca-ledger: cannot open the ledger at ${missing.shown}: `);
    expect(leaked(refused.stdout + refused.stderr)).toEqual([]);
  }, 90_000);
});
