// `ca-ledger sync <owner>` in the foreground against loopback wire-format servers: it registers
// the wallet, polls the issuer, syncs with a progress bar on stderr, and leaves the job complete.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../../src/ledger/db.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";
import { ledgerEnv, ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const dir = mkdtempSync(join(tmpdir(), "cal-sync-cmd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("sync runs one wallet to completion in the foreground", async () => {
  const s = buildWalletScenario({ transfers: 20 });
  s.addUpdate(1.0031, 1789500000); // a change while the wallet holds HONx
  const rpc = startRpcServer(s.chain);
  const issuer = startIssuerServer(loadIssuerFixture());
  try {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../cli/main.ts"), "sync", s.owner, "--tenant", "acme", "--data-dir", dir], {
      env: { ...process.env, ...ledgerEnv(dir), SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: issuer.url, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(0);
    expect(err).toMatch(/new revisions/);
    expect(err).toMatch(/account_history\s+\[#+\s*\]/); // the progress bar
    expect(err).toMatch(/sync complete/);
    const ledger = await openLedger(ledgerTarget(dir));
    const job = (await ledger.db.get(...q`SELECT j.status, t.slug FROM sync_jobs j JOIN tenants t ON t.id = j.tenant_id WHERE j.owner = ${s.owner}`)) as { status: string; slug: string };
    expect(job).toEqual({ status: "complete", slug: "acme" });
    expect(((await ledger.db.get(...q`SELECT count(*) AS n FROM actions WHERE owner = ${s.owner}`)) as { n: number }).n).toBe(1);
    await ledger.close();
  } finally {
    rpc.stop();
    issuer.stop();
  }

  const bad = Bun.spawn([process.execPath, join(import.meta.dir, "../../cli/main.ts"), "sync", "not-an-address", "--data-dir", dir], { stderr: "pipe", stdout: "pipe" });
  expect(await bad.exited).toBe(2);
});
