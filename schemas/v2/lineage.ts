import { Type } from "@sinclair/typebox";
import { DatasetLabel, Decimal, MintField, NullableString, NullableTimestamp, SymbolField, describe, literals } from "../common.ts";

export const Identity = Type.Object(
  {
    symbol: Type.String({ description: "Ticker under this identity" }),
    underlying: describe(NullableString, "The underlying stock or fund under this identity"),
    isin: describe(NullableString, "ISIN under this identity"),
    validFrom: describe(NullableTimestamp, "Since when the identity holds; null for the first one when its start is unknown"),
  },
  { title: "Identity", description: "One recorded identity of the mint" },
);
export const Distributed = Type.Object(
  {
    name: describe(
      NullableString,
      "The distributed holding's name where a source states it: an operator record's distributedName, or an issuer note (\"Sell of 18606 units of KRAQW\"); null when none does",
    ),
    namedBy: Type.Union([Type.Literal("operator"), Type.Literal("issuer"), Type.Null()], { description: "Who named it: an operator record, or the issuer's note; null when not named" }),
    holding: Type.String({ description: 'The name, else what it was: "a holding distributed by HON (not named by the issuer)"' }),
    description: Type.String({
      description:
        'In words: "a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by the issuer)", "KRAQW, rights distributed by KRAQ, sold by the issuer and reinvested in KRAQx (named in the issuer\'s note)"',
    }),
  },
  { title: "Distributed", description: "What a spin-off, a rights distribution or cash in lieu distributed (the issuer sold it and reinvested the proceeds in the tokenized stock)" },
);
export const LineageLink = Type.Object(
  {
    type: literals(["identity_change", "spin_off", "rights_distribution", "transform", "terminate"], {
      description:
        "identity_change: same holding, new identity; spin_off: part of the value distributed as another company's shares; rights_distribution: part of the value distributed as rights or warrants; " +
        "transform: part of the value distributed as cash in lieu of fractions; terminate: the holding ended in cash",
    }),
    from: Type.String({ description: "The identity the link starts from (its underlying, else its symbol)" }),
    to: Type.Union([Type.String(), Type.Null()], { description: "The identity after the link (underlying, else symbol); null when the holding ended" }),
    basisFraction: describe(Decimal, "Share of the basis that stays with the holding `to`"),
    cashFraction: describe(Decimal, "Share of the basis that left as a distribution or as cash; basisFraction + cashFraction = 1 exactly"),
    at: describe(NullableTimestamp, "When the link took effect"),
    distributed: Type.Optional(describe(Distributed, "What was distributed (spin_off, rights_distribution and transform links only)")),
    actionId: Type.Optional(Type.String({ description: "The action that created the link, when there is one" })),
  },
  { title: "LineageLink", description: "A link between two identities, carrying the basis" },
);
export const BasisHolding = Type.Object(
  {
    holding: Type.String({ description: "The identity (underlying, else symbol) that part of the basis belongs to, cash, or for a distributed part what was distributed (distributed.holding)" }),
    kind: Type.Union([Type.Literal("position"), Type.Literal("cash"), Type.Literal("distributed")], {
      description: "position: held in the current line; distributed: value distributed (spin-off, rights) and reinvested in the line; cash: paid out when the holding ended",
    }),
    fraction: describe(Decimal, "Share of the earliest identity's basis that sits there"),
    distributed: Type.Optional(describe(Distributed, "For a distributed part: what was distributed (one entry per distribution, oldest first)")),
    at: Type.Optional(describe(NullableTimestamp, "For a distributed part: when it was distributed")),
  },
  { title: "BasisHolding", description: "Where a part of the earliest identity's basis sits now" },
);
export const LineageResponse = Type.Object(
  {
    mint: MintField,
    symbol: SymbolField,
    dataset: DatasetLabel,
    identities: Type.Array(Identity, { description: "Every recorded identity of the mint, oldest first" }),
    links: Type.Array(LineageLink, { description: "Links between the identities, oldest first" }),
    basisNowSits: Type.Array(BasisHolding, { description: "Where the earliest identity's basis sits now; fractions sum to exactly 1" }),
  },
  { title: "LineageResponse", description: "Identities of an instrument, links between them, and where the first identity's basis sits" },
);
export const MintParams = Type.Object({ mint: Type.String({ minLength: 1, maxLength: 64, description: "Mint address of the instrument (base58)" }) });
