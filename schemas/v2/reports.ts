// The year report: income per month × symbol across a tenant's wallets, summed from the journal,
// optionally also in another currency at the ECB's reference rates.
import { Type } from "@sinclair/typebox";
import { Address, DatasetLabel, NullableString, year } from "../common.ts";

const money = (what = "") =>
  Type.Union([Type.String({ pattern: "^-?[0-9]+(\\.[0-9]+)?$" }), Type.Null()], {
    description: `${what}Rounded for people (at most 6 decimals, half-even); null when no event carries it (unknown, never 0)`,
  });
const Money = money();
const ExactMoney = Type.Union([Type.String({ pattern: "^-?[0-9]+(\\.[0-9]+)?$" }), Type.Null()], { description: "The exact sum (a converted amount: exact when its expansion ends, else 18 decimals)" });

const usdParts = {
  grossUsd: Money,
  withholdingTaxUsd: money("Tax withheld; a refund counts negative. "),
  retainedUsd: money("What the issuer kept back for currency or fees. "),
  usd: money("Net income. "),
};

const Converted = Type.Object(
  {
    currency: Type.String({ description: "The currency asked for" }),
    gross: Money,
    withholdingTax: Money,
    retained: Money,
    net: Money,
    exact: Type.Object({ gross: ExactMoney, withholdingTax: ExactMoney, retained: ExactMoney, net: ExactMoney }),
    reason: Type.Union([Type.String(), Type.Null()], { description: "Why the amounts are null: an event without a reference rate on or before its day" }),
  },
  { description: "The same amounts in the currency asked for: each event at the reference rate of its day, else the latest earlier one" },
);

const RateUsed = Type.Object({
  eventDate: Type.String({ description: "Day of the events (UTC)" }),
  rateDate: Type.String({ description: "The ECB day the rate is from: the event's day, else the latest earlier one" }),
  usdPerEur: Type.String({ description: "US dollars per euro that day, as the ECB published it" }),
  perEur: Type.String({ description: "Units of the currency per euro that day, as published (1 for EUR)" }),
  rate: Type.String({ description: "Units of the currency per US dollar: perEur ÷ usdPerEur (10 decimals, half-even)" }),
});

const Tally = {
  events: Type.Integer({ description: "Income events that stand" }),
  ...usdParts,
  unvaluedEvents: Type.Integer({ description: "Events without a USD value (not in usd)" }),
  exact: Type.Object({ grossUsd: ExactMoney, withholdingTaxUsd: ExactMoney, retainedUsd: ExactMoney, usd: ExactMoney }, { description: "The exact sums" }),
};

export const IncomeReportRow = Type.Object({
  month: Type.String({ pattern: "^[0-9]{4}-[0-9]{2}$", description: "YYYY-MM (UTC)" }),
  symbol: NullableString,
  ...Tally,
  converted: Type.Optional(Type.Composite([Converted, Type.Object({ rates: Type.Array(RateUsed) })])),
});

export const IncomeReport = Type.Object({
  year: Type.Integer(),
  dataset: DatasetLabel,
  owners: Type.Array(Type.String(), { description: "The wallets the report covers" }),
  currency: Type.Union([Type.String(), Type.Null()]),
  totals: Type.Object({ ...Tally, converted: Type.Optional(Converted) }, { description: "The exact sums of all events, rounded once" }),
  rows: Type.Array(IncomeReportRow),
});

export const IncomeReportQuery = Type.Object({
  year: year("The calendar year (UTC)"),
  owner: Type.Optional(Type.Array(Address, { description: "Repeat for each wallet; all the tenant's wallets when absent. Each must be registered by the tenant." })),
  currency: Type.Optional(Type.String({ pattern: "^[A-Z]{3}$", description: "Also give every amount in this currency (EUR, or any the imported ECB history quotes), at the reference rate of each event's day" })),
});
