// A wallet's yield records as its `yields` row stores them (docs/storage.md#yields), written and
// read here alone. The engine's records repeat the wallet, the mint, the symbol and every field
// name in each window; the row stores each run of windows of one mint once, as
// `[mint, symbol, window, window, …]`, each window the array of its values in WINDOW_FIELDS' order,
// each value as the engine gave it (every exact amount keeps its text). The owner is the row's.
// A window value the row already holds (every window of a wallet ends at its booking time, and
// the trailing windows of each mint start at the same times) is stored as the number of the value
// it repeats, the values counted across the row's windows in order: a yield value is always a
// text or null, never a number. That took a two-mint wallet's row from about 1.42 KB to about 1.25,
// which is three rows a page where it was two (docs/storage.md#yields).
// Rows written before hold JSON.stringify of the records (an array of objects), or this form with
// every value written out; both still read, and booking the wallet again rewrites them.
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
// A window value, or the number of the earlier value it repeats.
type StoredWindow = (Window[keyof Window] | number)[];
type StoredRun = [mint: string, symbol: string, ...windows: StoredWindow[]];

/** The text a wallet's `yields` row stores for its records (all of them the wallet's). */
export function encodeYields(records: readonly YieldRecord[], repeats = true): string {
  const runs: StoredRun[] = [];
  let run: StoredRun | undefined;
  const first = new Map<string, number>();
  let n = 0;
  // A repeated text becomes the number of its first place, where that is shorter than the quoted text.
  const stored = (v: Window[keyof Window]) => {
    const at = n++;
    if (!repeats || typeof v !== "string") return v;
    const seen = first.get(v);
    if (seen === undefined) first.set(v, at);
    return seen !== undefined && String(seen).length < v.length + 2 ? seen : v;
  };
  for (const y of records) {
    if (!run || run[0] !== y.mint || run[1] !== y.symbol) runs.push((run = [y.mint, y.symbol]));
    run.push(WINDOW_FIELDS.map((f) => stored(y[f])));
  }
  return JSON.stringify(runs);
}

/** The records a `yields` row of `owner` stores, in any form. */
export function decodeYields(owner: string, text: string): YieldRecord[] {
  const stored = JSON.parse(text) as unknown[];
  if (!isEncoded(stored)) return stored as YieldRecord[];
  const values: unknown[] = []; // every window value so far, repeats put back
  const value = (v: unknown) => (values.push(typeof v === "number" ? values[v] : v), values.at(-1));
  return (stored as StoredRun[]).flatMap(([mint, symbol, ...windows]) =>
    windows.map((window) => {
      const y: Record<string, unknown> = { owner, mint, symbol };
      WINDOW_FIELDS.forEach((f, i) => (y[f] = value(window[i])));
      return y as unknown as YieldRecord;
    }),
  );
}

/**
 * The text a row of `stored`'s form holds for these records: what verify compares a stored row
 * with, so a row written before is checked as it was written and a changed byte fails either way.
 */
export function yieldsTextLike(stored: string, records: readonly YieldRecord[]): string {
  let parsed: unknown[] | null = null;
  try {
    parsed = JSON.parse(stored) as unknown[];
  } catch {
    // not JSON: compared with the encoding, which it is not
  }
  if (parsed !== null && !isEncoded(parsed)) return JSON.stringify(records);
  // A row written with every value written out is compared with that form, one with repeats with this one.
  return encodeYields(records, parsed === null || !Array.isArray(parsed) || hasRepeats(parsed));
}

/** Whether a stored row of runs holds a repeat (a number among its window values). */
const hasRepeats = (runs: unknown[]): boolean => runs.some((run) => Array.isArray(run) && run.slice(2).some((w) => Array.isArray(w) && w.some((v) => typeof v === "number")));

/** This module's form: each run an array. The form of before: each record an object (and [] either way). */
const isEncoded = (stored: unknown[]) => !Array.isArray(stored) || stored.length === 0 || Array.isArray(stored[0]);
