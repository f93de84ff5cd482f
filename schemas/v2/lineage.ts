import { Type } from "@sinclair/typebox";
import { DatasetLabel, Decimal, NullableString, NullableTimestamp, literals } from "../common.ts";

export const Identity = Type.Object({
  symbol: Type.String(),
  underlying: NullableString,
  isin: NullableString,
  validFrom: NullableTimestamp,
});
export const LineageLink = Type.Object({
  type: literals(["identity_change", "spin_off", "transform", "terminate"]),
  from: Type.String(),
  to: Type.Union([Type.String(), Type.Null()]),
  basisFraction: Decimal,
  cashFraction: Decimal,
  at: NullableTimestamp,
  actionId: Type.Optional(Type.String()),
});
export const LineageResponse = Type.Object({
  mint: Type.String(),
  symbol: NullableString,
  dataset: DatasetLabel,
  identities: Type.Array(Identity),
  links: Type.Array(LineageLink),
  basisNowSits: Type.Array(
    Type.Object({ holding: Type.String(), kind: Type.Union([Type.Literal("position"), Type.Literal("cash"), Type.Literal("distributed")]), fraction: Decimal }),
    { description: "Where the earliest identity's basis sits now; fractions sum to exactly 1" },
  ),
});
export const MintParams = Type.Object({ mint: Type.String({ minLength: 1, maxLength: 64 }) });
