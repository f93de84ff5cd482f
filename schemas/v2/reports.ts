// The year report: income per month × symbol across a tenant's wallets, summed from the journal,
// optionally also in another currency at the ECB's reference rates.
import { Type } from "@sinclair/typebox";
import { Address, DatasetLabel, SymbolField, Year, day, describe } from "../common.ts";
import { TaxTreatment, treatmentQuery } from "./treatment.ts";

const decimalOrNull = (description: string) => Type.Union([Type.String({ pattern: "^-?[0-9]+(\\.[0-9]+)?$" }), Type.Null()], { description });
const shown = (what: string) => decimalOrNull(`${what}, rounded for people (at most 6 decimals, half-even); null when unknown (never 0)`);
/** The parts of a row or of the totals: over the events whose net USD is known (docs/income-and-tax.md#year-report). */
const part = (what: string) =>
  decimalOrNull(
    `${what} of the events whose net USD is known, rounded for people (at most 6 decimals, half-even); null when unknown, never 0: no event has a known net, or one of those that do lacks this part`,
  );
const unvaluedGross = (what: string) =>
  decimalOrNull(`${what} of the events whose net USD is unknown (unvaluedEvents), rounded for people; "0" when there are none; null when one of them has no gross either`);
const exact = (what: string) => decimalOrNull(`${what}, the exact sum; null when unknown`);
const exactConverted = (what: string) => decimalOrNull(`${what}, exact where its expansion ends, else at 18 decimals; null when unknown or a rate is missing`);

export const ReportExact = Type.Object(
  {
    grossUsd: exact("Gross USD"),
    withholdingTaxUsd: exact("Withholding tax in USD"),
    retainedUsd: exact("USD the issuer retained"),
    usd: exact("Net USD"),
    unvaluedGrossUsd: exact("Gross USD of the events without a net USD"),
  },
  { title: "ReportExact", description: "The exact sums the rounded figures come from" },
);

export const ReportConverted = Type.Object(
  {
    currency: Type.String({ description: "The currency asked for (three letters)" }),
    gross: shown("Gross income in the currency, of the events whose net USD is known"),
    withholdingTax: shown("Withholding tax in the currency (a refund counts negative), of the events whose net USD is known"),
    retained: shown("What the issuer retained, in the currency, of the events whose net USD is known"),
    net: shown("Net income in the currency"),
    unvaluedGross: shown("Gross in the currency of the events whose net USD is unknown"),
    exact: Type.Object(
      {
        gross: exactConverted("Gross"),
        withholdingTax: exactConverted("Withholding tax"),
        retained: exactConverted("Retained"),
        net: exactConverted("Net"),
        unvaluedGross: exactConverted("Gross of the events without a net USD"),
      },
      { description: "The converted sums before rounding" },
    ),
    reason: Type.Union([Type.String(), Type.Null()], { description: "Why the amounts are null: an event without a reference rate on or before its day, and how to import one" }),
  },
  { title: "ReportConverted", description: "The same amounts in the currency asked for: each event at the ECB reference rate of its day, else the latest earlier ECB day" },
);

export const RateUsed = Type.Object(
  {
    eventDate: Type.String({ description: "Day of the events converted at this rate (UTC)" }),
    rateDate: Type.String({ description: "The ECB day the rate is from: the event's day, else the latest earlier one quoting both currencies" }),
    usdPerEur: Type.String({ description: "US dollars per euro that day, as the ECB published it" }),
    perEur: Type.String({ description: "Units of the currency per euro that day, as published (1 for EUR)" }),
    rate: Type.String({ description: "Units of the currency per US dollar: perEur ÷ usdPerEur, at 10 decimals (half-even)" }),
  },
  { title: "RateUsed", description: "A reference rate a row used" },
);

const tally = {
  events: Type.Integer({ description: "Income events that stand (recognitions less reversals)" }),
  grossUsd: part("Gross USD"),
  withholdingTaxUsd: part("Withholding tax in USD (a refund counts negative)"),
  retainedUsd: part("USD the issuer retained for currency or fees"),
  usd: shown("Net USD of the events whose net is known; null when none is"),
  unvaluedEvents: Type.Integer({ description: "Events without a net USD value, which usd and the parts beside it leave out" }),
  unvaluedGrossUsd: unvaluedGross("Gross USD"),
  exact: ReportExact,
};

export const IncomeReportRow = Type.Object(
  {
    month: Type.String({ pattern: "^[0-9]{4}-[0-9]{2}$", description: "The month, YYYY-MM (UTC)" }),
    symbol: SymbolField,
    ...tally,
    converted: Type.Optional(
      Type.Composite([ReportConverted, Type.Object({ rates: Type.Array(RateUsed, { description: "The reference rates used, one per event day" }) })], {
        description: "The row in the currency asked for (only with currency)",
      }),
    ),
  },
  { title: "IncomeReportRow", description: "Income of one symbol in one month" },
);

export const IncomeReport = Type.Object(
  {
    year: Type.Integer({ description: "The calendar year the report covers (UTC)" }),
    dataset: DatasetLabel,
    owners: Type.Array(Type.String(), { description: "The wallets the report covers (base58)" }),
    currency: Type.Union([Type.String(), Type.Null()], { description: "The currency asked for; null when none" }),
    lastEventDate: Type.Union([day("The day"), Type.Null()], {
      description:
        "The year's last day (UTC) with income events that stand; null when none. A currency whose lastRateDate (GET /v2/reports/currencies) is earlier converts the events after that day at its last rate",
    }),
    totals: Type.Object(
      { ...tally, converted: Type.Optional(describe(ReportConverted, "The totals in the currency asked for (only with currency)")) },
      { description: "All the year's events: the exact sums, rounded once" },
    ),
    rows: Type.Array(IncomeReportRow, { description: "One per month × symbol with income, by month then symbol" }),
    treatment: TaxTreatment,
    withholdingInformation: Type.Union(
      [
        Type.Object(
          {
            events: Type.Integer({ description: "The year's income events" }),
            unknownEvents: Type.Integer({ description: "Events whose withholding is unknown (not in the sum)" }),
            withholdingTaxUsd: Type.String({ description: "The withholding booked on the year's events, rounded for people (at most 6 decimals, half-even)" }),
            exact: Type.Object({ withholdingTaxUsd: Type.String({ description: "The exact sum" }) }, { description: "The exact value behind the rounded one" }),
          },
          { description: "Under deferred: the tax withheld on the year's events, as information (nothing is income, so every amount above is 0)" },
        ),
        Type.Null(),
      ],
      { description: "Under deferred, the year's withholding as information; null under income (it is in the amounts)" },
    ),
  },
  {
    title: "IncomeReport",
    description:
      "A year's income across wallets, summed from the journal. Every row and the totals add up: grossUsd, withholdingTaxUsd and retainedUsd cover the events whose net USD is known, " +
      "so grossUsd − withholdingTaxUsd − retainedUsd = usd exactly (the exact values; each shown figure is rounded once); the gross of the others is unvaluedGrossUsd",
  },
);

export const ReportCurrency = Type.Object(
  {
    currency: Type.String({ pattern: "^[A-Z]{3}$", description: "A currency to ask the year report for (currency=…)" }),
    firstRateDate: day("The first ECB day with a rate for it (a day quoting the dollar too): events before it have no rate"),
    lastRateDate: day("The last ECB day with a rate for it: events after it take this day's rate until a newer history is imported"),
  },
  { title: "ReportCurrency", description: "A currency the imported ECB reference rates convert US dollars into" },
);

export const ReportCurrencies = Type.Object(
  {
    dataset: DatasetLabel,
    currencies: Type.Array(ReportCurrency, {
      description:
        "Every currency with imported ECB rates, and EUR when dollar rates were imported, sorted by code; empty until `ca-ledger rates import`. USD, the ledger's own currency, is not listed: every report has it",
    }),
  },
  { title: "ReportCurrencies", description: "The currencies the year report can convert into, from the ECB reference rates imported" },
);

export const IncomeReportQuery = Type.Object({
  year: Year,
  owner: Type.Optional(Type.Array(Address, { description: "A wallet to cover; repeat for each. Each must be registered by this tenant. All the tenant's wallets when absent." })),
  currency: Type.Optional(
    Type.String({ pattern: "^[A-Z]{3}$", description: "Also give every amount in this currency (any GET /v2/reports/currencies lists), at the reference rate of each event's day" }),
  ),
  treatment: Type.Optional(treatmentQuery),
});
