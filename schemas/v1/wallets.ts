import { Type } from "@sinclair/typebox";
import { Address, NullableString, NullableTimestamp, Timestamp, literals } from "../common.ts";

export const SyncState = literals(["queued", "running", "complete", "partial", "failed"]);

export const SyncRequestBody = Type.Object({ owner: Address }, { additionalProperties: false });
export const SyncRequestResponse = Type.Object(
  {
    owner: Type.String(),
    registration: Type.Union([Type.Literal("registered"), Type.Literal("already_registered")]),
    status: Type.Union([Type.Literal("queued"), Type.Literal("running")]),
    job: Type.Union([Type.Literal("enqueued"), Type.Literal("already_pending")]),
  },
  { examples: [{ owner: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", registration: "registered", status: "queued", job: "enqueued" }] },
);

export const WalletsResponse = Type.Object({
  tenant: Type.String(),
  maxWallets: Type.Integer(),
  wallets: Type.Array(Type.Object({ owner: Type.String(), registeredAt: Timestamp, status: SyncState })),
});

export const Gap = Type.Object({ address: Type.String(), reason: Type.String() });
export const SyncStatusResponse = Type.Object({
  owner: Type.String(),
  status: SyncState,
  requestedAt: Timestamp,
  startedAt: NullableTimestamp,
  finishedAt: NullableTimestamp,
  progress: Type.Object({ phase: NullableString, done: Type.Integer(), total: Type.Integer() }),
  transactionsFetched: Type.Integer(),
  gaps: Type.Array(Gap),
  error: NullableString,
  attempts: Type.Integer(),
  nextRetryAt: NullableTimestamp,
});
export const OwnerParams = Type.Object({ owner: Address });
