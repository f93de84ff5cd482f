// v1 ledger reads: portfolio, income, journal, yield, export. v1 shows every action as a
// `kind` (dividend, split, unclassified_adjustment), read from the same rows as v2.
import { Type } from "@sinclair/typebox";
import {
  DatasetLabel,
  DateFilterProperties,
  Decimal,
  EffectiveAtField,
  EvidenceField,
  MintField,
  NullableDecimal,
  NullableString,
  NullableTimestamp,
  OwnerField,
  OwnerQuery,
  PagedOwnerQuery,
  Sha256,
  SymbolField,
  Timestamp,
  Usd,
  describe,
  literals,
  pageOf,
} from "../common.ts";
import { methodQuery, treatmentQuery } from "../v2/lots.ts";
import { IncomeEntryExact, PositionExact, TotalsExact, YieldExact, incomeBreakdown } from "../amounts.ts";

export const Kind = Type.Union([Type.Literal("dividend"), Type.Literal("split"), Type.Literal("unclassified_adjustment")], {
  title: "Kind",
  description:
    "How v1 shows an action: dividend (income: cash dividends and withholding refunds), split (forward or reverse split, see splitFactor), unclassified_adjustment (every other change: no income and nothing convertible)",
});

/**
 * Query of the v1 income and journal lists: paging, the date filters, and `kind`, repeatable, which
 * keeps only entries of those kinds (total and nextOffset count what it keeps).
 */
export const KindListQuery = Type.Object({
  ...PagedOwnerQuery.properties,
  kind: Type.Optional(Type.Array(Kind, { description: "Keep only entries of this kind; repeat for several (kind=dividend&kind=split). Every kind when absent", examples: [["dividend"]] })),
});

/** The v1 kinds, as the `kind` filter names them. */
export const v1Kinds = Kind.anyOf.map((k) => k.const);

const IdField = Type.String({ description: "Id of the action the entry shows (the same id as in /v2/actions)" });

export const PositionStatus = Type.Union([Type.Literal("ok"), Type.Literal("partial"), Type.Literal("terminated")], {
  title: "PositionStatus",
  description:
    "ok: the replay reconciles exactly with the raw balance on chain; partial: it does not, or history is missing (see statusReason); terminated: a merger, redemption or delisting ended the position",
});
export const Position = Type.Object(
  {
    mint: MintField,
    symbol: SymbolField,
    decimals: Type.Integer({ description: "Decimals of the mint" }),
    rawBalance: describe(Decimal, "Raw token amount the chain holds for the wallet (integer; never changes on a corporate action)"),
    quantity: describe(
      Decimal,
      "Quantity now, as the wallet shows it: the Token-2022 program's rendering of the raw balance at the multiplier in force, at the mint's decimals (exact value under exact.quantity)",
    ),
    multiplier: describe(Decimal, "Scaled UI Amount multiplier in force now (exact decimal of the f64 on chain)"),
    principalQuantity: describe(
      Decimal,
      "The part of the quantity that came from deposits: what was transferred in, scaled since by splits, stock dividends, identity changes and spin-offs, and reduced in proportion by withdrawals. Rounded half-even at the mint's decimals; principalQuantity + convertibleQuantity = quantity",
    ),
    convertibleQuantity: describe(
      Decimal,
      "The part of the quantity received as income and not yet withdrawn: units from dividends (and withholding refunds) reinvested by the issuer. This is what could be sold without touching the deposits; unclassified and not-booked changes add nothing to it. Shown as quantity − principalQuantity",
    ),
    incomeUsd: describe(Decimal, "USD of every income entry of this position whose value is known (the sum of the journal), rounded half-even to at most 6 decimal places"),
    status: PositionStatus,
    statusReason: describe(NullableString, "Why the position is partial or terminated; null when ok"),
    exact: PositionExact,
  },
  { title: "Position", description: "A position of the wallet in one instrument" },
);
export const PortfolioTotals = Type.Object(
  {
    incomeUsd: describe(Decimal, "USD of every income entry whose value is known, all positions: the sum of the exact values, rounded once (half-even, at most 6 decimal places)"),
    unvaluedIncomeEvents: Type.Integer({ description: "Income entries whose USD value is unknown (left out of incomeUsd, never counted as zero)" }),
    exact: TotalsExact,
  },
  { title: "PortfolioTotals", description: "Income over the whole wallet" },
);
export const Portfolio = Type.Object(
  {
    owner: OwnerField,
    dataset: DatasetLabel,
    asOf: describe(Timestamp, "When this answer was read"),
    unclassifiedAdjustments: Type.Integer({ description: "Entries v1 shows as unclassified_adjustment (stock dividends, spin-offs, rights, identity changes, unmatched changes)" }),
    totals: PortfolioTotals,
    positions: Type.Array(Position, { description: "One per instrument the wallet holds or held, by mint" }),
  },
  { title: "Portfolio", description: "Positions, income totals and unclassified adjustments of a wallet" },
);

export const IncomeEntry = Type.Object(
  {
    id: IdField,
    owner: OwnerField,
    mint: MintField,
    symbol: SymbolField,
    kind: Kind,
    splitFactor: describe(NullableDecimal, "New units per old unit for a split (M_new ÷ M_old); null for any other kind"),
    headline: Type.String({ description: "One line saying what happened and how it is booked" }),
    reasons: Type.Array(Type.String(), { description: "Sentences explaining the treatment (why income or not, what the factor did)" }),
    effectiveAt: EffectiveAtField,
    quantityDisplay: describe(Decimal, "Change of the displayed quantity: what the wallet showed after less what it showed before (the Token-2022 program's rendering at the mint's decimals)"),
    incomeUnits: describe(Decimal, "Units received as income (0 when not income), at the mint's decimals; they add to convertibleQuantity"),
    usd: describe(
      Usd,
      "Net USD of the income (the cash the issuer reinvested, after tax and retention), rounded half-even to at most 6 decimal places; null when unknown or when the entry is not income",
    ),
    ...incomeBreakdown,
    warnings: Type.Array(Type.String(), { description: "Doubts about the data (e.g. an implausible issuer cash figure); empty when none" }),
    evidenceSha256: EvidenceField,
    exact: IncomeEntryExact,
  },
  { title: "IncomeEntry", description: "A change to a position as v1 shows it" },
);
export const IncomeList = pageOf("entries", IncomeEntry, { title: "IncomeList", description: "A page of the wallet's v1 entries, newest first" });

export const EntryType = literals(["recognition", "reversal"], {
  title: "EntryType",
  description: "recognition: books an action; reversal: cancels an earlier recognition when its evidence changed (the journal is append-only)",
});
const ReversesId = Type.Union([Type.Integer(), Type.Null()], { description: "For a reversal: the id of the recognition it reverses; null for a recognition" });
const UnitsDelta = describe(Decimal, "Change of the quantity, exact (units after − units before)");
const JournalIncomeUnits = describe(Decimal, "The part of unitsDelta received as income (convertible)");
const JournalUsd = describe(Usd, "USD booked by the entry (negated in a reversal); null when unknown or not income");
const ChangeReason = describe(NullableString, "Why the booking changed (issuer correction, new balance history, valuation change, no longer applicable); null for a first recognition");
const CreatedAt = describe(Timestamp, "When the entry was appended to the journal");

export const JournalEntry = Type.Object(
  {
    id: Type.Integer({ description: "Journal entry id (ascending in the order entries were appended)" }),
    owner: OwnerField,
    actionId: Type.String({ description: "The action the entry books" }),
    entryType: EntryType,
    reversesId: ReversesId,
    mint: MintField,
    symbol: SymbolField,
    kind: Kind,
    unitsDelta: UnitsDelta,
    principalUnitsDelta: describe(Decimal, "The part of unitsDelta that is principal (scaling of deposits), not income: unitsDelta − incomeUnits"),
    incomeUnits: JournalIncomeUnits,
    usd: JournalUsd,
    effectiveAt: EffectiveAtField,
    changeReason: ChangeReason,
    evidenceSha256: EvidenceField,
    createdAt: CreatedAt,
  },
  { title: "JournalEntry", description: "One append-only journal entry" },
);
export const JournalList = pageOf("entries", JournalEntry, { title: "JournalList", description: "A page of the wallet's journal, newest first" });

export const IncomeChain = Type.Object(
  {
    signature: Type.String({ description: "Signature of the transaction that wrote the multiplier change" }),
    scheduledAt: describe(NullableTimestamp, "Activation time the update wrote to the mint; null when not recorded"),
    effectiveAt: describe(Timestamp, "When the new multiplier took effect"),
    multiplierOld: describe(Decimal, "Multiplier before the change"),
    multiplierNew: describe(Decimal, "Multiplier after the change"),
  },
  { title: "IncomeChain", description: "What the chain did: the multiplier change behind the entry" },
);
export const Classification = Type.Object(
  {
    result: Type.Union([Type.Literal("dividend"), Type.Literal("split"), Type.Literal("unclassified")], {
      description: "The v1 classification; unclassified for every type v1 does not book as income or split",
    }),
    reason: describe(NullableString, "Why the change was classified so"),
  },
  { title: "Classification", description: "How v1 classified the change" },
);
/** One issuer revision of an event; the shapes below that show a revision start with these. */
export const RevisionRef = Type.Object(
  {
    eventId: Type.String({ description: "Issuer event id" }),
    version: Type.Integer({ description: "Issuer revision number of the event" }),
  },
  { title: "RevisionRef", description: "One issuer revision of an event" },
);
export const RecordSha256 = describe(Sha256, "SHA-256 of the record's canonical JSON (RFC 8785), as stored");
export const IssuerRecordJson = Type.Record(Type.String(), Type.Unknown(), { description: "The issuer's record exactly as received" });
export const MatchedIssuerRecord = Type.Object(
  { ...RevisionRef.properties, sha256: RecordSha256, record: IssuerRecordJson },
  { title: "MatchedIssuerRecord", description: "The issuer record matched to the change" },
);
export const IncomeEvidence = Type.Object(
  {
    sha256: EvidenceField,
    classification: Classification,
    issuerRecord: Type.Union([MatchedIssuerRecord, Type.Null()], { description: "The matched issuer record; null when none matched" }),
  },
  { title: "IncomeEvidence", description: "Evidence behind the entry" },
);
export const IncomeDetail = Type.Composite(
  [
    IncomeEntry,
    Type.Object({
      dataset: DatasetLabel,
      chain: IncomeChain,
      evidence: IncomeEvidence,
      journal: Type.Array(JournalEntry, { description: "Every journal entry of the action, oldest first" }),
    }),
  ],
  { title: "IncomeDetail", description: "One v1 entry with its chain block, evidence and journal" },
);

export const YieldWindow = Type.Object(
  {
    window: Type.Union([Type.Literal("trailing_30d"), Type.Literal("trailing_365d"), Type.Literal("tracked")], {
      description: "The period: the last 30 days, the last 365 days, or everything the ledger tracked",
    }),
    from: describe(Timestamp, "Start of the window"),
    to: describe(Timestamp, "End of the window (now)"),
    status: Type.Union([Type.Literal("ok"), Type.Literal("partial")], { description: "partial: the ledger cannot cover the window fully (see partialCode); figures are then null or incomplete" }),
    partialCode: describe(NullableString, "Why the window is partial: balance_history_incomplete, no_balance_history, history_starts_inside_window, empty_window or unvalued_income; null when ok"),
    incomeUsd: describe(Usd, "Income USD in the window, rounded half-even to at most 6 decimal places; null when any income in it is unvalued"),
    incomeUnits: describe(NullableDecimal, "Units received as income in the window, in the current unit basis, rounded half-even at the mint's decimals"),
    averageQuantity: describe(NullableDecimal, "Time-weighted average quantity over the window, in the current unit basis, rounded half-even at the mint's decimals"),
    shareYield: describe(NullableDecimal, "incomeUnits ÷ averageQuantity: the share of the position received as income in the window"),
    annualisedShareYield: describe(NullableDecimal, "shareYield scaled to one year"),
    distributionPerShareUsd: describe(Usd, "Cash distributed per current share in the window, rounded half-even to at most 6 decimal places; null when a distribution's cash is unknown"),
    exact: YieldExact,
  },
  { title: "YieldWindow", description: "Yield of one position over one window" },
);
export const PositionYield = Type.Object(
  { mint: MintField, symbol: SymbolField, windows: Type.Array(YieldWindow, { description: "trailing_30d, trailing_365d and tracked" }) },
  { title: "PositionYield", description: "Yield of one position" },
);
export const YieldResponse = Type.Object(
  {
    owner: OwnerField,
    dataset: DatasetLabel,
    asOf: describe(Timestamp, "When this answer was read"),
    positions: Type.Array(PositionYield, { description: "One per position" }),
  },
  { title: "YieldResponse", description: "Yield per position and window" },
);

export const exportDatasets = ["journal", "income", "tax", "koinly", "cointracker", "coinledger", "awaken", "gains", "lots"] as const;
export const ExportQuery = Type.Object({
  owner: OwnerQuery.properties.owner,
  dataset: Type.Optional(
    literals(exportDatasets, {
      default: "journal",
      description:
        "Which rows to export: journal (every entry), income (the v1 income entries), tax (one row per income event with its breakdown, signature and evidence hash), " +
        "or a tax tool's own import template, income rows only: koinly (universal), cointracker, coinledger (universal manual import), awaken (standard); " +
        "gains (IRS Form 8949's columns, one row per disposal × lot, disposals in the date filter) or lots (the lots open at the end of `to`, else of `year`, else today)",
    }),
  ),
  ...DateFilterProperties,
  method: Type.Optional(methodQuery),
  treatment: Type.Optional(treatmentQuery),
});
export const CsvText = Type.String({
  title: "CsvText",
  description: "RFC 4180 CSV, UTF-8, CRLF, header row; first column `dataset`, except the tax tools' templates (koinly, cointracker, coinledger, awaken), whose header is the tool's own",
  contentMediaType: "text/csv",
});

/** An action id in a path (an income entry's id is the id of its action). */
export const ActionId = Type.String({ minLength: 1, maxLength: 128, description: "Id of the action (an income entry's id is its action's id)" });
export const IncomeParams = Type.Object({ id: ActionId });
