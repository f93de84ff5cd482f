// Lots, realized gains and the holdings statement (docs/lots.md#the-three-routes), each under a
// named tax treatment and lot method. Amounts are strings: USD rounded for people (at most 6
// decimals, half-even), units at the mint's decimals, the exact values under `exact`; a USD value
// the ledger cannot know is null with a reason, never 0.
import { Type } from "@sinclair/typebox";
import { DatasetLabel, DateFilterProperties, MintField, NullableString, NullableTimestamp, OwnerField, OwnerQuery, SymbolField, Timestamp, Year, day, describe, literals } from "../common.ts";
import { IncomeReportQuery, RateUsed } from "./reports.ts";
import { TaxTreatment, taxTreatments, treatmentQuery } from "./treatment.ts";

export { TaxTreatment, taxTreatments, treatmentQuery };

export const lotMethods = ["fifo", "lifo", "hifo", "average"] as const;
export const lotSources = ["purchase", "transfer_in", "income", "own_transfer", "declared"] as const;

const METHOD_TEXT = "Which open lot a disposal takes first: fifo (earliest), lifo (latest), hifo (highest basis per unit), average (average cost per instrument per wallet)";

export const LotMethod = literals(lotMethods, { title: "LotMethod", description: `The lot method this answer uses. ${METHOD_TEXT}` });
export const LotSource = literals(lotSources, {
  title: "LotSource",
  description:
    "How the lot came into the wallet: purchase (a trade), transfer_in (received, cost unknown), income (a reinvested dividend, income treatment), own_transfer (from another wallet of the tenant, date and basis carried), declared (`ca-ledger import cost-basis`)",
});
export const HoldingTerm = literals(["short", "long"], {
  title: "HoldingTerm",
  description: "long when the disposal's UTC date is after the first anniversary of the acquisition's UTC date, else short",
});

const DECIMAL = "^-?[0-9]+(\\.[0-9]+)?$";
const usd = (what: string) => Type.String({ pattern: DECIMAL, description: `${what}, rounded for people (at most 6 decimals, half-even)`, examples: ["7400.25"] });
const usdOrNull = (what: string) =>
  Type.Union([Type.String({ pattern: DECIMAL }), Type.Null()], { description: `${what}, rounded for people (at most 6 decimals, half-even); null when unknown (reason says why), never 0` });
const units = (what: string) => Type.String({ pattern: DECIMAL, description: `${what}, at the mint's decimals (half-even)`, examples: ["10.039092"] });
const exact = (what: string) => Type.String({ pattern: DECIMAL, description: `${what}, exact (a value whose expansion does not end: 18 decimals, half-even)` });
const exactOrNull = (what: string) => Type.Union([Type.String({ pattern: DECIMAL }), Type.Null()], { description: `${what}, exact; null when unknown` });
const reason = (what: string) => describe(NullableString, `Why ${what} is null (a code such as sol_paid, transfer, no_open_lot; docs/lots.md#reasons); null when known`);

export const LotProblem = Type.Object(
  {
    owner: OwnerField,
    mint: describe(NullableString, "The instrument's mint; null for a declaration that names no acquisition"),
    at: describe(NullableTimestamp, "When it happened; null when it is not one moment (a declaration that never matched)"),
    code: Type.String({ description: "What is wrong, as a code: no_open_lot, action_units_mismatch, own_transfer_unmatched, transfer_fee, declared_cost_unmatched, …" }),
    message: Type.String({ description: "The same for people" }),
  },
  { title: "LotProblem", description: "Something in the history the lots could not follow exactly (an incomplete history, a declaration that matched nothing): reported, never guessed" },
);

export const LotOrigin = Type.Object(
  {
    owner: describe(Type.String(), "The wallet that first acquired the lot"),
    source: LotSource,
    signature: describe(NullableString, "The transaction that first brought it in; null for an income lot"),
    actionId: describe(NullableString, "The income action that created it; null otherwise"),
  },
  { title: "LotOrigin", description: "Where the lot was first acquired (kept when it moves between the tenant's wallets or is split)" },
);

export const Lot = Type.Object(
  {
    id: Type.String({ description: "Deterministic lot id: the same history gives the same ids" }),
    symbol: SymbolField,
    mint: MintField,
    acquiredAt: describe(Timestamp, "When the lot was acquired (an own transfer keeps the original date)"),
    units: units("Units the lot holds now (raw × multiplier)"),
    basisUsd: usdOrNull("The lot's cost basis in USD"),
    basisKnown: Type.Boolean({ description: "False when the cost was not shown on chain nor declared" }),
    source: LotSource,
    signature: describe(NullableString, "The transaction that brought the lot into this wallet; null for an income lot"),
    actionId: describe(NullableString, "The income action that created the lot; null otherwise"),
    reason: reason("basisUsd"),
    origin: LotOrigin,
    exact: Type.Object({ units: exact("Units"), basisUsd: exactOrNull("Basis USD") }, { description: "The exact values behind the rounded ones" }),
  },
  { title: "Lot", description: "An open lot of one wallet" },
);

const instrumentTotals = {
  symbol: SymbolField,
  mint: MintField,
  units: units("Units the wallet holds, as the Token-2022 program's AmountToUiAmount shows them"),
  basisUsd: usd("Sum of the known bases of the open lots"),
  unknownBasisUnits: units("Units of the open lots whose basis is unknown (not in basisUsd)"),
};
const instrumentExact = Type.Object(
  { units: exact("Units"), basisUsd: exact("Known basis"), unknownBasisUnits: exact("Units of unknown basis") },
  { description: "The exact values behind the rounded ones" },
);

export const LotInstrument = Type.Object({ ...instrumentTotals, exact: instrumentExact }, { title: "LotInstrument", description: "A wallet's lots of one instrument, in total" });

export const LotsResponse = Type.Object(
  {
    owner: OwnerField,
    dataset: DatasetLabel,
    treatment: TaxTreatment,
    method: LotMethod,
    asOf: day("The lots open at the end of this day (UTC)"),
    lots: Type.Array(Lot, { description: "Open lots, by mint then acquisition date" }),
    instruments: Type.Array(LotInstrument, { description: "One per instrument the wallet holds or held in its history, by mint" }),
    problems: Type.Array(LotProblem, { description: "What the wallet's history does not let the ledger follow exactly; empty on a complete history" }),
  },
  { title: "LotsResponse", description: "A wallet's open lots at the end of a day, derived from the chain's movements, the booked corporate actions and the operator's declarations" },
);

// A query parameter has one schema wherever it appears (the OpenAPI document lists it once):
// owner, owner (repeated), currency and from are those of the other routes.
export const methodQuery = literals(lotMethods, { description: `Default the server's (LOT_METHOD, fifo). ${METHOD_TEXT}` });
const asOfQuery = day("The end of this day (YYYY-MM-DD, UTC): what is open or held then; optional on /v2/lots (default today)");

export const LotsQuery = Type.Object({
  owner: OwnerQuery.properties.owner,
  asOf: Type.Optional(asOfQuery),
  method: Type.Optional(methodQuery),
  treatment: Type.Optional(treatmentQuery),
});

// ---- realized gains -------------------------------------------------------------------------------

const convertedAmount = (what: string) =>
  Type.Union([Type.String({ pattern: DECIMAL }), Type.Null()], { description: `${what} in the currency, rounded for people; null when unknown or a rate is missing` });
const convertedExact = (what: string) => Type.Union([Type.String({ pattern: DECIMAL }), Type.Null()], { description: `${what} in the currency, exact where its expansion ends, else 18 decimals` });

export const GainConverted = Type.Object(
  {
    currency: Type.String({ description: "The currency asked for (three letters)" }),
    proceeds: convertedAmount("Proceeds, at the rate of the disposal's day"),
    basis: convertedAmount("Basis, at the rate of the acquisition's day"),
    gain: convertedAmount("Proceeds less basis, both converted (so the currency's own movement is in it)"),
    exact: Type.Object({ proceeds: convertedExact("Proceeds"), basis: convertedExact("Basis"), gain: convertedExact("Gain") }, { description: "The converted values before rounding" }),
    rates: Type.Object(
      {
        proceeds: Type.Union([RateUsed, Type.Null()], { description: "The rate of the disposal's day; null when none" }),
        basis: Type.Union([RateUsed, Type.Null()], { description: "The rate of the acquisition's day; null when none or the acquisition date is unknown" }),
      },
      { description: "The ECB reference rates used (the day's, else the latest earlier one)" },
    ),
    reason: describe(NullableString, "Why an amount is null: a day without a reference rate on or before it, and how to import one"),
  },
  { title: "GainConverted", description: "A row's amounts in the currency asked for" },
);

export const GainRow = Type.Object(
  {
    owner: OwnerField,
    symbol: SymbolField,
    mint: MintField,
    units: units("Units disposed of from this lot"),
    acquiredAt: describe(NullableTimestamp, "When the lot was acquired; null when no lot held the units (an incomplete history)"),
    disposedAt: describe(Timestamp, "When the units were disposed of"),
    proceedsUsd: usdOrNull("This lot's share of the disposal's proceeds"),
    basisUsd: usdOrNull("The basis of the units that left the lot"),
    gainUsd: usdOrNull("Proceeds less basis"),
    term: HoldingTerm,
    signature: describe(NullableString, "The disposal's transaction; null for a termination (see actionId)"),
    actionId: describe(NullableString, "The corporate action that ended the holding (a termination); null otherwise"),
    lotId: describe(NullableString, "The lot consumed; null when no lot held the units"),
    lotSource: Type.Union([LotSource, Type.Null()], { description: "How the consumed lot was acquired; null when no lot held the units" }),
    reason: describe(NullableString, 'Why a value is null: `proceeds: <code>` and/or `basis: <code>`, joined with "; "; null when all are known'),
    exact: Type.Object(
      { units: exact("Units"), proceedsUsd: exactOrNull("Proceeds USD"), basisUsd: exactOrNull("Basis USD"), gainUsd: exactOrNull("Gain USD") },
      { description: "The exact values behind the rounded ones (sum these for a total, then round once)" },
    ),
    converted: Type.Optional(describe(GainConverted, "The row in the currency asked for (only with currency)")),
  },
  { title: "GainRow", description: "One disposal × one lot it consumed" },
);

export const GainTotal = Type.Object(
  {
    proceedsUsd: usd("Sum of the known proceeds"),
    basisUsd: usd("Sum of the known bases"),
    gainUsd: usd("Sum of the known gains (proceeds less basis equals it only when unknownRows is 0)"),
    rows: Type.Integer({ minimum: 0, description: "Rows of this term" }),
    unknownRows: Type.Integer({ minimum: 0, description: "Rows whose gain is unknown (their known proceeds or basis are still summed)" }),
    exact: Type.Object({ proceedsUsd: exact("Proceeds"), basisUsd: exact("Basis"), gainUsd: exact("Gain") }, { description: "The exact sums, each rounded once above" }),
    converted: Type.Optional(
      Type.Object(
        {
          currency: Type.String({ description: "The currency asked for" }),
          proceeds: convertedAmount("Sum of the rows' converted proceeds"),
          basis: convertedAmount("Sum of the rows' converted bases"),
          gain: convertedAmount("Sum of the rows' converted gains"),
          exact: Type.Object({ proceeds: convertedExact("Proceeds"), basis: convertedExact("Basis"), gain: convertedExact("Gain") }, { description: "The exact sums" }),
          reason: describe(NullableString, "Why a sum is null: rows without a reference rate"),
        },
        { description: "The same sums in the currency asked for (only with currency)" },
      ),
    ),
  },
  { title: "GainTotal", description: "A term's realized gains: each column sums its known values only" },
);

export const GainsReport = Type.Object(
  {
    year: Type.Integer({ description: "The calendar year (UTC) of the disposals" }),
    dataset: DatasetLabel,
    owners: Type.Array(Type.String(), { description: "The wallets the report covers (base58)" }),
    treatment: TaxTreatment,
    method: LotMethod,
    currency: Type.Union([Type.String(), Type.Null()], { description: "The currency asked for; null when none" }),
    rows: Type.Array(GainRow, { description: "One per disposal × lot consumed, in time order" }),
    totals: Type.Object({ short: GainTotal, long: GainTotal }, { description: "Per term: totals equal the sums of the rows' exact values, rounded once" }),
    problems: Type.Array(LotProblem, { description: "What the wallets' history does not let the ledger follow exactly; empty on a complete history" }),
  },
  { title: "GainsReport", description: "Realized gains of a year across wallets, under one treatment and one lot method" },
);

export const GainsReportQuery = Type.Object({
  year: Year,
  owner: IncomeReportQuery.properties.owner,
  method: Type.Optional(methodQuery),
  treatment: Type.Optional(treatmentQuery),
  currency: IncomeReportQuery.properties.currency,
});

// ---- the holdings statement ----------------------------------------------------------------------

const reconciliationFields = {
  openingUnits: units("Units held just before the first day"),
  acquiredUnits: units("Units that arrived other than from the tenant's wallets"),
  disposedUnits: units("Units that left the wallet's lots other than to the tenant's wallets (a termination's too)"),
  ownTransferUnits: units("Units from (+) and to (−) the tenant's other wallets"),
  corporateActionUnits: units("Units corporate actions added (reinvested income, splits) or removed (reverse splits)"),
  closingUnits: units("Units held at the end of the last day"),
  uncoveredUnits: units("Units that left beyond what the recorded history shows the wallet held (not in disposedUnits); 0 on a complete history"),
};
export const UnitsReconciliation = Type.Object(reconciliationFields, {
  title: "UnitsReconciliation",
  description: "openingUnits + acquiredUnits − disposedUnits + ownTransferUnits + corporateActionUnits = closingUnits, exactly on the exact values",
});
const exactReconciliation = Type.Object(Object.fromEntries(Object.keys(reconciliationFields).map((k) => [k, exact(k)])) as { [K in keyof typeof reconciliationFields]: ReturnType<typeof exact> }, {
  description: "The reconciliation's exact values (they add up exactly)",
});

const basisFields = {
  openingUsd: usd("Known basis held just before the first day"),
  acquiredUsd: usd("Known cost of the units acquired"),
  incomeUsd: usd("Basis of the income lots (income treatment; 0 deferred)"),
  disposedUsd: usd("Known basis of the units disposed of"),
  ownTransferUsd: usd("Known basis from (+) and to (−) the tenant's other wallets"),
  closingUsd: usd("Known basis held at the end of the last day"),
};
export const BasisReconciliation = Type.Object(basisFields, {
  title: "BasisReconciliation",
  description: "openingUsd + acquiredUsd + incomeUsd − disposedUsd + ownTransferUsd = closingUsd, exactly on the exact values (known bases only)",
});
const exactBasis = Type.Object(Object.fromEntries(Object.keys(basisFields).map((k) => [k, exact(k)])) as { [K in keyof typeof basisFields]: ReturnType<typeof exact> }, {
  description: "The basis reconciliation's exact values",
});

export const HoldingInstrument = Type.Object(
  {
    ...instrumentTotals,
    isin: describe(NullableString, "The instrument's ISIN as the issuer publishes it; null when unknown"),
    multiplier: describe(NullableString, "The multiplier in force at the wallet's last event by the end of the day (exact decimal of the chain's f64); null before any"),
    reconciliation: UnitsReconciliation,
    basis: BasisReconciliation,
    exact: Type.Composite([instrumentExact, Type.Object({ reconciliation: exactReconciliation, basis: exactBasis })], { description: "The exact values behind the rounded ones" }),
  },
  { title: "HoldingInstrument", description: "One instrument of a wallet at the end of the day, and how its units and basis got there since the first day" },
);

export const HoldingsWallet = Type.Object(
  { owner: OwnerField, instruments: Type.Array(HoldingInstrument, { description: "Instruments held, or moved during the period, by symbol then mint" }) },
  { title: "HoldingsWallet", description: "One wallet's statement" },
);

export const HoldingsStatement = Type.Object(
  {
    asOf: day("The statement is at the end of this day (UTC)"),
    from: day("The first day of the reconciliation (UTC)"),
    dataset: DatasetLabel,
    treatment: TaxTreatment,
    method: LotMethod,
    wallets: Type.Array(HoldingsWallet, { description: "One per wallet covered, in the order asked" }),
    problems: Type.Array(LotProblem, { description: "What the wallets' history does not let the ledger follow exactly; empty on a complete history" }),
  },
  { title: "HoldingsStatement", description: "Holdings at the end of a day, with the reconciliation opening → closing over the period" },
);

export const HoldingsQuery = Type.Object({
  asOf: asOfQuery,
  /** The reconciliation's first day; default 1 January of asOf's year; not after asOf (the route says so). */
  from: DateFilterProperties.from,
  owner: IncomeReportQuery.properties.owner,
  method: Type.Optional(methodQuery),
  treatment: Type.Optional(treatmentQuery),
});
