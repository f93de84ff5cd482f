// Totals a gains report states (docs/lots.md#realized-gains): per term, the sum of the known
// proceeds, bases and gains, the row count and how many rows have an unknown gain. Each column
// sums only its known values, so proceeds − basis equals gain only when no row is unknown.
import { add, type Rat, ZERO } from "../numbers";
import type { RealizedRow, Term } from "./types";

export interface GainTotal {
  proceedsUsd: Rat;
  basisUsd: Rat;
  gainUsd: Rat;
  rows: number;
  unknownRows: number;
}

const empty = (): GainTotal => ({ proceedsUsd: ZERO, basisUsd: ZERO, gainUsd: ZERO, rows: 0, unknownRows: 0 });

export function gainTotals(rows: readonly RealizedRow[]): Record<Term, GainTotal> {
  const out: Record<Term, GainTotal> = { short: empty(), long: empty() };
  for (const r of rows) {
    const t = out[r.term];
    t.rows++;
    if (r.proceedsUsd !== null) t.proceedsUsd = add(t.proceedsUsd, r.proceedsUsd);
    if (r.basisUsd !== null) t.basisUsd = add(t.basisUsd, r.basisUsd);
    if (r.gainUsd !== null) t.gainUsd = add(t.gainUsd, r.gainUsd);
    else t.unknownRows++;
  }
  return out;
}
