// The query string against the route's declared query schema, before any handler runs
// (docs/api.md#query-parameters): a parameter the route does not declare is refused, and so is a
// parameter given twice unless the schema declares it a list (`owner` on the year report); an
// integer parameter is written in plain digits. Read from each route's declared query schema, so
// a route added or changed is covered without a table to keep in step.
import type { TSchema } from "@sinclair/typebox";

export interface QueryRules {
  /** Every parameter the route declares. */
  names: ReadonlySet<string>;
  /** Those declared as lists: they may be given more than once. */
  lists: ReadonlySet<string>;
  /** Those declared as integers: plain digits only. */
  integers: ReadonlySet<string>;
  /**
   * Those that take only certain words (a union of literals, or a list of them: `kind`), with the
   * words. A list's values may also be comma-separated (`kind=dividend,split`).
   */
  words: ReadonlyMap<string, readonly string[]>;
}

const noQuery: QueryRules = { names: new Set(), lists: new Set(), integers: new Set(), words: new Map() };

/** The rules of a route's query schema (none declared: no parameter at all). */
export function queryRules(schema: { properties?: Record<string, TSchema> } | undefined): QueryRules {
  if (!schema?.properties) return noQuery;
  const names = new Set<string>(),
    lists = new Set<string>(),
    integers = new Set<string>();
  const words = new Map<string, readonly string[]>();
  for (const [name, prop] of Object.entries(schema.properties)) {
    names.add(name);
    if (hasType(prop, "array")) lists.add(name);
    if (hasType(prop, "integer")) integers.add(name);
    const allowed = literalsOf((prop as { items?: TSchema }).items ?? prop);
    if (allowed) words.set(name, allowed);
  }
  return { names, lists, integers, words };
}

/** The words a union of string literals allows, or null for any other schema. */
function literalsOf(schema: TSchema): string[] | null {
  const branches = (schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (!branches?.length || !branches.every((b) => typeof b.const === "string")) return null;
  return branches.map((b) => b.const as string);
}

/** Whether a schema is of this JSON type, or a union with a branch of it (Elysia's integer is integer | numeric string). */
function hasType(schema: TSchema, type: string): boolean {
  const s = schema as { type?: unknown; anyOf?: TSchema[] };
  return s.type === type || (s.anyOf ?? []).some((b) => hasType(b, type));
}

/**
 * A query string's name/value pairs as `URLSearchParams` reads them (the form-urlencoded parser):
 * split on `&`, empty pieces dropped, each split at its first `=`. Text without `%`, `+` or a
 * character beyond ASCII decodes to itself, so it is split here, without building a
 * `URLSearchParams` (about a microsecond a request on the cheap routes); anything else is read by
 * `URLSearchParams` itself. `search` is a URL's `search`, with or without its `?`.
 */
export function queryEntries(search: string): Iterable<[string, string]> {
  const text = search.startsWith("?") ? search.slice(1) : search;
  // URLSearchParams drops one leading '?' of its own: given back, so that a second one is kept.
  if (NEEDS_DECODING.test(text)) return new URLSearchParams(`?${text}`);
  const entries: [string, string][] = [];
  for (const piece of text.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    entries.push(eq < 0 ? [piece, ""] : [piece.slice(0, eq), piece.slice(eq + 1)]);
  }
  return entries;
}
const NEEDS_DECODING = /[%+\u0080-\uffff]/;

/** The sentence refusing a query string (a URL's `search`), or null when the route takes it. */
export function queryRefusal(search: string, rules: QueryRules | undefined): string | null {
  const r = rules ?? noQuery;
  const seen = new Set<string>();
  for (const [name, value] of queryEntries(search)) {
    if (!r.names.has(name)) {
      return `Unknown query parameter ${shown(name)}: this route takes ${r.names.size ? [...r.names].join(", ") : "no query parameters"}.`;
    }
    if (seen.has(name) && !r.lists.has(name)) return `Invalid query parameter ${name}: given more than once; give it once.`;
    seen.add(name);
    // Number() would also take " 5", "0x10" or "1e2".
    if (r.integers.has(name) && !/^[0-9]{1,10}$/.test(value)) return `Invalid query parameter ${name}: expected a whole number written in digits.`;
    const words = r.words.get(name);
    const given = r.lists.has(name) ? value.split(",") : [value];
    if (words && given.some((w) => !words.includes(w))) return `Invalid query parameter ${name}: expected ${words.join(", ")}${r.lists.has(name) ? ", one or several" : ""}.`;
  }
  return null;
}

/** A parameter name as the sentence names it: bounded, and printable. */
function shown(name: string): string {
  if (name === "") return "(an empty name)";
  const clean = name.replace(/[^\x21-\x7e]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
