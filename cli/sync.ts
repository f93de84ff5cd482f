// `ca-ledger sync <owner> [--tenant]`: one sync in the foreground, with a progress bar on stderr.
import { defineCommand } from "citty";
import { isAddress } from "@solana/kit";
import { ensureTenant } from "../src/ledger/keys.ts";
import { createLogger } from "../src/log.ts";
import { bookEverythingDirty } from "../src/ledger/booking.ts";
import { pollIssuer } from "../src/sync/issuer-poll.ts";
import { runSyncJob } from "../src/sync/job.ts";
import { claimJobFor, registerAndEnqueue } from "../src/sync/queue.ts";
import { dataDirArg, fail, openFrom } from "./common.ts";

export const syncCommand = defineCommand({
  meta: { name: "sync", description: "Register a wallet for a tenant and sync it now, in the foreground" },
  args: {
    owner: { type: "positional", required: true, description: "Wallet address (base58)" },
    tenant: { type: "string", default: "local", description: "Tenant slug the wallet is registered for" },
    "skip-issuer": { type: "boolean", description: "Do not poll the issuer feed first" },
    ...dataDirArg,
  },
  async run({ args }) {
    const owner = String(args.owner);
    if (!isAddress(owner)) fail("owner must be a base58 Solana address of 32 bytes", 2);
    const { config, ledger } = openFrom(args);
    const logger = createLogger(config.logLevel);
    try {
      const tenantId = ensureTenant(ledger.sqlite, String(args.tenant), config.maxWallets);
      registerAndEnqueue(ledger.sqlite, tenantId, config.maxWallets, owner);
      if (!args["skip-issuer"]) {
        process.stderr.write("issuer feed… ");
        const r = await pollIssuer({ sqlite: ledger.sqlite, config });
        process.stderr.write(`${r.added} new revisions\n`);
      }
      // Claim this wallet's job (a running server might take it first: then we just report).
      const job = claimJobFor(ledger.sqlite, tenantId, owner);
      if (!job) return void process.stderr.write("the job was taken by a running server; see GET /v1/wallets/{owner}/status\n");
      const book = async () => void bookEverythingDirty(ledger.sqlite);
      const outcome = await runSyncJob({ sqlite: ledger.sqlite, config, logger, book }, job, (p) => {
        const width = 30;
        const filled = p.total ? Math.round((p.done / p.total) * width) : 0;
        process.stderr.write(`\r${p.phase.padEnd(20)} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${p.done}/${p.total}   `);
      });
      process.stderr.write(`\nsync ${outcome}\n`);
      if (outcome === "failed") process.exitCode = 1;
    } finally {
      ledger.close();
    }
  },
});
