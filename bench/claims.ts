// Sync-queue claims at scale (docs/operations.md#fair-share): 10,000 queued jobs of 100 tenants,
// then 200 claims (round-robin by tenant) and 200 claims of the worker's spare slot; prints the
// mean time of each. SQLite in a temp data dir, or the PostgreSQL database DATABASE_URL names
// (an empty one: the ledger's migrations are applied to it).
//   bun run bench/claims.ts
//   DATABASE_URL=postgres://… bun run bench/claims.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLedger } from "../src/ledger/db.ts";
import { ensureTenant } from "../src/ledger/keys.ts";
import { claimJob } from "../src/ledger/queue.ts";
import { q } from "../test/support/sql.ts";

const JOBS = 10_000,
  TENANTS = 100,
  CLAIMS = 200;
const dataDir = mkdtempSync(join(tmpdir(), "cal-bench-claims-"));
const ledger = await openLedger({ dataDir, databaseUrl: process.env.DATABASE_URL || null });
const tenants: number[] = [];
for (let t = 0; t < TENANTS; t++) tenants.push(await ensureTenant(ledger.db, `bench-${t}`));
const at = new Date().toISOString();
await ledger.db.write(async (tx) => {
  for (let i = 0; i < JOBS; i++) await tx.run(...q`INSERT INTO sync_jobs (tenant_id, owner, status, requested_at) VALUES (${tenants[i % TENANTS]!}, ${`wallet-${i}`}, 'queued', ${at})`);
});
const mean = async (claim: () => Promise<unknown>) => {
  const started = performance.now();
  for (let i = 0; i < CLAIMS; i++) await claim();
  return ((performance.now() - started) / CLAIMS).toFixed(1);
};
const fair = await mean(() => claimJob(ledger.db));
const spare = await mean(() => claimJob(ledger.db, new Date(), { idleTenantOnly: true }));
console.log(`${ledger.engine}: ${JOBS} queued jobs of ${TENANTS} tenants: a claim ${fair} ms, a spare-slot claim ${spare} ms (mean of ${CLAIMS})`);
await ledger.close();
rmSync(dataDir, { recursive: true, force: true });
