// The issuer's cash per share, split the way a tax return reads it: gross, withholding tax, what
// the issuer retained for currency or fees, and net. Where every part is known,
// gross = net + withholding + retained exactly; a part the issuer's figures do not establish is
// null, never 0.
//
// - A retention is what the issuer published as one ("Retention of 5% to cover ccy
//   fluctuations"), even when it also put the 5% in `withholdingTaxRate`: then the tax rate is 0.
//   A gap between gross × (1 − rate) and net is never taken for a retention.
// - Withholding tax is the rest of what was kept back (gross − net − retained): the issuer's own
//   refunds pass back exactly that difference (NVOx, September 2025). It is negative for a refund,
//   which publishes gross 0 and the passed-back tax as net.
// - With neither a tax rate nor a retention published, a deduction cannot be split: both null.
import { usdInText } from "./display";
import { figure } from "./issuer";
import type { IssuerRevisionObs } from "./observations";
import { cmp, eq, mul, ONE, type Rat, rat, sub, ZERO } from "./numbers";

export interface CashPerShare {
  gross: Rat | null;
  /** Tax only; negative when a refund passes tax back. */
  withholding: Rat | null;
  retained: Rat | null;
  net: Rat | null;
  /** The tax rate as the issuer published it (0 when its rate field held the retention). */
  withholdingTaxRate: Rat | null;
  /** The retention the issuer published, as a fraction of gross. */
  retentionRate: Rat | null;
}

/** The warning on cash whose implied reinvestment price is out of line (src/domain/plausibility.ts). */
export const IMPLAUSIBLE_CASH = "implausible issuer cash";
export const NET_COMPUTED = "issuer net cash missing: computed as gross × (1 − withholding rate)";
export const NET_UNKNOWN = "issuer net cash missing and no withholding rate: USD unknown";

const RETENTION = /(?:retention|retainer)\s+of\s+(\d+(?:\.\d+)?)\s*%|(\d+(?:\.\d+)?)\s*%\s+(?:retention|retainer)/i;

/** The retention a note publishes ("Retention of 5% …", "Applied 5% retention …"), as a fraction. */
export function publishedRetention(notes: string | null): Rat | null {
  const m = RETENTION.exec(notes ?? "");
  const percent = m ? figure(m[1] ?? m[2]!) : null;
  return percent === null ? null : mul(percent, rat(1, 100));
}

/** The record's cash per share; warnings say what was computed or could not be known. */
export function readCash(rev: IssuerRevisionObs, warnings: string[]): CashPerShare {
  const r = rev.record;
  const gross = figure(r.grossCashflowUsd);
  const publishedRate = figure(r.withholdingTaxRate);
  const retentionRate = publishedRetention(r.notes);
  const withholdingTaxRate = retentionRate !== null && publishedRate !== null && eq(publishedRate, retentionRate) ? ZERO : publishedRate;
  let net = figure(r.netCashflowUsd);
  if (net === null && gross !== null && publishedRate !== null) {
    warnings.push(NET_COMPUTED);
    net = mul(gross, sub(ONE, publishedRate));
  } else if (net === null) warnings.push(NET_UNKNOWN);
  const unsplit: CashPerShare = { gross, withholding: null, retained: null, net, withholdingTaxRate, retentionRate };
  if (gross === null || net === null) return unsplit;
  const keptBack = sub(gross, net);
  const explained = withholdingTaxRate !== null || retentionRate !== null || keptBack.n === 0n;
  if (!explained) {
    warnings.push(`issuer published no withholding rate: the ${usdInText(keptBack)} a share kept back is not split into tax and retention`);
    return unsplit;
  }
  const retained = retentionRate === null ? ZERO : mul(gross, retentionRate);
  const withholding = sub(keptBack, retained);
  // A refund (gross 0) passes tax back by design; elsewhere say where the figures disagree.
  if (withholdingTaxRate !== null && cmp(gross, ZERO) > 0 && !eq(withholding, mul(gross, withholdingTaxRate))) {
    warnings.push(
      `issuer net ${usdInText(net)} a share is not gross less the published withholding and retention: ` +
        `the difference of ${usdInText(sub(withholding, mul(gross, withholdingTaxRate)))} a share is counted as withholding tax`,
    );
  }
  return { gross, withholding, retained, net, withholdingTaxRate, retentionRate };
}

/** The same rates, every amount unknown (implausible cash, a zero record while the multiplier rose). */
export const withoutAmounts = (cash: CashPerShare): CashPerShare => ({ ...cash, gross: null, withholding: null, retained: null, net: null });
