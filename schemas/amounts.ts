// Amounts for people and the exact values behind them, and the income breakdown every income
// entry and action carries. USD a person reads is rounded half-even to at most 6 decimal places;
// quantities are shown as the Token-2022 program renders them at the mint's decimals; every item
// keeps the exact values under `exact` (README, "Amounts for people").
import { Type } from "@sinclair/typebox";
import { Decimal, NullableDecimal, Usd, describe } from "./common.ts";

/** The income breakdown as people read it; the same fields on v1 entries and v2 actions. */
export const incomeBreakdown = {
  grossUsd: describe(
    Usd,
    "Gross USD of the income before tax and retention, rounded half-even to at most 6 decimal places; null when unknown or not income. Where every part is known, grossUsd = usd + withholdingTaxUsd + retainedUsd exactly (on the exact values)",
  ),
  withholdingTaxRate: describe(NullableDecimal, "The tax rate the issuer published; 0 when the rate it published was a currency retention (see retentionRate); null when not published or not income"),
  withholdingTaxUsd: describe(
    Usd,
    "Withholding tax only (never a retention), rounded half-even to at most 6 decimal places; negative when a refund passes back tax withheld earlier; null when unknown or not income",
  ),
  retentionRate: describe(
    NullableDecimal,
    'The share of the gross distribution the issuer kept back for currency conversion or fees, as the issuer published it (e.g. 0.05 for "Retention of 5% to cover ccy fluctuations"); not tax. Null when the issuer published no retention',
  ),
  retainedUsd: describe(Usd, "USD the issuer retained for currency or fees, rounded half-even to at most 6 decimal places; 0 when it published none; null when unknown or not income"),
};

const exactUsd = (what: string) => describe(Usd, `${what}, exact; null when unknown`);

/** The exact income amounts an entry's rounded figures stand for. */
const incomeExact = {
  usd: exactUsd("Net USD"),
  grossUsd: exactUsd("Gross USD"),
  withholdingTaxUsd: exactUsd("Withholding tax USD"),
  retainedUsd: exactUsd("Retained USD"),
};

export const IncomeEntryExact = Type.Object(
  { ...incomeExact, incomeUnits: describe(Decimal, "Units received as income, exact") },
  { title: "IncomeEntryExact", description: "The exact values behind the entry's rounded amounts (sum these for a total, then round once)" },
);

export const ActionExact = Type.Object(
  { ...incomeExact, proceedsUsd: exactUsd("Proceeds USD of a spin-off or rights distribution") },
  { title: "ActionExact", description: "The exact values behind the action's rounded amounts (sum these for a total, then round once)" },
);

export const ActionDetailExact = Type.Object(
  {
    ...ActionExact.properties,
    unitsBefore: describe(Decimal, "Quantity just before the change: raw balance × old multiplier ÷ 10^decimals, exact"),
    unitsAfter: describe(Decimal, "Quantity just after the change: raw balance × new multiplier ÷ 10^decimals, exact"),
    incomeUnits: describe(Decimal, "Units received as income, exact"),
  },
  { title: "ActionDetailExact", description: "The exact values behind the detail's rounded amounts and quantities" },
);

export const PositionExact = Type.Object(
  {
    quantity: describe(Decimal, "Raw balance × multiplier in force ÷ 10^decimals, exact"),
    principalQuantity: describe(Decimal, "Principal, exact"),
    convertibleQuantity: describe(Decimal, "Convertible income units, exact"),
    incomeUsd: describe(Decimal, "Income USD of the position, exact (the sum of the journal)"),
  },
  { title: "PositionExact", description: "The exact values behind the position's rounded figures" },
);

export const TotalsExact = Type.Object(
  { incomeUsd: describe(Decimal, "Income USD of the wallet, exact (the sum of the journal)") },
  { title: "TotalsExact", description: "The exact total behind the rounded one" },
);

export const YieldExact = Type.Object(
  {
    incomeUsd: exactUsd("Income USD in the window"),
    incomeUnits: describe(NullableDecimal, "Units received as income in the window, exact"),
    averageQuantity: describe(NullableDecimal, "Time-weighted average quantity, exact (ratios that do not terminate rounded to 18 places)"),
    distributionPerShareUsd: exactUsd("Cash distributed per current share in the window"),
  },
  { title: "YieldExact", description: "The exact values behind the window's rounded figures" },
);
