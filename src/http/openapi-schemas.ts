// The shared TypeBox schemas as OpenAPI 3.1 components. Every schema of schemas/ with a `title`
// is a named component (components.schemas[title]); where it is used, the document holds a $ref
// to it, so generators (openapi-typescript and the like) emit named types instead of inline ones.
import { Kind, type TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";

export type Json = Record<string, unknown>;
const prefix = "#/components/schemas/";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSchema = (v: unknown): v is TSchema => isObject(v) && Kind in v;

/** title → schema: the exports of schemas/ (and the error shapes of `errors`) that carry a title. */
export const namedSchemas: ReadonlyMap<string, TSchema> = (() => {
  const named = new Map<string, TSchema>();
  const add = (v: unknown) => {
    if (!isSchema(v) || typeof v.title !== "string") return;
    const seen = named.get(v.title);
    if (seen && seen !== v) throw new Error(`Two schemas are titled ${v.title}`);
    named.set(v.title, v);
  };
  for (const v of Object.values(S)) isSchema(v) ? add(v) : typeof v === "object" && v && Object.values(v).forEach(add);
  return named;
})();

export const refTo = (title: string): Json => ({ $ref: prefix + title });
export const titleOfRef = (ref: unknown): string | null => (typeof ref === "string" && ref.startsWith(prefix) ? ref.slice(prefix.length) : null);

/**
 * A schema as OpenAPI JSON. A titled sub-schema becomes a $ref (its name is added to `used`),
 * keeping a description of its own as a sibling; a union of literals becomes an `enum` that
 * keeps the union's description and default.
 */
export function toOpenApi(schema: TSchema, used: Set<string>, asComponent = false): Json {
  const title = schema.title;
  if (!asComponent && typeof title === "string") {
    const named = namedSchemas.get(title);
    if (!named) throw new Error(`Schema titled ${title} is not exported from schemas/`);
    used.add(title);
    return schema.description !== undefined && schema.description !== named.description ? { ...refTo(title), description: schema.description } : refTo(title);
  }
  const out: Json = {};
  const values = literalValues(schema);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "title" || (values && key === "anyOf")) continue;
    if (key === "properties" || key === "patternProperties") out[key] = mapValues(value as Record<string, TSchema>, (s) => toOpenApi(s, used));
    else if ((key === "items" || key === "additionalProperties" || key === "not") && isObject(value)) out[key] = toOpenApi(value as TSchema, used);
    else if (key === "anyOf" || key === "allOf" || key === "oneOf") out[key] = (value as TSchema[]).map((s) => toOpenApi(s, used));
    else out[key] = structuredClone(value);
  }
  if (values) Object.assign(out, values.every((v) => typeof v === "string") ? { type: "string", enum: values } : { enum: values });
  return out;
}

/** The components a set of names needs: those names and every component they refer to. */
export function componentsFor(names: Iterable<string>): Record<string, Json> {
  const used = new Set(names);
  const out: Record<string, Json> = {};
  for (let added = true; added; ) {
    added = false;
    for (const name of [...used].sort()) {
      if (out[name]) continue;
      out[name] = toOpenApi(namedSchemas.get(name)!, used, true);
      added = true;
    }
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k]!]),
  );
}

function literalValues(schema: TSchema): unknown[] | null {
  const anyOf = (schema as { anyOf?: unknown }).anyOf;
  if (!Array.isArray(anyOf) || !anyOf.every((s) => isObject(s) && "const" in s)) return null;
  return anyOf.map((s) => (s as { const: unknown }).const);
}

function mapValues<T, U>(o: Record<string, T>, f: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}
