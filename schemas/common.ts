// Shared shapes: exact amounts as strings, timestamps, the dataset label, paging, the owner.
// Plain TypeBox only, so the client carries no server framework; src/http/params.ts makes the
// query integers coerce from strings for Elysia.
//
// Every property carries a description (a test walks the OpenAPI document for it), and a schema
// with a `title` becomes a named component there (its title is its export name).
import { Type, type Static, type TArray, type TLiteral, type TSchema, type TUnion, type SchemaOptions } from "@sinclair/typebox";

/** The same schema, described for one place it is used (validation is unchanged). */
export function describe<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

/** An exact decimal, as a JSON string (never a float). */
export const Decimal = Type.String({ pattern: "^-?[0-9]+(\\.[0-9]+)?$", description: "Exact decimal as a string", examples: ["1.3324612"] });
/** A USD amount: an exact decimal string, or null when the value is unknown (never zero for unknown). */
export const Usd = Type.Union([Decimal, Type.Null()], { description: "USD as an exact decimal string; null when unknown" });
export const NullableDecimal = Type.Union([Decimal, Type.Null()], { description: "Exact decimal as a string; null when it does not apply" });
export const Timestamp = Type.String({ format: "date-time", description: "ISO-8601 UTC", examples: ["2026-06-18T04:00:00.000Z"] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()], { description: "ISO-8601 UTC; null when unknown or not yet happened" });
export const NullableString = Type.Union([Type.String(), Type.Null()]);
export const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256, lowercase hex" });
/** A base58 Solana address; the 32-byte check happens in the handler so it can answer `invalid_owner`. */
export const Address = Type.String({ minLength: 1, maxLength: 64, description: "Base58 Solana address (32 bytes)", examples: ["7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"] });

/** Field descriptions used by many shapes, written once. */
export const OwnerField = describe(Type.String(), "The wallet (base58 owner address) this answer is about");
export const MintField = describe(Type.String(), "Token-2022 mint address of the instrument (base58)");
export const SymbolField = describe(NullableString, "Ticker of the instrument (e.g. NVDAx); null when no issuer feed names the mint");
export const EffectiveAtField = describe(Timestamp, "When the change took effect on chain: the activation time written to the mint");
export const EvidenceField = describe(Sha256, "SHA-256 of the stored canonical evidence payload; anyone can recompute it from the stored data (`ca-ledger verify` does)");

export const DatasetLabel = Type.Object(
  {
    kind: Type.Union([Type.Literal("mainnet"), Type.Literal("synthetic")], { description: "mainnet: live chain and issuer data; synthetic: the embedded demo" }),
    description: describe(NullableString, "Free text about the dataset (the demo says what it is built from); null for live data"),
  },
  { title: "DatasetLabel", description: "Which ledger this is: live mainnet data, or the synthetic demo", examples: [{ kind: "synthetic", description: "Embedded demo" }] },
);
export type DatasetLabel = Static<typeof DatasetLabel>;

export const NextOffset = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Offset of the next page; null on the last page" });
export const Total = Type.Integer({ minimum: 0, description: "Number of items in the whole list, across all pages" });

type PageProperties<K extends string, T extends TSchema> = { owner: typeof OwnerField; dataset: typeof DatasetLabel; total: typeof Total; nextOffset: typeof NextOffset } & { [P in K]: TArray<T> };

/** A page of a wallet's list, newest first: {owner, dataset, <items>, total, nextOffset}. */
export function pageOf<const K extends string, T extends TSchema>(itemsKey: K, item: T, options: { title: string; description: string }) {
  const items = Type.Array(item, { description: "This page of the list, newest first" });
  return Type.Object({ owner: OwnerField, dataset: DatasetLabel, [itemsKey]: items, total: Total, nextOffset: NextOffset } as PageProperties<K, T>, options);
}

/** Query of wallet-scoped reads. */
export const OwnerQuery = Type.Object({ owner: describe(Address, "The wallet to read (base58); it must be registered by this tenant") });
/** A calendar day (UTC), YYYY-MM-DD; whether it exists on the calendar is checked by the handler. */
export const day = (description: string) => Type.String({ pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description, examples: ["2026-01-31"] });
/** A calendar year (UTC): the date filter of the lists and exports, and the year report's year. */
export const Year = Type.Integer({ minimum: 1970, maximum: 9999, description: "A calendar year (UTC), by effectiveAt; lists and exports refuse it together with from or to", examples: [2026] });

/**
 * Date filters on `effectiveAt`: `from` and `to` (both days included), or `year`; either bound may
 * be left open. `year` with `from` or `to` is 400 invalid_request, and so is `from` after `to`.
 */
export const DateFilterProperties = {
  from: Type.Optional(day("First day included (YYYY-MM-DD, UTC), by effectiveAt; not with year")),
  to: Type.Optional(day("Last day included (YYYY-MM-DD, UTC), by effectiveAt; on or after from; not with year")),
  year: Type.Optional(Year),
};

/**
 * Query of paged wallet-scoped lists: limit 1–200 (default 50), offset ≥ 0 (default 0), and the
 * date filters; `total` and `nextOffset` count what the filter keeps.
 */
export const PagedOwnerQuery = Type.Object({
  owner: OwnerQuery.properties.owner,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: "Page size: at most this many items (1–200)" })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: "Items to skip from the start of the list (use the previous page's nextOffset)" })),
  ...DateFilterProperties,
});

/** A union of string literals that keeps its static type (a mapped array would widen to never). */
export function literals<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<LiteralTuple<T>> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<LiteralTuple<T>>;
}
type LiteralTuple<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> } & TLiteral<string>[];
