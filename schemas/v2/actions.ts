// v2: every change to a position is a corporate action with a type, a treatment, a lifecycle,
// six timestamps, evidence hashes and a validation status.
import { Type } from "@sinclair/typebox";
import { LineageLink } from "./lineage.ts";
import { Address, DatasetLabel, PagedOwnerQuery, Decimal, NextOffset, NullableDecimal, NullableString, NullableTimestamp, Sha256, Timestamp, Usd, literals } from "../common.ts";

export const actionTypes = [
  "cash_dividend", "withholding_adjustment", "stock_dividend", "cash_and_stock_dividend",
  "forward_split", "reverse_split", "unit_split", "cash_in_lieu", "spin_off", "rights_distribution",
  "stock_merger", "cash_merger", "mixed_merger", "identity_change", "redemption", "delisting", "seizure", "unknown",
] as const;
export const ActionType = literals(actionTypes);
export const Treatment = literals(["income", "quantity_basis", "basis_allocation", "identity", "not_booked"]);
export const Category = literals(["income", "basis", "identity", "termination", "custody", "unknown"]);
export const LifecycleState = literals(["announced", "confirmed", "activated", "corrected", "reversed", "superseded"]);
export const ValidationStatus = Type.Union([Type.Literal("validated"), Type.Literal("unvalidated"), Type.Literal("not_built")]);
export const Validation = Type.Object({ status: ValidationStatus, realInstances: Type.Integer({ minimum: 0 }) });
const RevisionRef = Type.Object({ eventId: Type.String(), version: Type.Integer() });

export const EvidenceSummary = Type.Object(
  {
    chainKey: Type.Union([Type.String(), Type.Null()], { description: "mint:signature:instruction of the multiplier change; null while only announced" }),
    matchedRevisionSha256: Type.Union([Sha256, Type.Null()]),
    revisionCount: Type.Integer(),
    rawBalance: Decimal,
    payloadSha256: Sha256,
  },
  { additionalProperties: true },
);

export const ActionSummary = Type.Object({
  id: Type.String(),
  owner: Type.String(),
  mint: Type.String(),
  symbol: NullableString,
  type: ActionType,
  treatment: Treatment,
  category: Category,
  quantityDisplay: Decimal,
  usd: Usd,
  effectiveAt: NullableTimestamp,
  lifecycle: Type.Object({ state: LifecycleState }),
  validation: Validation,
  evidence: EvidenceSummary,
  evidenceSha256: Sha256,
  factor: NullableDecimal,
  distributedFraction: NullableDecimal,
  proceedsUsd: Usd,
  underlying: Type.Union([Type.Object({ from: NullableString, to: NullableString }), Type.Null()]),
  refundNote: NullableString,
  retentionRate: NullableDecimal,
  warnings: Type.Array(Type.String()),
  reason: NullableString,
  splitFactor: NullableDecimal,
});

export const ActionsQuery = PagedOwnerQuery;
export const ActionsList = Type.Object({
  owner: Type.String(),
  dataset: DatasetLabel,
  actions: Type.Array(ActionSummary),
  total: Type.Integer(),
  nextOffset: NextOffset,
});

export const LifecycleStep = Type.Object({
  state: LifecycleState,
  at: NullableTimestamp,
  revision: Type.Union([RevisionRef, Type.Null()]),
  supersedes: Type.Union([RevisionRef, Type.Null()]),
  note: Type.String(),
});

export const StoredRevision = Type.Object({
  eventId: Type.String(),
  version: Type.Integer(),
  status: Type.String(),
  caType: Type.String(),
  sha256: Sha256,
  ingestedAt: Timestamp,
  edited: Type.Boolean(),
  source: literals(["xstocks", "operator"], { description: "Who stated it: the issuer's feed, or an operator's import (`ca-ledger import issuer-records`)" }),
  standing: literals(["standing", "cancelled", "superseded", "cancellation"]),
  record: Type.Record(Type.String(), Type.Unknown()),
});

export const ActionJournalEntry = Type.Object({
  id: Type.Integer(),
  entryType: Type.Union([Type.Literal("recognition"), Type.Literal("reversal")]),
  reversesId: Type.Union([Type.Integer(), Type.Null()]),
  unitsDelta: Decimal,
  incomeUnits: Decimal,
  usd: Usd,
  changeReason: NullableString,
  evidenceSha256: Sha256,
  createdAt: Timestamp,
});

export const ActionDetail = Type.Composite([
  ActionSummary,
  Type.Object({
    dataset: DatasetLabel,
    decimals: Type.Integer(),
    unitsBefore: Decimal,
    unitsAfter: Decimal,
    rawBalance: Decimal,
    incomeUnits: Decimal,
    lifecycle: Type.Object({ state: LifecycleState, steps: Type.Array(LifecycleStep) }),
    timestamps: Type.Object({
      issuerEffectiveAt: NullableTimestamp,
      issuerCreatedAt: NullableTimestamp,
      configuredActivationAt: NullableTimestamp,
      publicationBlockTime: NullableTimestamp,
      firstObservedActiveAt: NullableTimestamp,
      ingestedAt: NullableTimestamp,
    }),
    chain: Type.Object({
      signature: NullableString,
      slot: Type.Union([Type.Integer(), Type.Null()]),
      blockTime: NullableTimestamp,
      multiplierOld: NullableDecimal,
      multiplierNew: NullableDecimal,
      scheduledAt: NullableTimestamp,
      effectiveAt: NullableTimestamp,
      updateSignature: NullableString,
    }),
    matched: Type.Union([Type.Object({ eventId: Type.String(), version: Type.Integer(), sha256: Sha256 }), Type.Null()]),
    revisions: Type.Array(StoredRevision),
    journal: Type.Array(ActionJournalEntry),
    lineageLink: Type.Union([LineageLink, Type.Null()]),
  }),
]);
export const ActionDetailQuery = Type.Object({ owner: Address });
export const ActionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
