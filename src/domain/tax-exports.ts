// The tax exports (docs/income-and-tax.md#tax-exports): one row per income event, as our own
// `tax` dataset and as the import templates of Koinly, CoinTracker, CoinLedger and Awaken, each
// with exactly the header, column order, date format and income label its help pages document.
// Pure: events in, cells out (src/http/csv.ts writes them).
//
// A dividend reinvested through the multiplier is a receipt of N units of the token, valued at the
// net USD. Only income is exported: a split, spin-off or identity change is no receipt, and a tax
// tool would import it as a buy or a sell.
import { roundedText } from "./display";
import { parseDecimal } from "./numbers";
import type { ActionType } from "./types";

export interface TaxEvent {
  /** ISO-8601 UTC time the income took effect on chain. */
  effectiveAt: string;
  owner: string;
  mint: string;
  symbol: string | null;
  isin: string | null;
  type: ActionType;
  decimals: number;
  /** Units received, at the mint's decimals. */
  units: string;
  grossUsd: string | null;
  withholdingTaxRate: string | null;
  withholdingTaxUsd: string | null;
  retainedUsd: string | null;
  /** Net USD; null when unknown (the event is unvalued). */
  usd: string | null;
  signature: string;
  evidenceSha256: string;
  reason: string;
  warnings: string[];
}

export interface TaxFormat {
  header: readonly string[];
  row(e: TaxEvent): (string | null)[];
}

/** "2026-01-30 23:55 UTC": Koinly's documented date ("YYYY-MM-DD HH:MM UTC"). */
export const koinlyDate = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** "01/30/2026 23:55:00": MM/DD/YYYY HH:MM:SS in UTC (CoinTracker, CoinLedger, Awaken). */
export const usDate = (iso: string): string => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)} ${iso.slice(11, 19)}`;

const symbolOf = (e: TaxEvent): string => e.symbol ?? e.mint;

/** Awaken takes at most 8 decimal places: units at the mint's decimals, or 8 (half-even) for a mint with more. */
export const AWAKEN_PLACES = 8;
const awakenUnits = (e: TaxEvent): string => roundedText(parseDecimal(e.units), Math.min(e.decimals, AWAKEN_PLACES));

/** The income label each tool reads as a dividend (why each: docs/income-and-tax.md#income-labels). */
export const INCOME_LABEL = { koinly: "income", cointracker: "interest", coinledger: "Income", awaken: "rewards_income" } as const;

export const TAX_FORMATS = {
  /** Ours: every figure the ledger has for the event (first column `dataset`, like the other exports). */
  tax: {
    header: ["date", "wallet", "symbol", "isin", "type", "units", "grossUsd", "withholdingTaxRate", "withholdingTaxUsd", "retainedUsd", "usd", "signature", "evidenceSha256", "reason", "warnings"],
    row: (e) => [
      e.effectiveAt,
      e.owner,
      e.symbol,
      e.isin,
      e.type,
      e.units,
      e.grossUsd,
      e.withholdingTaxRate,
      e.withholdingTaxUsd,
      e.retainedUsd,
      e.usd,
      e.signature,
      e.evidenceSha256,
      e.reason,
      e.warnings.join("; "),
    ],
  },
  koinly: {
    header: ["Date", "Sent Amount", "Sent Currency", "Received Amount", "Received Currency", "Fee Amount", "Fee Currency", "Net Worth Amount", "Net Worth Currency", "Label", "Description", "TxHash"],
    // An unvalued event leaves Net Worth empty: Koinly then values the receipt at its own price.
    row: (e) => [koinlyDate(e.effectiveAt), null, null, e.units, symbolOf(e), null, null, e.usd, e.usd === null ? null : "USD", INCOME_LABEL.koinly, e.reason, e.signature],
  },
  cointracker: {
    // The template has no value or hash column and takes none added: CoinTracker prices receipts itself.
    header: ["Date", "Received Quantity", "Received Currency", "Sent Quantity", "Sent Currency", "Fee Amount", "Fee Currency", "Tag"],
    row: (e) => [usDate(e.effectiveAt), e.units, symbolOf(e), null, null, null, null, INCOME_LABEL.cointracker],
  },
  coinledger: {
    // No value column either; optional columns stay, blank.
    header: [
      "Date (UTC)",
      "Platform (Optional)",
      "Asset Sent",
      "Amount Sent",
      "Asset Received",
      "Amount Received",
      "Fee Currency (Optional)",
      "Fee Amount (Optional)",
      "Type",
      "Description (Optional)",
      "TxHash (Optional)",
    ],
    row: (e) => [usDate(e.effectiveAt), null, null, null, symbolOf(e), e.units, null, null, INCOME_LABEL.coinledger, e.reason, e.signature],
  },
  awaken: {
    // An unvalued event leaves Received Fiat Amount (optional) empty: Awaken prices it.
    header: [
      "Date",
      "Received Quantity",
      "Received Currency",
      "Received Fiat Amount",
      "Sent Quantity",
      "Sent Currency",
      "Sent Fiat Amount",
      "Fee Amount",
      "Fee Currency",
      "Transaction Hash",
      "Notes",
      "Tag",
    ],
    row: (e) => [usDate(e.effectiveAt), awakenUnits(e), symbolOf(e), e.usd, null, null, null, null, null, e.signature, e.reason, INCOME_LABEL.awaken],
  },
} as const satisfies Record<string, TaxFormat>;

export type TaxDataset = keyof typeof TAX_FORMATS;
export const TAX_DATASETS = Object.keys(TAX_FORMATS) as TaxDataset[];
/** The four whose header is the tool's own (no `dataset` column). */
export const isToolTemplate = (d: TaxDataset): boolean => d !== "tax";

/**
 * An income event read under the `deferred` treatment (docs/lots.md#the-treatment-and-the-income-reports):
 * no income (the reinvested amount is realized at disposal, through the lots), so gross, retained
 * and net are 0; the withholding stays, as information (the tax was withheld all the same).
 */
export function deferredTaxEvent(e: TaxEvent): TaxEvent {
  return {
    ...e,
    grossUsd: "0",
    retainedUsd: "0",
    usd: "0",
    warnings: [...e.warnings, "deferred treatment: not income (realized at disposal, see the gains export); withholding shown as information"],
  };
}
