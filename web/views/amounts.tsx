// Amounts as a person reads them (the server's rounding, shown as it is), with the exact value
// one hover away where the API gives it.
import { decimalText, moneyText, usdText } from "../src/format.ts";

const unknownTitle = "Not known: the issuer did not publish a value, or it could not be matched";

export function Usd({ value, exact }: { value: string | null | undefined; exact?: string | null }) {
  if (value === null || value === undefined) return <span class="unknown" title={unknownTitle}>unknown</span>;
  return <span class="num" title={exact ? `${exact} USD (exact)` : `${value} USD`}>{usdText(value)}</span>;
}

/** An amount in the report's other currency: null for a missing reference rate (the reason says which day), else because the USD is unknown. */
export function Money({ value, currency, exact, reason }: { value: string | null; currency: string; exact?: string | null; reason?: string | null }) {
  if (value === null) return reason ? <span class="unknown" title={reason}>no rate</span> : <span class="unknown" title={unknownTitle}>unknown</span>;
  return <span class="num" title={exact ? `${exact} ${currency} (exact)` : `${value} ${currency}`}>{moneyText(value, currency)}</span>;
}

/** A quantity the server rounded for display. */
export function Quantity({ value, exact }: { value: string; exact?: string }) {
  return <span class="num" title={exact ? `${exact} (exact)` : value}>{decimalText(value)}</span>;
}

export function Hash({ value }: { value: string | null | undefined }) {
  return value ? <code class="hash">{value}</code> : <span class="muted">—</span>;
}
