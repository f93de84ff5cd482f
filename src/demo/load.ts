// Loads the embedded demo (decisions §9) into an empty data dir: the snapshot's observations go
// through the same store and replay as a live sync, then the demo tenant gets its wallets.
import type { Ledger } from "../ledger/db.ts";
import { ensureTenant } from "../ledger/keys.ts";
import { writeDatasetLabel } from "../ledger/queries/common.ts";
import { replayLedger } from "../ledger/replay.ts";
import { storeObservations } from "../ledger/store.ts";
import snapshot from "./snapshot.json" with { type: "json" };

export const demoTenant = "demo";

export function demoOwners(): string[] {
  return snapshot.wallets.map((w) => w.owner);
}

export async function loadDemo(ledger: Ledger, now = new Date()): Promise<void> {
  const { sqlite } = ledger;
  writeDatasetLabel(sqlite, { kind: "synthetic", description: "Embedded demo: real xStocks mints, multipliers and issuer figures; synthetic wallets" }, now);
  const already = (sqlite.query("SELECT count(*) AS n FROM actions").get() as { n: number }).n > 0;
  if (already) return;
  storeObservations(sqlite, {
    instruments: snapshot.instruments,
    issuerRecords: snapshot.issuerRecords as never,
    multiplierUpdates: snapshot.multiplierUpdates,
    mintStates: snapshot.mintStates,
    tokenAccounts: snapshot.wallets.flatMap((w) => w.accounts.map((a) => ({ ...a, rawBalance: BigInt(a.rawBalance) }))),
    balanceChanges: snapshot.wallets.flatMap((w) => w.balanceChanges.map((b) => ({ ...b, preRaw: BigInt(b.preRaw), postRaw: BigInt(b.postRaw) }))),
  }, now);
  sqlite.transaction(() => {
    const tenantId = ensureTenant(sqlite, demoTenant, 100, now);
    const at = now.toISOString();
    for (const w of snapshot.wallets) {
      sqlite.query("INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(tenantId, w.owner, at);
      sqlite.query(
        `INSERT INTO sync_jobs (tenant_id, owner, status, requested_at, started_at, finished_at, attempts, phase, progress_done, progress_total, transactions_fetched)
         VALUES (?, ?, 'complete', ?, ?, ?, 1, 'done', ?, ?, ?) ON CONFLICT DO NOTHING`,
      ).run(tenantId, w.owner, at, at, at, w.balanceChanges.length, w.balanceChanges.length, w.balanceChanges.length);
    }
  }).immediate();
  replayLedger(sqlite, now);
}
