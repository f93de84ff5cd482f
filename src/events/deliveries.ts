// The delivery worker as `serve` runs it (docs/events.md#delivery-and-retries): on the sync
// worker's thread, never the one that answers HTTP, in a loop of its own beside the sync jobs and
// the booker, on the same connection. It only claims deliveries and records outcomes, each a short
// statement or transaction, and waits on the network otherwise, so syncing and booking never wait
// for a receiver. The webhook key is loaded when a secret is first opened: a ledger without
// subscriptions needs none (and gets no key file).
import type { Logger } from "../log.ts";
import type { Sql } from "../ledger/sql/port.ts";
import type { OutcomeKind } from "./delivery-store.ts";
import { createSecretBox, type SecretBox } from "./secret-box.ts";
import { releaseOrphanedLeases, sqlDeliveryStore } from "./sql-store.ts";
import { createWebhookTransport } from "./transport.ts";
import { loadWebhookKey } from "./webhook-key.ts";
import { startDeliveryWorker, type DeliveryWorker } from "./worker.ts";

export interface ServeDeliveriesOptions {
  db: Sql;
  engine: "sqlite" | "postgres";
  dataDir: string;
  /** WEBHOOK_SECRET_KEY as the server was started with it (unset: the data dir's key file). */
  keyEnv: string | undefined;
  logger: Logger;
  /** The worker's clock (due times, leases); signatures always carry the wall clock's time. */
  now?: () => Date;
  onOutcome?: (kind: OutcomeKind) => void;
}

export async function startServeDeliveries(o: ServeDeliveriesOptions): Promise<DeliveryWorker> {
  // SQLite: this server holds the data dir's lock, so no other one delivers from it; a lease left
  // by a killed server is freed now instead of waited out (docs/events.md#delivery-and-retries).
  if (o.engine === "sqlite") {
    const freed = await releaseOrphanedLeases(o.db);
    if (freed) o.logger.info("webhook deliveries resumed after an unclean stop", { deliveries: freed });
  }
  let box: SecretBox | null = null;
  // Opened on first use; a key that cannot be loaded (PostgreSQL without the variable, a key file
  // others can read) fails that attempt with the reason, and is tried again at the next one.
  const secrets = { open: (sealed: string, context: string) => (box ??= createSecretBox(loadWebhookKey({ env: o.keyEnv, engine: o.engine, dataDir: o.dataDir }).key)).open(sealed, context) };
  return startDeliveryWorker({
    store: sqlDeliveryStore(o.db),
    send: createWebhookTransport(),
    secrets,
    now: o.now,
    signingNow: () => new Date(),
    logger: o.logger,
    onOutcome: (kind) => o.onOutcome?.(kind),
  });
}
