// `ca-ledger wallets remove <owner> --tenant <slug>` (docs/cli.md#wallets): the tenant stops
// following the wallet, as DELETE /v1/wallets/{owner} does; nothing is erased from the ledger.
import { defineCommand } from "citty";
import { isAddress } from "@solana/kit";
import { ledgerName } from "../src/ledger/db.ts";
import { findTenant } from "../src/ledger/keys.ts";
import { unregisterWallet } from "../src/ledger/queue.ts";
import { fail, openExisting, settingArgs } from "./common.ts";

const remove = defineCommand({
  meta: { name: "remove", description: "Stop following a wallet for a tenant; its books stay in the ledger, and registering it again serves them" },
  args: {
    owner: { type: "positional", required: true, description: "Wallet address (base58)" },
    tenant: { type: "string", required: true, description: "Tenant slug that follows the wallet" },
    ...settingArgs("wallets"),
  },
  async run({ args }) {
    const owner = String(args.owner);
    if (!isAddress(owner)) fail("owner must be a base58 Solana address of 32 bytes", 2);
    const ledger = await openExisting(args, { migrate: true });
    try {
      const tenantId = await findTenant(ledger.db, String(args.tenant));
      if (tenantId === null) fail(`no tenant ${args.tenant} in ${ledgerName(ledger)}`, 1);
      const { removed } = await unregisterWallet(ledger.db, tenantId, owner);
      if (!removed) fail(`tenant ${args.tenant} does not follow ${owner}`, 1);
      process.stdout.write(`Tenant ${args.tenant} no longer follows ${owner}. Its books stay in the ledger; registering it again serves them.\n`);
    } finally {
      await ledger.close();
    }
  },
});

export const walletsCommand = defineCommand({
  meta: { name: "wallets", description: "Manage the wallets tenants follow" },
  subCommands: { remove },
});
