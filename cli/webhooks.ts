// `ca-ledger webhooks add|list|remove|deliveries|test|rotate` (docs/cli.md#webhooks): a tenant's signed
// webhooks (docs/events.md). The commands write the ledger; a running server (`serve`) delivers.
import { defineCommand } from "citty";
import { EventInputError } from "../src/domain/events/types.ts";
import { SubscriptionInputError } from "../src/domain/events/subscription.ts";
import { createSecretBox } from "../src/events/secret-box.ts";
import { loadWebhookKey, WEBHOOK_KEY_ENV, WebhookKeyError } from "../src/events/webhook-key.ts";
import type { Ledger } from "../src/ledger/db.ts";
import {
  addSubscription,
  checkSubscriptionInput,
  deliveryById,
  finishRotation,
  listDeliveries,
  listSubscriptions,
  queueTestDelivery,
  removeSubscription,
  rotateSecret,
  WebhookError,
  type DeliveryListing,
} from "../src/ledger/webhooks.ts";
import { configFrom, fail, openExisting, settingArgs } from "./common.ts";

const json = { type: "boolean", description: "Print JSON" } as const;
const idArg = { type: "positional", required: true, description: "Subscription id (whs_...)" } as const;

/** Runs `work` on the existing ledger and closes it; a known refusal is exit 1 with its message. */
async function withLedger<T>(args: Record<string, unknown>, work: (ledger: Ledger) => Promise<T>): Promise<T> {
  const ledger = await openExisting(args, { migrate: true });
  try {
    return await work(ledger);
  } catch (e) {
    if (e instanceof WebhookError || e instanceof WebhookKeyError) fail(e.message, 1);
    throw e;
  } finally {
    await ledger.close();
  }
}

/** What seals a new secret: WEBHOOK_SECRET_KEY, else the data dir's key file (made now if new, said on stderr). */
function sealingBox(ledger: Ledger, dataDir: string) {
  const key = loadWebhookKey({ env: process.env[WEBHOOK_KEY_ENV], engine: ledger.engine, dataDir });
  if (key.source === "created") process.stderr.write(`ca-ledger: created the webhook key ${key.path}; keep it with the ledger's backups (docs/events.md#secrets-at-rest)\n`);
  return createSecretBox(key.key);
}

/** Rows as left-aligned columns under a header. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows]
    .map(
      (r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd() + "\n",
    )
    .join("");
}

const add = defineCommand({
  meta: { name: "add", description: "Add a webhook for a tenant's events; its signing secret is shown once" },
  args: {
    tenant: { type: "string", required: true, description: "Tenant slug (it must exist: keys create makes it)" },
    url: { type: "string", required: true, valueHint: "url", description: "Where deliveries are POSTed: http(s), no user name, password or #fragment" },
    events: { type: "string", valueHint: "a,b", description: "Comma-separated event types (action.scheduled, action.booked, action.revised, wallet.synced, wallet.gap); default all" },
    json,
    ...settingArgs("webhooks"),
  },
  async run({ args }) {
    try {
      checkSubscriptionInput({ url: String(args.url), events: args.events });
    } catch (e) {
      if (e instanceof SubscriptionInputError || e instanceof EventInputError) fail(e.message, 2);
      throw e;
    }
    const config = configFrom(args);
    const added = await withLedger(args, async (ledger) => addSubscription(ledger.db, sealingBox(ledger, config.dataDir), { tenant: String(args.tenant), url: String(args.url), events: args.events }));
    if (args.json) return void process.stdout.write(JSON.stringify(added) + "\n");
    process.stdout.write(
      `Added webhook ${added.id} for tenant ${added.tenant}: ${added.receiver}, ${added.events ? `events ${added.events.join(", ")}` : "every event type"}.\n` +
        `Secret (shown once; the receiver verifies each delivery with it):\n${added.secret}\n`,
    );
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List webhooks: receiver (scheme, host, port), events, deliveries; never the secret, the URL's path or query" },
  args: { tenant: { type: "string", description: "Only this tenant" }, json, ...settingArgs("webhooks") },
  async run({ args }) {
    const subs = await withLedger(args, (ledger) => listSubscriptions(ledger.db, args.tenant));
    if (args.json) return void process.stdout.write(JSON.stringify(subs) + "\n");
    if (!subs.length) return void process.stdout.write("No webhooks.\n");
    process.stdout.write(
      table(
        ["ID", "TENANT", "RECEIVER", "EVENTS", "PENDING", "DELIVERED", "FAILED", "LAST ATTEMPT", "STATE"],
        subs.map((s) => [
          s.id,
          s.tenant,
          s.receiver,
          s.events?.join(",") ?? "all",
          String(s.deliveries.pending),
          String(s.deliveries.delivered),
          String(s.deliveries.failed),
          s.lastAttemptAt ?? "-",
          s.removedAt ? `removed ${s.removedAt}` : "active",
        ]),
      ),
    );
  },
});

const remove = defineCommand({
  meta: { name: "remove", description: "Remove a webhook: nothing more is delivered to it; its pending deliveries are failed" },
  args: { id: idArg, ...settingArgs("webhooks") },
  async run({ args }) {
    const removed = await withLedger(args, (ledger) => removeSubscription(ledger.db, String(args.id)));
    if (!removed) fail(`no live webhook subscription ${args.id}`, 1);
    process.stdout.write(`Removed ${args.id}: nothing more is delivered to it.\n`);
  },
});

const answerOf = (d: DeliveryListing) => (d.lastAnswer ?? "-").replace(/\s+/g, " ");

const deliveries = defineCommand({
  meta: { name: "deliveries", description: "A webhook's deliveries, newest first: status, attempts, next attempt, last answer" },
  args: {
    id: idArg,
    limit: { type: "string", valueHint: "n", description: "At most this many (default 50)" },
    json,
    ...settingArgs("webhooks"),
  },
  async run({ args }) {
    const limit = args.limit === undefined ? 50 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) fail("--limit is a whole number from 1 to 10000", 2);
    const rows = await withLedger(args, (ledger) => listDeliveries(ledger.db, String(args.id), limit));
    if (rows === null) fail(`no webhook subscription ${args.id}`, 1);
    if (args.json) return void process.stdout.write(JSON.stringify(rows) + "\n");
    if (!rows.length) return void process.stdout.write("No deliveries yet.\n");
    process.stdout.write(
      table(
        ["DELIVERY", "EVENT", "TYPE", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ATTEMPT", "LAST STATUS", "LAST ANSWER"],
        rows.map((d) => [d.id, d.eventId, d.type, d.status, String(d.attempts), d.nextAttemptAt ?? "-", d.lastAttemptAt ?? "-", d.lastStatus === null ? "-" : String(d.lastStatus), answerOf(d)]),
      ),
    );
  },
});

const test = defineCommand({
  meta: { name: "test", description: "Send the webhook its latest event again (or a ping) and wait for the running server's first attempt" },
  args: {
    id: idArg,
    wait: { type: "string", valueHint: "seconds", description: "How long to wait for the attempt's outcome (default 15; 0: only queue it)" },
    json,
    ...settingArgs("webhooks"),
  },
  async run({ args }) {
    const wait = args.wait === undefined ? 15 : Number(args.wait);
    if (!Number.isFinite(wait) || wait < 0 || wait > 600) fail("--wait is a number of seconds from 0 to 600", 2);
    const { queued, outcome } = await withLedger(args, async (ledger) => {
      const queued = await queueTestDelivery(ledger.db, String(args.id));
      // The server's delivery worker takes it (within a second); its first attempt ends within 10 s.
      const end = Date.now() + wait * 1000;
      let outcome = await deliveryById(ledger.db, queued.deliveryId);
      while (outcome && outcome.lastAttemptAt === null && outcome.status === "pending" && Date.now() < end) {
        await Bun.sleep(200);
        outcome = await deliveryById(ledger.db, queued.deliveryId);
      }
      return { queued, outcome };
    });
    const sent = outcome !== null && (outcome.lastAttemptAt !== null || outcome.status !== "pending");
    if (args.json) process.stdout.write(JSON.stringify({ ...queued, delivery: outcome }) + "\n");
    else {
      process.stdout.write(`Queued ${queued.eventId} (${queued.type}${queued.again ? ", sent again: the same webhook-id" : ""}) for ${queued.subscriptionId} as delivery ${queued.deliveryId}.\n`);
      if (wait === 0) return;
      if (!sent) process.stdout.write(`No attempt within ${wait} s: a running server on this ledger sends it (is one running?).\n`);
      else if (outcome!.status === "delivered") process.stdout.write(`Delivered: ${answerOf(outcome!)}\n`);
      else process.stdout.write(`Attempt ${outcome!.attempts} failed: ${answerOf(outcome!)}${outcome!.nextAttemptAt ? `; next attempt at ${outcome!.nextAttemptAt}` : ""}\n`);
    }
    if (wait > 0 && outcome?.status !== "delivered") process.exit(1);
  },
});

const rotate = defineCommand({
  meta: { name: "rotate", description: "Start a secret rotation (a new secret, shown once, signs beside the old one) or, with --finish, end it (only the newest signs)" },
  args: { id: idArg, finish: { type: "boolean", description: "End the rotation: drop every secret but the newest" }, json, ...settingArgs("webhooks") },
  async run({ args }) {
    const config = configFrom(args);
    if (args.finish) {
      const dropped = await withLedger(args, (ledger) => finishRotation(ledger.db, String(args.id)));
      if (args.json) return void process.stdout.write(JSON.stringify({ id: args.id, dropped }) + "\n");
      return void process.stdout.write(`Rotation of ${args.id} finished: ${dropped} older secret${dropped === 1 ? "" : "s"} dropped; only the newest signs.\n`);
    }
    const rotated = await withLedger(args, (ledger) => rotateSecret(ledger.db, sealingBox(ledger, config.dataDir), String(args.id)));
    if (args.json) return void process.stdout.write(JSON.stringify(rotated) + "\n");
    process.stdout.write(
      `New secret for ${rotated.id} (shown once); deliveries are signed with it and the ${rotated.secretsInForce - 1} in force until you run webhooks rotate ${rotated.id} --finish:\n${rotated.secret}\n`,
    );
  },
});

export const webhooksCommand = defineCommand({
  meta: { name: "webhooks", description: "Manage a tenant's signed webhooks (docs/events.md)" },
  subCommands: { add, list, remove, deliveries, test, rotate },
});
