import { Type } from "@sinclair/typebox";
import { Decimal, MintField, NullableString, Timestamp, describe, literals } from "../common.ts";

export const Asset = Type.Object(
  {
    mint: MintField,
    symbol: Type.String({ description: "Ticker of the instrument (e.g. NVDAx)" }),
    name: describe(NullableString, "Name the issuer gives the instrument; null when not published"),
    underlying: describe(NullableString, "Ticker of the underlying stock or fund; null when not published"),
    isin: describe(NullableString, "ISIN of the underlying; null when not published"),
    decimals: Type.Union([Type.Integer(), Type.Null()], { description: "Decimals of the mint; null until the mint has been read from chain" }),
    multiplier: Type.Union([Decimal, Type.Null()], { description: "Multiplier in force now, exact decimal of the f64 on chain; null until the mint has been read" }),
    updatedAt: describe(Timestamp, "When this row last changed"),
    source: literals(["xstocks", "token-metadata"], { description: "Where the name comes from: the issuer feed, or the mint's own Token-2022 metadata (a mint no feed lists)" }),
    uri: Type.Union([Type.String(), Type.Null()], { description: "The metadata's URI (token-metadata instruments); null otherwise" }),
  },
  { title: "Asset", description: "An instrument the ledger knows" },
);
export const AssetsResponse = Type.Object(
  { assets: Type.Array(Asset, { description: "Every known instrument" }) },
  { title: "AssetsResponse", description: "Instruments the ledger knows, with the multiplier in force" },
);
