// The sync queue moved into the ledger (src/ledger/queue.ts); src/http still imports it from here.
export * from "../ledger/queue.ts";
