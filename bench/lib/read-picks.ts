// What the read benchmarks (bench/http.ts, http-alternate.ts, http-inprocess.ts) ask for on a grown
// ledger, and how they compare what servers answer.
import type { Database } from "bun:sqlite";

/** The followed wallet with the most actions: the heaviest of the wallet-scoped reads. */
export function busiestWallet(db: Database): string {
  return (db.query("SELECT owner, count(*) AS n FROM actions WHERE owner IN (SELECT owner FROM tenant_wallets) GROUP BY owner ORDER BY n DESC LIMIT 1").get() as { owner: string }).owner;
}

/** Of a wallet's actions, the one with the most journal entries (the latest of those): the heaviest detail. */
export function richestAction(db: Database, owner: string): string {
  return (db.query("SELECT a.id FROM actions a WHERE a.owner = ? ORDER BY (SELECT count(*) FROM journal j WHERE j.action_id = a.id) DESC, a.effective_at DESC LIMIT 1").get(owner) as { id: string })
    .id;
}

/** An answer as two servers must agree on it: without the time it was asked (`asOf`). */
export const withoutAsOf = (text: string): string => text.replace(/"asOf":"[^"]*"/, "");
