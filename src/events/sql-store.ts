// The outbox on the ledger's database lives in the ledger, beside its statements
// (src/ledger/outbox.ts); the delivery worker and the tests import it from here.
export * from "../ledger/outbox.ts";
