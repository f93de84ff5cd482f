// v2: every change to a position is a corporate action with a type, a treatment, a lifecycle,
// six timestamps, evidence hashes and a validation status.
import { Type } from "@sinclair/typebox";
import { LineageLink } from "./lineage.ts";
import {
  DatasetLabel,
  Decimal,
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
import { ActionId, IssuerRecordJson, JournalEntry, RecordSha256, RevisionRef } from "../v1/ledger.ts";
import { ActionDetailExact, ActionExact, incomeBreakdown } from "../amounts.ts";

export const actionTypes = [
  "cash_dividend",
  "withholding_adjustment",
  "stock_dividend",
  "cash_and_stock_dividend",
  "forward_split",
  "reverse_split",
  "unit_split",
  "cash_in_lieu",
  "spin_off",
  "rights_distribution",
  "stock_merger",
  "cash_merger",
  "mixed_merger",
  "identity_change",
  "redemption",
  "delisting",
  "seizure",
  "unknown",
] as const;
export const ActionType = literals(actionTypes, {
  title: "ActionType",
  description: "One of the 18 corporate action types (GET /v2/taxonomy describes each); unknown when no single issuer record matches the change",
});
export const Treatment = literals(["income", "quantity_basis", "basis_allocation", "identity", "not_booked"], {
  title: "Treatment",
  description:
    "How the ledger books the type: income (units received are income), quantity_basis (units scale, cost basis spread over them), basis_allocation (part of the value moved to something distributed; never income), identity (the instrument changed identity, all basis carried), not_booked (recorded with its reason, nothing booked)",
});
export const Category = literals(["income", "basis", "identity", "termination", "custody", "unknown"], {
  title: "Category",
  description: "Family of the type in the taxonomy: income, basis (quantity or basis changes), identity, termination (mergers for cash, redemptions, delistings), custody (seizures), unknown",
});
export const LifecycleState = literals(["announced", "confirmed", "activated", "corrected", "reversed", "superseded"], {
  title: "LifecycleState",
  description:
    "announced: an issuer record, nothing on chain yet; confirmed: the multiplier change is written on chain, activation still ahead; activated: in force; corrected: a revision or new evidence changed the booking after activation (the journal holds a reversal and a replacement); reversed: cancelled, nothing left in force; superseded: a scheduled change overwritten before it took effect",
});
export const ValidationStatus = Type.Union([Type.Literal("validated"), Type.Literal("unvalidated"), Type.Literal("not_built")], {
  title: "ValidationStatus",
  description:
    "validated: a booking rule exists and every real instance in this ledger reconciled; unvalidated: a rule exists but no real instance has reconciled yet; not_built: no booking rule (treatment not_booked)",
});
export const Validation = Type.Object(
  {
    status: ValidationStatus,
    realInstances: Type.Integer({ minimum: 0, description: "Chain multiplier changes in this ledger matched to an issuer record of this type" }),
  },
  { title: "Validation", description: "How far the type's automatic booking is proven on real data (computed from the stored census)" },
);
export const EvidenceSummary = Type.Object(
  {
    chainKey: Type.Union([Type.String(), Type.Null()], { description: "mint:signature:instruction of the multiplier change; null while only announced" }),
    matchedRevisionSha256: Type.Union([Sha256, Type.Null()], { description: "SHA-256 of the matched issuer revision; null when none matched" }),
    revisionCount: Type.Integer({ description: "Issuer revisions stored for the event, edited duplicates included" }),
    rawBalance: describe(Decimal, "Raw token balance of the wallet when the change took effect"),
    payloadSha256: describe(Sha256, "SHA-256 of the stored evidence payload (equals evidenceSha256)"),
  },
  { title: "EvidenceSummary", description: "What the booking rests on", additionalProperties: true },
);

export const Underlying = Type.Object(
  {
    from: describe(NullableString, "The underlying before the change"),
    to: describe(NullableString, "The underlying after the change"),
  },
  { title: "Underlying", description: "For an identity change: the underlying before and after" },
);

export const ActionSummary = Type.Object(
  {
    id: Type.String({ description: "Id of the action, used in the detail path" }),
    owner: OwnerField,
    mint: MintField,
    symbol: SymbolField,
    type: ActionType,
    treatment: Treatment,
    category: Category,
    quantityDisplay: describe(Decimal, "Change of the displayed quantity: what the wallet showed after less what it showed before (the Token-2022 program's rendering at the mint's decimals)"),
    usd: describe(
      Usd,
      "USD of the action: for income, the net cash the issuer reinvested (after tax and retention), rounded half-even to at most 6 decimal places; null when unknown, not applicable, or on a schedule that never took force",
    ),
    grossUsd: incomeBreakdown.grossUsd,
    withholdingTaxRate: incomeBreakdown.withholdingTaxRate,
    withholdingTaxUsd: incomeBreakdown.withholdingTaxUsd,
    retainedUsd: incomeBreakdown.retainedUsd,
    effectiveAt: describe(NullableTimestamp, "When the change took effect on chain; null while only announced"),
    lifecycle: Type.Object({ state: LifecycleState }, { description: "Where the action stands (the detail adds every step)" }),
    validation: Validation,
    evidence: EvidenceSummary,
    evidenceSha256: EvidenceField,
    factor: describe(NullableDecimal, "Quantity factor M_new ÷ M_old for types that change the unit basis (splits, stock dividends, identity changes, stock mergers); null otherwise"),
    distributedFraction: describe(NullableDecimal, "Spin-offs and rights: the share of the position's value distributed and reinvested, (M_new − M_old) ÷ M_new; never income; null otherwise"),
    proceedsUsd: describe(Usd, "Spin-offs and rights: USD proceeds the issuer published, when plausible, rounded half-even to at most 6 decimal places; null otherwise"),
    underlying: Type.Union([Underlying, Type.Null()], { description: "Identity changes: the underlying before and after; null otherwise" }),
    refundNote: describe(NullableString, "Withholding adjustments: says the units pass back tax withheld earlier and are not a new dividend; null otherwise"),
    retentionRate: describe(
      NullableDecimal,
      'The share of the gross distribution the issuer kept back for currency conversion or fees, as the issuer published it (e.g. 0.05 for "Retention of 5% to cover ccy fluctuations"). A retention is not tax withheld. Null when the issuer published no retention',
    ),
    warnings: Type.Array(Type.String(), { description: "Doubts about the data (e.g. an implausible issuer cash figure, a missing net amount); empty when none" }),
    reason: describe(
      NullableString,
      "Why the action was classified so, naming the issuer's event by type and date; for income the cash a share and the reinvestment price where known (for unknown: why no single record matched)",
    ),
    splitFactor: describe(NullableDecimal, "For forward, reverse and unit splits: new units per old unit; null otherwise"),
    exact: ActionExact,
  },
  { title: "ActionSummary", description: "A corporate action as the list shows it" },
);

export const ActionsQuery = PagedOwnerQuery;
export const ActionsList = pageOf("actions", ActionSummary, { title: "ActionsList", description: "A page of the wallet's corporate actions, newest first" });

export const LifecycleStep = Type.Object(
  {
    state: LifecycleState,
    at: describe(NullableTimestamp, "When the step happened; null when unknown"),
    revision: Type.Union([RevisionRef, Type.Null()], { description: "The issuer revision behind the step; null for a chain step" }),
    supersedes: Type.Union([RevisionRef, Type.Null()], { description: "The revision this step supersedes or cancels; null when none" }),
    note: Type.String({ description: "What happened, in words" }),
  },
  { title: "LifecycleStep", description: "One step of the action's lifecycle" },
);

export const RevisionStanding = literals(["standing", "cancelled", "superseded", "cancellation"], {
  title: "RevisionStanding",
  description: "standing: the revision is in force; cancelled: a later revision cancels it; superseded: a later standing revision replaces it; cancellation: this revision cancels an earlier one",
});
export const StoredRevision = Type.Object(
  {
    ...RevisionRef.properties,
    status: Type.String({ description: "The issuer's status of the revision (Initial, Scheduled, Corrected, Cancelled)" }),
    caType: Type.String({ description: "The issuer's corporate-action type (e.g. CashDividend, ForwardSplit)" }),
    sha256: RecordSha256,
    ingestedAt: describe(Timestamp, "When the ledger stored this revision"),
    edited: Type.Boolean({ description: "True when the issuer changed the record without a new version (an earlier observation of the same version had another hash)" }),
    source: literals(["xstocks", "operator"], { description: "Who stated it: the issuer's feed, or an operator's import (`ca-ledger import issuer-records`; its record then includes the mint)" }),
    standing: RevisionStanding,
    record: IssuerRecordJson,
  },
  { title: "StoredRevision", description: "An issuer revision as stored, kept forever, with its own hash" },
);

export const ActionJournalEntry = Type.Pick(JournalEntry, ["id", "entryType", "reversesId", "unitsDelta", "incomeUnits", "usd", "changeReason", "evidenceSha256", "createdAt"], {
  title: "ActionJournalEntry",
  description: "A journal entry of the action",
});

export const ActionTimestamps = Type.Object(
  {
    issuerEffectiveAt: describe(NullableTimestamp, "Effective time of the matched issuer revision"),
    issuerCreatedAt: describe(NullableTimestamp, "Creation time of the matched issuer revision"),
    configuredActivationAt: describe(NullableTimestamp, "Activation time written to the mint with the multiplier update"),
    publicationBlockTime: describe(NullableTimestamp, "Block time of the transaction that wrote the update"),
    firstObservedActiveAt: describe(NullableTimestamp, "When a sync first saw the new multiplier in force"),
    ingestedAt: describe(NullableTimestamp, "When the matched issuer revision was stored"),
  },
  { title: "ActionTimestamps", description: "Six distinct times of the action; null when unknown" },
);
export const ChainEvidence = Type.Object(
  {
    signature: describe(NullableString, "Signature of the transaction that wrote the multiplier update"),
    slot: Type.Union([Type.Integer(), Type.Null()], { description: "Slot of that transaction" }),
    blockTime: describe(NullableTimestamp, "Block time of that transaction"),
    multiplierOld: describe(NullableDecimal, "Multiplier before the change (exact decimal of the f64)"),
    multiplierNew: describe(NullableDecimal, "Multiplier after the change (exact decimal of the f64)"),
    scheduledAt: describe(NullableTimestamp, "Activation time the update wrote"),
    effectiveAt: describe(NullableTimestamp, "When the new multiplier took effect"),
    updateSignature: describe(NullableString, "Signature of the UpdateMultiplier transaction"),
  },
  { title: "ChainEvidence", description: "What the chain did; all null for an action with no multiplier change of its own" },
);
export const MatchedRevision = Type.Object({ ...RevisionRef.properties, sha256: RecordSha256 }, { title: "MatchedRevision", description: "The issuer revision the booking uses" });

export const ActionDetail = Type.Composite(
  [
    Type.Omit(ActionSummary, ["lifecycle", "exact"]), // the detail's lifecycle adds the steps, its exact the units
    Type.Object({
      dataset: DatasetLabel,
      decimals: Type.Integer({ description: "Decimals of the mint" }),
      unitsBefore: describe(
        Decimal,
        "Quantity just before the change as the wallet showed it (the Token-2022 program's rendering of the raw balance at the old multiplier); exact value under exact.unitsBefore",
      ),
      unitsAfter: describe(Decimal, "Quantity just after the change as the wallet showed it: unitsBefore + quantityDisplay; exact value under exact.unitsAfter"),
      rawBalance: describe(Decimal, "Raw token balance of the wallet when the change took effect"),
      incomeUnits: describe(Decimal, "Units received as income (0 when not income), at the mint's decimals"),
      lifecycle: Type.Object(
        { state: LifecycleState, steps: Type.Array(LifecycleStep, { description: "Every step, oldest first, each with the revision it supersedes" }) },
        { description: "Where the action stands and how it got there" },
      ),
      timestamps: ActionTimestamps,
      chain: ChainEvidence,
      matched: Type.Union([MatchedRevision, Type.Null()], { description: "The issuer revision the booking uses; null when none matched" }),
      revisions: Type.Array(StoredRevision, { description: "Every stored issuer revision of the event, cancelled and superseded ones included" }),
      journal: Type.Array(ActionJournalEntry, { description: "Every journal entry of the action, oldest first" }),
      lineageLink: Type.Union([LineageLink, Type.Null()], {
        description:
          "The lineage link the action created once it took effect (identity change, spin-off with what it distributed, rights distribution, cash in lieu, termination), with its actionId; null otherwise",
      }),
      exact: ActionDetailExact,
    }),
  ],
  { title: "ActionDetail", description: "One action: lifecycle, six timestamps, every issuer revision, chain evidence, journal" },
);
export const ActionDetailQuery = OwnerQuery;
export const ActionParams = Type.Object({ id: ActionId });
