import { Type } from "@sinclair/typebox";
import { Address, NullableString, NullableTimestamp, OwnerQuery, Timestamp, describe, literals } from "../common.ts";

export const SyncState = literals(["queued", "running", "complete", "partial", "failed"], {
  title: "SyncState",
  description: "queued → running → complete, or partial (finished with named gaps), or failed (error kept; retried with backoff up to 5 attempts)",
});

export const SyncRequestBody = Type.Object(
  { owner: describe(Address, "The wallet to register and sync (base58 Solana address of 32 bytes)") },
  { title: "SyncRequestBody", description: "The wallet to register for this tenant and sync", additionalProperties: false },
);
export const SyncRequestResponse = Type.Object(
  {
    owner: Type.String({ description: "The wallet, as sent" }),
    registration: Type.Union([Type.Literal("registered"), Type.Literal("already_registered")], {
      description: "registered: this request registered the wallet for the tenant; already_registered: it was already",
    }),
    status: Type.Union([Type.Literal("queued"), Type.Literal("running")], { description: "State of the wallet's sync job now" }),
    job: Type.Union([Type.Literal("enqueued"), Type.Literal("already_pending")], { description: "enqueued: a sync was queued; already_pending: one was already queued or running, nothing was added" }),
  },
  {
    title: "SyncRequestResponse",
    description: "The wallet is registered and a sync is queued or already under way",
    examples: [{ owner: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", registration: "registered", status: "queued", job: "enqueued" }],
  },
);

export const WalletSummary = Type.Object(
  {
    owner: Type.String({ description: "The wallet (base58)" }),
    registeredAt: describe(Timestamp, "When this tenant registered the wallet"),
    status: describe(SyncState, "State of this tenant's latest sync of the wallet"),
  },
  { title: "WalletSummary", description: "A wallet this tenant follows" },
);
export const WalletsResponse = Type.Object(
  {
    tenant: Type.String({ description: "Slug of the tenant the key belongs to" }),
    maxWallets: Type.Integer({ description: "How many wallets this tenant may register" }),
    wallets: Type.Array(WalletSummary, { description: "Every wallet this tenant registered" }),
  },
  { title: "WalletsResponse", description: "Wallets this tenant registered" },
);

export const Gap = Type.Object(
  {
    address: Type.String({ description: "The account whose history could not be fetched in full" }),
    reason: Type.String({ description: "Why (e.g. the RPC error after retries); the ledger records the gap instead of guessing" }),
  },
  { title: "Gap", description: "History the sync could not fetch; the positions it touches read partial" },
);
export const SyncProgress = Type.Object(
  {
    phase: describe(NullableString, "What the sync is doing now (e.g. fetching signatures); null before it starts"),
    done: Type.Integer({ description: "Steps of the current phase done" }),
    total: Type.Integer({ description: "Steps of the current phase known so far" }),
  },
  { title: "SyncProgress", description: "Progress of a running sync" },
);
export const SyncStatusResponse = Type.Object(
  {
    owner: Type.String({ description: "The wallet (base58)" }),
    status: describe(SyncState, "State of this tenant's latest sync of the wallet"),
    requestedAt: describe(Timestamp, "When the sync was requested"),
    startedAt: describe(NullableTimestamp, "When the sync started; null while queued"),
    finishedAt: describe(NullableTimestamp, "When the sync finished; null until it does"),
    progress: SyncProgress,
    transactionsFetched: Type.Integer({ description: "Transactions fetched from the chain by this sync" }),
    gaps: Type.Array(Gap, { description: "History that could not be fetched; empty when the sync is complete" }),
    error: describe(NullableString, "The last error of a failed attempt; null when none"),
    attempts: Type.Integer({ description: "Attempts made so far (a failing sync is retried up to 5 times)" }),
    nextRetryAt: describe(NullableTimestamp, "When the next attempt runs after a failure; null when none is planned"),
  },
  { title: "SyncStatusResponse", description: "Sync status of a wallet, as this tenant requested it" },
);
export const OwnerParams = Type.Object({ owner: OwnerQuery.properties.owner });
/** A 204's answer: no body (the OpenAPI document shows the status and this description alone). */
export const NoContent = Type.Undefined({ title: "NoContent", description: "Done; the answer has no body" });
