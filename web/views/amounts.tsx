// Amounts as a person reads them, with the exact value one hover away.
import { decimalText, quantityText, usdText } from "../src/format.ts";

export function Usd({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined) return <span class="unknown" title="Not known: the issuer did not publish a value, or it could not be matched">unknown</span>;
  return <span class="num" title={`${value} USD (exact)`}>{usdText(value)}</span>;
}

/** A quantity at the mint's decimals; without them, a value the API already rounded for display. */
export function Quantity({ value, decimals }: { value: string; decimals?: number }) {
  return <span class="num" title={`${value} (exact)`}>{decimals === undefined ? decimalText(value) : quantityText(value, decimals)}</span>;
}

export function Hash({ value }: { value: string | null | undefined }) {
  return value ? <code class="hash">{value}</code> : <span class="muted">—</span>;
}
