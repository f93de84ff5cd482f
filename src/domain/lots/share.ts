// Splitting a USD amount (a lot's basis, a sale's proceeds) between the units that leave and the
// units that stay (docs/lots.md#shares). The share is the proportional amount rounded half-even to
// 10^-18 USD, and the caller keeps the exact rest: a split never loses or creates anything, the
// parts always add up to the whole exactly, and a whole lot leaving takes its whole basis.
// Why not the exact rational: basis × taken ÷ units has the lot's raw amount in its denominator,
// and a sum of such shares (a report's total, a wallet's disposed basis) carries the product of
// every raw amount it met: thousands of disposals made every total megabits long.
import { cmp, pow10, type Rat, rat } from "../numbers";

export const SHARE_PLACES = 18;
const SCALE = pow10(SHARE_PLACES);

/** whole × part ÷ of (0 < part ≤ of) on the 10^-18 USD grid, never beyond the whole. */
export function shareOf(whole: Rat, part: Rat, of: Rat): Rat {
  if (whole.n === 0n || cmp(part, of) >= 0) return whole;
  // One integer division: (whole.n·part.n·of.d·10^18) ÷ (whole.d·part.d·of.n), ties to even.
  const n = whole.n * part.n * of.d * SCALE;
  const d = whole.d * part.d * of.n;
  let q = n / d;
  const r2 = (n % d) * 2n;
  const twice = r2 < 0n ? -r2 : r2;
  if (twice > d || (twice === d && (q & 1n) === 1n)) q += n < 0n ? -1n : 1n;
  const share = rat(q, SCALE);
  return whole.n > 0n ? (cmp(share, whole) > 0 ? whole : share) : cmp(share, whole) < 0 ? whole : share;
}
