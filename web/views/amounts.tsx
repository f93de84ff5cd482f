// Amounts as a person reads them: money to the cent by the ledger's rule (src/domain/display.ts),
// the exact value one hover away; quantities as the server rounded them.
import { cents, currencyCentsText, decimalText, dollarsText } from "../src/format.ts";

const unknownTitle = "Not known: the issuer did not publish a value, or it could not be matched";

/** Why a shown figure is not the exact value rounded on its own: a breakdown's gross is the sum of its parts as shown. */
const summedTitle = "shown as withheld + retained + net as shown, so the breakdown adds up to the cent";

function title(source: string, isExact: boolean, unit: string, shown: string): string {
  const value = `${source} ${unit}${isExact ? " (exact)" : ""}`;
  return shown === cents(source) ? value : `${value}; ${summedTitle}`;
}

/**
 * USD to the cent. `exact` is rounded here (else `value`, the server's figure); `shown` gives the
 * cents already (a breakdown that adds up); `why` says why an unknown amount is unknown.
 */
export function Usd({ value, exact, shown, why }: { value?: string | null; exact?: string | null; shown?: string | null; why?: string }) {
  const source = exact ?? value ?? null;
  if (source === null)
    return (
      <span class="unknown" title={why ?? unknownTitle}>
        unknown
      </span>
    );
  const text = shown ?? cents(source);
  return (
    <span class="num" title={title(source, exact != null, "USD", text)}>
      {dollarsText(text)}
    </span>
  );
}

/** An amount in the report's other currency: null for a missing reference rate (the reason says which day), else because the USD is unknown. */
export function Money({ value, currency, exact, shown, reason, why }: { value: string | null; currency: string; exact?: string | null; shown?: string | null; reason?: string | null; why?: string }) {
  const source = exact ?? value;
  if (source === null)
    return reason ? (
      <span class="unknown" title={reason}>
        no rate
      </span>
    ) : (
      <span class="unknown" title={why ?? unknownTitle}>
        unknown
      </span>
    );
  const text = shown ?? cents(source);
  return (
    <span class="num" title={title(source, exact != null, currency, text)}>
      {currencyCentsText(text, currency)}
    </span>
  );
}

/** A quantity the server rounded for display. */
export function Quantity({ value, exact }: { value: string; exact?: string }) {
  return (
    <span class="num" title={exact ? `${exact} (exact)` : value}>
      {decimalText(value)}
    </span>
  );
}

export function Hash({ value }: { value: string | null | undefined }) {
  return value ? <code class="hash">{value}</code> : <span class="muted">—</span>;
}
