// `ca-ledger keys create|list|revoke` (docs/cli.md#keys).
import { defineCommand } from "citty";
import { createKey, KeyError, listKeys, parseScopes, revokeKey } from "../src/ledger/keys.ts";
import { fail, openExisting, openFrom, settingArgs } from "./common.ts";

const create = defineCommand({
  meta: { name: "create", description: "Create a key (the tenant is created on first use); the key is shown once" },
  args: {
    name: { type: "positional", required: true, description: "A label for the key" },
    tenant: { type: "string", required: true, description: "Tenant slug, ^[a-z0-9][a-z0-9-]{1,39}$" },
    scopes: { type: "string", description: "Comma-separated: assets:read,ledger:read,wallets:sync,ops:read (default assets:read,ledger:read)" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("keys"),
  },
  async run({ args }) {
    let scopes;
    try {
      scopes = parseScopes(args.scopes);
    } catch (e) {
      fail((e as Error).message, 2);
    }
    const { ledger } = await openFrom(args);
    try {
      const k = await createKey(ledger.db, { name: String(args.name), tenant: String(args.tenant), scopes });
      if (args.json) process.stdout.write(JSON.stringify(k) + "\n");
      else process.stdout.write(`Created key ${k.id} for tenant ${k.tenant} (${k.scopes.join(", ")}).\nKey (shown once, store it now):\n${k.key}\n`);
    } catch (e) {
      if (e instanceof KeyError) fail(e.message, e.usage ? 2 : 1);
      throw e;
    } finally {
      await ledger.close();
    }
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List keys (never the key or its hash)" },
  args: { tenant: { type: "string", description: "Only this tenant" }, json: { type: "boolean", description: "Print JSON" }, ...settingArgs("keys") },
  async run({ args }) {
    const ledger = await openExisting(args, { migrate: true });
    const keys = await listKeys(ledger.db, args.tenant);
    await ledger.close();
    if (args.json) return void process.stdout.write(JSON.stringify(keys) + "\n");
    if (!keys.length) return void process.stdout.write("No keys.\n");
    const rows = keys.map((k) => [k.id, k.prefix, k.tenant, k.name, k.scopes.join(","), k.createdAt, k.lastUsedAt ?? "-", k.revoked ? `revoked ${k.revokedAt}` : "active"]);
    const head = ["ID", "PREFIX", "TENANT", "NAME", "SCOPES", "CREATED", "LAST USED", "STATE"];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [head, ...rows])
      process.stdout.write(
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd() + "\n",
      );
  },
});

const revoke = defineCommand({
  meta: { name: "revoke", description: "Revoke a key; a running server refuses it on the next request" },
  args: { id: { type: "positional", required: true, description: "Key id (key_...)" }, ...settingArgs("keys") },
  async run({ args }) {
    const ledger = await openExisting(args, { migrate: true });
    const ok = await revokeKey(ledger.db, String(args.id));
    await ledger.close();
    if (!ok) fail(`no active key with id ${args.id}`, 1);
    process.stdout.write(`Revoked ${args.id}.\n`);
  },
});

export const keysCommand = defineCommand({
  meta: { name: "keys", description: "Manage API keys" },
  subCommands: { create, list, revoke },
});
