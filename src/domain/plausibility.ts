// Plausibility of issuer cash (docs/action-types.md#plausibility): the reinvestment price a cash record implies must lie
// within ×3 of the same asset's other implied prices, once all are restated in one unit basis
// (splits, stock dividends and identity changes between them). Implausible cash -> usd null.
import { IMPLAUSIBLE_CASH, withoutAmounts } from "./cash";
import type { Classified } from "./classified";
import { add, cmp, div, mul, ONE, type Rat, rat } from "./numbers";
import { ruleOf } from "./rules";

export const PLAUSIBILITY_BAND = rat(3);

function median(xs: Rat[]): Rat {
  const s = [...xs].sort(cmp);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : mul(rat(1, 2), add(s[mid - 1]!, s[mid]!));
}

/**
 * Restates each classified transition's implied price in the latest unit basis of its mint and
 * nulls the cash of the ones outside ×3 of the median of the others. Mutates and returns `cs`,
 * which must be one mint's activated transitions in activation order.
 */
export function applyPlausibility(cs: Classified[]): Classified[] {
  // Factor between each transition and the latest basis: product of basis factors after it.
  const after: Rat[] = new Array(cs.length);
  let acc = ONE;
  for (let i = cs.length - 1; i >= 0; i--) {
    after[i] = acc;
    const c = cs[i]!;
    if (ruleOf(c.type).restatesBasis && c.factor) acc = mul(acc, c.factor);
  }
  // A price per old unit is a price per F new units: divide by F to restate it.
  const restated = cs.map((c, i) => (c.impliedPrice ? div(c.impliedPrice, after[i]!) : null));
  // Sort once; the median of "all the others" is then read off by index (O(n log n) overall).
  const order = restated
    .map((p, i) => ({ p, i }))
    .filter((x): x is { p: Rat; i: number } => x.p !== null)
    .sort((a, b) => cmp(a.p, b.p));
  const n = order.length;
  if (n < 2) return cs;
  const otherAt = (k: number, j: number): number => (j < k ? j : j + 1); // index of the j-th of the others
  const len = n - 1;
  const mid = Math.floor(len / 2);
  // Leaving one element out shifts the middle by at most one place: only a few distinct medians
  // exist, so each is computed once (keyed by the indices it is built from).
  const medians = new Map<number, Rat>();
  const medianOfOthers = (k: number): Rat => {
    if (len % 2) return order[otherAt(k, mid)]!.p;
    const a = otherAt(k, mid - 1);
    const b = otherAt(k, mid);
    let m = medians.get(a * n + b);
    if (!m) medians.set(a * n + b, (m = mul(rat(1, 2), add(order[a]!.p, order[b]!.p))));
    return m;
  };
  // The products below are only compared, never kept: leave them unreduced (cmp cross-multiplies).
  const times = (x: Rat, y: Rat): Rat => ({ n: x.n * y.n, d: x.d * y.d });
  order.forEach(({ p, i }, k) => {
    const m = medianOfOthers(k);
    if (cmp(p, times(m, PLAUSIBILITY_BAND)) > 0 || cmp(times(p, PLAUSIBILITY_BAND), m) < 0) {
      const c = cs[i]!;
      c.warnings.push(IMPLAUSIBLE_CASH);
      if (c.cash) c.cash = withoutAmounts(c.cash);
      c.proceedsPerShare = null;
    }
  });
  return cs;
}

export { median as medianOf };
