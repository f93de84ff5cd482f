// `ca-ledger migrate-to-postgres` (the compiled binary): a SQLite ledger (the demo, an issuer
// correction, a key) copied into an empty PostgreSQL database holds the same rows, verifies, and
// serves the same answers with the same key; a database that already holds a ledger is refused
// and left as it was; without a database URL it is a usage error.
import { afterAll, describe, expect, test } from "bun:test";
import { loadDemo } from "../../src/demo/load.ts";
import { describeUrl } from "../../src/describe-url.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { allScopes, createKey } from "../../src/ledger/keys.ts";
import { tablesInCopyOrder } from "../../src/ledger/copy.ts";
import { startServer } from "../../src/server.ts";
import { call } from "../harness/index.ts";
import { appendCorrection, cli, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { freshDatabase } from "../support/engine.ts";
import { everyRowOf, q } from "../support/sql.ts";

afterAll(removeTempDirs);

/** A SQLite ledger worth moving: the demo, a correction (reversals in the journal), a key. */
async function sqliteLedger(): Promise<{ dir: string; key: string; owner: string }> {
  const dir = tempDir("cal-move-");
  const ledger = await openLedger(dir);
  await loadDemo(ledger, new Date("2026-09-20T00:00:00Z"));
  await appendCorrection(ledger.db, 1);
  const { key } = await createKey(ledger.db, { name: "mover", tenant: "demo", scopes: [...allScopes] });
  const { owner } = (await ledger.db.get(...q<{ owner: string }>`SELECT owner FROM tenant_wallets ORDER BY owner LIMIT 1`))!;
  await ledger.close();
  return { dir, key, owner };
}

async function everyRow(l: Ledger) {
  const out: Record<string, unknown[]> = {};
  for (const table of tablesInCopyOrder) out[table] = await everyRowOf(l.db, table);
  return out;
}

describe("migrate-to-postgres", () => {
  test("copies every row, verifies the copy, and the copy serves what SQLite served", async () => {
    const { dir, key, owner } = await sqliteLedger();
    const url = freshDatabase("move");
    const r = cli(["migrate-to-postgres", "--data-dir", dir, "--database-url", url, "--json"]);
    // The copy's new ledger is announced, by the database's URL without its password.
    expect(r.stderr).toBe(`ca-ledger: no ledger at ${describeUrl(url)} yet; creating a new one there.\n`);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect({ ok: out.ok, mismatched: out.mismatched, failed: out.verify.checks.filter((c: { ok: boolean }) => !c.ok) }).toEqual({ ok: true, mismatched: [], failed: [] });
    expect(out.rows).toBeGreaterThan(400);

    const [sqlite, postgres] = [await openLedger(dir), await openLedger({ dataDir: dir, databaseUrl: url })];
    expect(await everyRow(postgres)).toEqual(await everyRow(sqlite));
    await sqlite.close();
    await postgres.close();

    // The same key, the same answers: served from the file, then from the database.
    const answers: unknown[] = [];
    for (const flags of [{ "data-dir": dir }, { "data-dir": tempDir(), "database-url": url }]) {
      const s = await startServer({ port: "0", host: "127.0.0.1", ...flags }, { offline: true, quiet: true, env: { LOG_LEVEL: "error" } });
      try {
        const paths = [`/v1/portfolio?owner=${owner}`, `/v1/journal?owner=${owner}&limit=500`, `/v2/actions?owner=${owner}&limit=500`, "/v2/taxonomy"];
        answers.push(await Promise.all(paths.map(async (p) => ({ ...(await call(s.url, p, { key })).body, asOf: null }))));
      } finally {
        await s.stop();
      }
    }
    expect(answers[1]).toEqual(answers[0]);
  }, 60_000);

  test("a database that already holds a ledger is refused, and keeps what it held", async () => {
    const { dir } = await sqliteLedger();
    const url = freshDatabase("occupied");
    expect(cli(["migrate-to-postgres", "--data-dir", dir, "--database-url", url]).code).toBe(0);
    const again = cli(["migrate-to-postgres", "--data-dir", dir, "--database-url", url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds ledger rows .*must be empty/);
    expect(again.stderr).not.toContain("password");
    const postgres = await openLedger({ dataDir: dir, databaseUrl: url });
    const sqlite = await openLedger(dir);
    expect(await everyRow(postgres)).toEqual(await everyRow(sqlite)); // nothing doubled
    await postgres.close();
    await sqlite.close();
  }, 60_000);

  test("without a database URL it is a usage error; without a SQLite ledger, a failure", () => {
    expect(cli(["migrate-to-postgres", "--data-dir", tempDir()]).code).toBe(2);
    const missing = cli(["migrate-to-postgres", "--data-dir", tempDir(), "--database-url", freshDatabase("nothing")]);
    expect({ code: missing.code, said: /no ledger at/.test(missing.stderr) }).toEqual({ code: 1, said: true });
  });
});
