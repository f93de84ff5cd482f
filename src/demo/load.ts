// Loads the embedded demo (docs/demo.md) into an empty data dir. It registers the demo wallets
// and syncs them through the same worker code a live sync uses (issuer poll, chain sync, store,
// replay), with a recorded transport in place of the network.
import { loadConfig, type Config } from "../config.ts";
import { bookEverythingDirty } from "../ledger/booking.ts";
import type { Ledger } from "../ledger/db.ts";
import { ensureTenant } from "../ledger/keys.ts";
import { actionCount, writeDatasetLabel } from "../ledger/queries/common.ts";
import { createLogger } from "../log.ts";
import { pollIssuer } from "../sync/issuer-poll.ts";
import { runSyncJob } from "../sync/job.ts";
import { claimJob, registerAndEnqueue } from "../ledger/queue.ts";
import recording from "./recording.json" with { type: "json" };
import { DEMO_LABEL, demoTenant } from "./identity.ts";
import { demoFetch, demoIssuerUrl, demoRpcUrl, type DemoRecording } from "./transport.ts";

export { DEMO_LABEL, demoKeyPrefix, demoOwners, demoTenant } from "./identity.ts";

/** The demo's sources: the recorded transport in place of the RPC provider and the issuer API. */
export function demoSources(base: Config, from: DemoRecording = recording as unknown as DemoRecording) {
  return { config: { ...base, solanaRpcUrl: demoRpcUrl, xstocksApiUrl: demoIssuerUrl }, fetch: demoFetch(from) };
}

export interface DemoLoad {
  synced: number;
  failed: number;
  ms: number;
}

/** `from`: another recording in the same format (a test replays an older demo); default the embedded one. */
export async function loadDemo(ledger: Ledger, now = new Date(), base: Config = loadConfig({}, {}), from: DemoRecording = recording as unknown as DemoRecording): Promise<DemoLoad> {
  const started = performance.now();
  const { db } = ledger;
  await writeDatasetLabel(db, DEMO_LABEL, now);
  const result: DemoLoad = { synced: 0, failed: 0, ms: 0 };
  if ((await actionCount(db)) > 0) return result; // already loaded
  const book = async () => void (await bookEverythingDirty(db, now));
  const deps = { db, ...demoSources(base, from), logger: createLogger("warn"), now: () => now, book };
  await pollIssuer(deps);
  const tenantId = await ensureTenant(db, demoTenant, base.maxWallets, now);
  for (const owner of from.owners) await registerAndEnqueue(db, tenantId, base.maxWallets, owner, now);
  for (let job = await claimJob(db, now); job; job = await claimJob(db, now)) {
    const outcome = await runSyncJob(deps, job);
    if (outcome === "failed") result.failed++;
    else result.synced++;
  }
  result.ms = Math.round(performance.now() - started);
  return result;
}
