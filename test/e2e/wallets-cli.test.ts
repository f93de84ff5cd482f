// `ca-ledger wallets remove <owner> --tenant <slug>` on the compiled binary, beside a running
// server on the same ledger: the tenant stops following the wallet (the server answers 404 for it
// at the next request, the other tenant still reads it), nothing is erased; usage errors exit 2,
// a wallet or tenant that is not there exits 1.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { registerAndEnqueue } from "../../src/ledger/queue.ts";
import { randomAddress } from "../harness/index.ts";
import { cliAsync, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { ledgerArgs } from "../support/engine.ts";
import { api, baseEnv, serveBinary, type Served } from "./trust-helpers.ts";

const env = baseEnv(tempDir("cal-wallets-home-"));
const running: Served[] = [];
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  removeTempDirs();
});

describe("ca-ledger wallets remove", () => {
  test("beside a running server: the tenant stops following it at once, the other tenant is untouched, nothing is erased", async () => {
    const dir = join(tempDir(), "ledger");
    const run = (args: string[]) => cliAsync([...args, ...ledgerArgs(dir)], env);
    const keyOf = async (tenant: string) => JSON.parse((await run(["keys", "create", "k", "--tenant", tenant, "--scopes", "ledger:read,wallets:sync", "--json"])).stdout).key as string;
    const acme = await keyOf("acme"),
      globex = await keyOf("globex");
    const owner = randomAddress();
    await withLedger(dir, async (l) => {
      for (const t of ["acme", "globex"]) await registerAndEnqueue(l.db, await ensureTenant(l.db, t), 100, owner);
    });
    const server = await serveBinary(ledgerArgs(dir), env);
    running.push(server);
    expect((await api(server.url, `/v1/wallets/${owner}/status`, acme)).status).toBe(200);

    const r = await run(["wallets", "remove", owner, "--tenant", "acme"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toBe(`Tenant acme no longer follows ${owner}. Its books stay in the ledger; registering it again serves them.\n`);
    const gone = await api(server.url, `/v1/wallets/${owner}/status`, acme);
    expect({ status: gone.status, code: gone.body.code }).toEqual({ status: 404, code: "wallet_not_registered" });
    expect((await api(server.url, `/v1/wallets/${owner}/status`, globex)).status).toBe(200);
    // Registering again through the server works, within the quota it freed.
    expect((await api(server.url, "/v1/wallets/sync", acme, { owner })).body).toMatchObject({ registration: "registered" });

    const again = await run(["wallets", "remove", owner, "--tenant", "globex"]);
    expect(again.code).toBe(0);
    const twice = await run(["wallets", "remove", owner, "--tenant", "globex"]);
    expect({ code: twice.code, stderr: twice.stderr }).toEqual({ code: 1, stderr: `ca-ledger: tenant globex does not follow ${owner}\n` });
    const nobody = await run(["wallets", "remove", owner, "--tenant", "nobody"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain("no tenant nobody");
  }, 60_000);

  test("usage errors exit 2 and change nothing; a missing ledger exits 1 and creates none", async () => {
    const dir = join(tempDir(), "none");
    for (const args of [
      ["wallets", "remove", "not-an-address", "--tenant", "acme"],
      ["wallets", "remove", randomAddress()],
      ["wallets", "remove", randomAddress(), "--tenant", "acme", "--bogus"],
    ]) {
      const r = await cliAsync([...args, "--data-dir", dir], env);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
    const missing = await cliAsync(["wallets", "remove", randomAddress(), "--tenant", "acme", "--data-dir", dir], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no ledger at");
    expect(existsSync(dir)).toBe(false);
  });
});
