import { Type } from "@sinclair/typebox";
import { Decimal, literals, NullableString, Timestamp } from "../common.ts";

export const Asset = Type.Object({
  mint: Type.String(),
  symbol: Type.String(),
  name: NullableString,
  underlying: NullableString,
  isin: NullableString,
  decimals: Type.Union([Type.Integer(), Type.Null()]),
  multiplier: Type.Union([Decimal, Type.Null()], { description: "Multiplier in force now, exact decimal of the f64 on chain" }),
  updatedAt: Timestamp,
  source: literals(["xstocks", "token-metadata"], { description: "Where the name comes from: the issuer feed, or the mint's own Token-2022 metadata (a mint no feed lists)" }),
  uri: Type.Union([Type.String(), Type.Null()], { description: "The metadata's URI (token-metadata instruments)" }),
});
export const AssetsResponse = Type.Object({ assets: Type.Array(Asset) });
