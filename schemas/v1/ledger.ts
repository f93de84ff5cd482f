// v1 ledger reads: portfolio, income, journal, yield, export. v1 shows every action as a
// `kind` (dividend, split, unclassified_adjustment), read from the same rows as v2.
import { Type } from "@sinclair/typebox";
import { Address, DatasetLabel, DateFilterProperties, Decimal, literals, NextOffset, NullableDecimal, NullableString, NullableTimestamp, Sha256, Timestamp, Usd } from "../common.ts";

export const Kind = Type.Union([Type.Literal("dividend"), Type.Literal("split"), Type.Literal("unclassified_adjustment")]);

export const Position = Type.Object({
  mint: Type.String(),
  symbol: NullableString,
  decimals: Type.Integer(),
  rawBalance: Decimal,
  quantity: Decimal,
  multiplier: Decimal,
  principalQuantity: Decimal,
  convertibleQuantity: Decimal,
  incomeUsd: Decimal,
  status: Type.Union([Type.Literal("ok"), Type.Literal("partial"), Type.Literal("terminated")]),
  statusReason: NullableString,
});
export const Portfolio = Type.Object({
  owner: Type.String(),
  dataset: DatasetLabel,
  asOf: Timestamp,
  unclassifiedAdjustments: Type.Integer(),
  totals: Type.Object({ incomeUsd: Decimal, unvaluedIncomeEvents: Type.Integer() }),
  positions: Type.Array(Position),
});

export const IncomeEntry = Type.Object({
  id: Type.String(),
  owner: Type.String(),
  mint: Type.String(),
  symbol: NullableString,
  kind: Kind,
  splitFactor: NullableDecimal,
  headline: Type.String(),
  reasons: Type.Array(Type.String()),
  effectiveAt: Timestamp,
  quantityDisplay: Decimal,
  incomeUnits: Decimal,
  usd: Usd,
  warnings: Type.Array(Type.String()),
  evidenceSha256: Sha256,
});
export const IncomeList = Type.Object({
  owner: Type.String(),
  dataset: DatasetLabel,
  entries: Type.Array(IncomeEntry),
  total: Type.Integer(),
  nextOffset: NextOffset,
});

export const JournalEntry = Type.Object({
  id: Type.Integer(),
  owner: Type.String(),
  actionId: Type.String(),
  entryType: Type.Union([Type.Literal("recognition"), Type.Literal("reversal")]),
  reversesId: Type.Union([Type.Integer(), Type.Null()]),
  mint: Type.String(),
  symbol: NullableString,
  kind: Kind,
  unitsDelta: Decimal,
  principalUnitsDelta: Decimal,
  incomeUnits: Decimal,
  usd: Usd,
  effectiveAt: Timestamp,
  changeReason: NullableString,
  evidenceSha256: Sha256,
  createdAt: Timestamp,
});
export const JournalList = Type.Object({
  owner: Type.String(),
  dataset: DatasetLabel,
  entries: Type.Array(JournalEntry),
  total: Type.Integer(),
  nextOffset: NextOffset,
});

export const IncomeDetail = Type.Composite([
  IncomeEntry,
  Type.Object({
    dataset: DatasetLabel,
    chain: Type.Object({
      signature: Type.String(),
      scheduledAt: NullableTimestamp,
      effectiveAt: Timestamp,
      multiplierOld: Decimal,
      multiplierNew: Decimal,
    }),
    evidence: Type.Object({
      sha256: Sha256,
      classification: Type.Object({
        result: Type.Union([Type.Literal("dividend"), Type.Literal("split"), Type.Literal("unclassified")]),
        reason: NullableString,
      }),
      issuerRecord: Type.Union([Type.Object({ eventId: Type.String(), version: Type.Integer(), sha256: Sha256, record: Type.Record(Type.String(), Type.Unknown()) }), Type.Null()]),
    }),
    journal: Type.Array(JournalEntry),
  }),
]);

export const YieldWindow = Type.Object({
  window: Type.Union([Type.Literal("trailing_30d"), Type.Literal("trailing_365d"), Type.Literal("tracked")]),
  from: Timestamp,
  to: Timestamp,
  status: Type.Union([Type.Literal("ok"), Type.Literal("partial")]),
  partialCode: NullableString,
  incomeUsd: Usd,
  incomeUnits: NullableDecimal,
  averageQuantity: NullableDecimal,
  shareYield: NullableDecimal,
  annualisedShareYield: NullableDecimal,
  distributionPerShareUsd: Usd,
});
export const YieldResponse = Type.Object({
  owner: Type.String(),
  dataset: DatasetLabel,
  asOf: Timestamp,
  positions: Type.Array(Type.Object({ mint: Type.String(), symbol: NullableString, windows: Type.Array(YieldWindow) })),
});

export const exportDatasets = ["journal", "income", "tax", "koinly", "cointracker", "coinledger", "awaken"] as const;
export const ExportQuery = Type.Object({
  owner: Address,
  dataset: Type.Optional(
    literals(exportDatasets, {
      default: "journal",
      description:
        "journal (every entry), income (the v1 income entries), tax (one row per income event with its breakdown, signature and evidence hash), " +
        "or a tax tool's own import template, income rows only: koinly (universal), cointracker, coinledger (universal manual import), awaken (standard)",
    }),
  ),
  ...DateFilterProperties,
});
export const CsvText = Type.String({
  description: "RFC 4180 CSV, UTF-8, CRLF, header row; first column `dataset`, except the tax tools' templates (koinly, cointracker, coinledger, awaken), whose header is the tool's own",
});

export const IncomeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
