// `ca-ledger import cost-basis` through the compiled binary on the demo ledger: a refused file
// (a bad amount, a wallet no tenant follows, an unreadable path) names its line, field and code
// and stores nothing, in text or as the API's error body with --json; an unknown flag is a usage
// error; a good file is stored once (importing it again stores nothing), the declared cost
// becomes the lot's basis with source `declared` in GET /v2/lots, and `verify` checks it.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoTenant } from "../../src/demo/identity.ts";
import { lotInputs } from "../../src/ledger/read/lot-inputs.ts";
import { call } from "../harness/index.ts";
import { cli, demoDataDir, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { serveDemo } from "../support/demo-server.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

function fileWith(text: string): string {
  const path = join(tempDir("cal-cost-basis-"), "declarations.csv");
  writeFileSync(path, text);
  return path;
}

const declarationCount = (dir: string) => withLedger(dir, async (l) => (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM cost_basis_declarations`))!.n);

describe("ca-ledger import cost-basis", async () => {
  const dir = await demoDataDir();
  // A demo acquisition whose cost the chain does not show (a transfer in): what an operator declares.
  const unpriced = await withLedger(dir, async (l) => {
    const tenant = (await l.db.get(...q<{ id: number }>`SELECT id FROM tenants WHERE slug = ${demoTenant}`))!.id;
    const input = await lotInputs(l.db, tenant);
    return input.movements.find((m) => m.rawDelta > 0n && m.usd === null && m.counterpart === null)!;
  });

  test("a refused file names line, field and code, and stores nothing; --json gives the error body", async () => {
    expect(unpriced).toBeDefined();
    const bad = fileWith(`owner,signature,costUsd\n${unpriced.owner},${unpriced.signature},12.5\n${unpriced.owner},${unpriced.signature},-3\n`);
    const r = cli(["import", "cost-basis", bad, "--data-dir", dir]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toMatch(/line 3, costUsd: .*nothing was imported \(invalid_cost_basis\)/);
    const j = cli(["import", "cost-basis", bad, "--data-dir", dir, "--json"]);
    expect(j.code).toBe(1);
    const body = JSON.parse(j.stderr);
    expect(body.code).toBe("invalid_cost_basis");
    expect(body.error).toContain("line 3, costUsd");
    const stranger = cli(["import", "cost-basis", fileWith(`owner,signature,costUsd\n11111111111111111111111111111111,${unpriced.signature},1\n`), "--data-dir", dir]);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/line 2, owner: no tenant follows 11111111111111111111111111111111.*\(unknown_wallet\)/);
    const missing = cli(["import", "cost-basis", join(dir, "no-such.csv"), "--data-dir", dir]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("(unreadable_file)")]);
    expect(cli(["import", "cost-basis", bad, "--data-dir", dir, "--bogus"]).code).toBe(2);
    expect(await declarationCount(dir)).toBe(0);
  });

  test("a good file is stored once; the lot shows the declared basis with source declared; verify passes", async () => {
    const good = fileWith(`owner,signature,costUsd\n${unpriced.owner},${unpriced.signature},1234.5\n`);
    const r = cli(["import", "cost-basis", good, "--data-dir", dir, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ declarations: 1, stored: 1, alreadyStored: 0, wallets: [unpriced.owner] });
    const again = cli(["import", "cost-basis", good, "--data-dir", dir]);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("0 stored with source operator, 1 already stored")]);
    expect(await declarationCount(dir)).toBe(1);
    const verify = cli(["verify", "--data-dir", dir, "--json"]);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout).checks.map((c: { name: string }) => c.name)).toContain("cost_basis_declarations.payload_sha256");
    const srv = await serveDemo(dir);
    try {
      const lots = (await call(srv.url, `/v2/lots?owner=${unpriced.owner}&asOf=2030-01-01`, { key: srv.key })).body;
      const lot = lots.lots.find((l: { origin: { signature: string | null } }) => l.origin.signature === unpriced.signature);
      expect(lot).toBeDefined();
      expect([lot.source, lot.basisKnown]).toEqual(["declared", true]);
    } finally {
      await srv.stop();
    }
  });
});
