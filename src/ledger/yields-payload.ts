// A wallet's yield records as its `yields` row stores them (docs/storage.md#yields), written and
// read here alone. The engine's records repeat the wallet, the mint, the symbol and every field
// name in each window; the row stores each run of windows of one mint once, as
// `[mint, symbol, window, window, …]`, each window the array of its values in WINDOW_FIELDS' order,
// each value as the engine gave it (every exact amount keeps its text). The owner is the row's.
// A row written before holds JSON.stringify of the records (an array of objects) and still reads;
// booking the wallet again rewrites it in this form.
import type { YieldRecord } from "../domain/types.ts";

/** A window's fields, in the order a stored window holds their values. */
const WINDOW_FIELDS = [
  "window",
  "from",
  "to",
  "status",
  "partialCode",
  "incomeUsd",
  "incomeUnits",
  "averageQuantity",
  "shareYield",
  "annualisedShareYield",
  "distributionPerShareUsd",
] as const satisfies readonly Exclude<keyof YieldRecord, "owner" | "mint" | "symbol">[];

type Window = Pick<YieldRecord, (typeof WINDOW_FIELDS)[number]>;
type StoredWindow = Window[keyof Window][];
type StoredRun = [mint: string, symbol: string, ...windows: StoredWindow[]];

/** The text a wallet's `yields` row stores for its records (all of them the wallet's). */
export function encodeYields(records: readonly YieldRecord[]): string {
  const runs: StoredRun[] = [];
  let run: StoredRun | undefined;
  for (const y of records) {
    if (!run || run[0] !== y.mint || run[1] !== y.symbol) runs.push((run = [y.mint, y.symbol]));
    run.push(WINDOW_FIELDS.map((f) => y[f]));
  }
  return JSON.stringify(runs);
}

/** The records a `yields` row of `owner` stores, in either form. */
export function decodeYields(owner: string, text: string): YieldRecord[] {
  const stored = JSON.parse(text) as unknown[];
  if (!isEncoded(stored)) return stored as YieldRecord[];
  return (stored as StoredRun[]).flatMap(([mint, symbol, ...windows]) =>
    windows.map((values) => {
      const y: Record<string, unknown> = { owner, mint, symbol };
      WINDOW_FIELDS.forEach((f, i) => (y[f] = values[i]));
      return y as unknown as YieldRecord;
    }),
  );
}

/**
 * The text a row of `stored`'s form holds for these records: what verify compares a stored row
 * with, so a row written before is checked as it was written and a changed byte fails either way.
 */
export function yieldsTextLike(stored: string, records: readonly YieldRecord[]): string {
  let encoded = true;
  try {
    encoded = isEncoded(JSON.parse(stored) as unknown[]);
  } catch {
    // not JSON: compared with the encoding, which it is not
  }
  return encoded ? encodeYields(records) : JSON.stringify(records);
}

/** This module's form: each run an array. The form of before: each record an object (and [] either way). */
const isEncoded = (stored: unknown[]) => !Array.isArray(stored) || stored.length === 0 || Array.isArray(stored[0]);
