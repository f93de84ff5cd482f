import { Type } from "@sinclair/typebox";
import { Decimal, NullableString, Timestamp } from "../common.ts";

export const Asset = Type.Object({
  mint: Type.String(),
  symbol: Type.String(),
  name: NullableString,
  underlying: NullableString,
  isin: NullableString,
  decimals: Type.Union([Type.Integer(), Type.Null()]),
  multiplier: Type.Union([Decimal, Type.Null()], { description: "Multiplier in force now, exact decimal of the f64 on chain" }),
  updatedAt: Timestamp,
});
export const AssetsResponse = Type.Object({ assets: Type.Array(Asset) });
