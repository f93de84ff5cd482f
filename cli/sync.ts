// `ca-ledger sync <owner> [--tenant]`: one sync in the foreground, with a progress bar on stderr.
import { defineCommand } from "citty";
import { isAddress } from "@solana/kit";
import type { Ledger } from "../src/ledger/db.ts";
import { ensureTenant } from "../src/ledger/keys.ts";
import { readDatasetLabel } from "../src/ledger/queries/common.ts";
import { createLogger } from "../src/log.ts";
import { bookEverythingDirty } from "../src/ledger/booking.ts";
import { pollIssuer } from "../src/sync/issuer-poll.ts";
import { runSyncJob } from "../src/sync/job.ts";
import { claimWalletJob, jobById, registerAndEnqueue } from "../src/ledger/queue.ts";
import { fail, openFrom, settingArgs } from "./common.ts";

const defaultTenant = "local";

export const syncCommand = defineCommand({
  meta: { name: "sync", description: "Register a wallet for a tenant and sync it now, in the foreground" },
  args: {
    owner: { type: "positional", required: true, description: "Wallet address (base58)" },
    tenant: { type: "string", description: `Tenant slug the wallet is registered for (default ${defaultTenant})` },
    "skip-issuer": { type: "boolean", description: "Do not poll the issuer feed first" },
    ...settingArgs("sync"),
  },
  async run({ args }) {
    const owner = String(args.owner);
    if (!isAddress(owner)) fail("owner must be a base58 Solana address of 32 bytes", 2);
    const { config, ledger } = await openFrom(args);
    const { db } = ledger;
    const logger = createLogger(config.logLevel);
    try {
      // A sync writes live issuer and chain data: never into the demo's synthetic ledger.
      if ((await readDatasetLabel(db))?.kind === "synthetic") {
        fail(`data dir ${config.dataDir} holds the synthetic demo ledger; sync live wallets into another one (pass --data-dir)`, 1);
      }
      const tenant = args.tenant === undefined ? defaultTenant : String(args.tenant);
      if (args.tenant === undefined) process.stderr.write(`tenant ${tenant} (the default; choose one with --tenant)\n`);
      const tenantId = await ensureTenant(db, tenant, config.maxWallets);
      await registerAndEnqueue(db, tenantId, config.maxWallets, owner);
      if (!args["skip-issuer"]) {
        process.stderr.write("issuer feed… ");
        const r = await pollIssuer({ db, config });
        process.stderr.write(r.off ? "off (XSTOCKS_API_URL=off)\n" : r.degraded ? `degraded: ${r.degraded}\n` : `${r.added} new revisions\n`);
      }
      const claim = await claimWalletJob(db, tenantId, owner);
      if ("held" in claim) {
        return void process.stderr.write(`a running server is syncing this wallet now (since ${claim.held.started_at}); see GET /v1/wallets/${owner}/status\n`);
      }
      // Booked here, in the foreground: this process is the only writer it knows of.
      const book = async () => void (await bookEverythingDirty(db));
      const outcome = await runSyncJob({ db, config, logger, book }, claim.job, (p) => {
        const width = 30;
        const filled = p.total ? Math.round((p.done / p.total) * width) : 0;
        process.stderr.write(`\r${p.phase.padEnd(20)} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${p.done}/${p.total}   `);
      });
      process.stderr.write(`\nsync ${outcome}\n`);
      if (outcome === "failed") {
        process.stderr.write(await failureReport(ledger, claim.job.id));
        process.exitCode = 1;
      }
    } finally {
      await ledger.close();
    }
  },
});

/** What went wrong, from the job row, and what happens next. */
async function failureReport(ledger: Ledger, id: number): Promise<string> {
  const job = (await jobById(ledger.db, id))!;
  const next =
    job.status === "queued" && job.next_retry_at
      ? `ca-ledger serve retries it after ${job.next_retry_at}; run sync again to retry now`
      : `no more automatic retries (attempt ${job.attempts}); run sync again to retry`;
  return `error: ${job.error ?? "unknown"}\n${next}\n`;
}
