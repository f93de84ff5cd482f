// Loads the embedded demo dataset into an empty data dir (decisions §9).
import type { Ledger } from "../ledger/db.ts";
import { writeDatasetLabel } from "../ledger/queries/common.ts";

export async function loadDemo(ledger: Ledger): Promise<void> {
  writeDatasetLabel(ledger.sqlite, { kind: "synthetic", description: "Embedded demo: real xStocks mints and issuer figures, synthetic wallets" });
}
