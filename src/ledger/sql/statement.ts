// The ledger's statements, written once for both engines. A statement is defined once, when its
// module loads, by a tagged template whose holes are named parameters or SQL fragments; it is
// rendered then for each engine, with each engine's placeholders (SQLite's `?1`, PostgreSQL's
// `$1`) and parameter order, and run by the port (port.ts) with an object of values:
//
//   const byOwner = query<{ owner: string }, { id: string }>((p) => sql`SELECT id FROM actions WHERE owner = ${p.owner}`);
//   await db.all(byOwner, { owner });
//
// Nothing is rewritten afterwards. The types keep values and SQL apart: a hole takes only a
// parameter (`p.owner`) or a fragment built by the helpers below (a list, a JSON path, a quoted
// identifier, a row lock, a spelling per engine), never a string, so neither a value nor an
// identifier can become the other by accident; a list parameter fits only `inList`/`jsonEach`.
// Every statement made by `query` is registered, and `statements` names it by its group, so a
// test prepares each one on both engines (test/ledger/statements.test.ts). See docs/sql.md.

/** The engines a statement is rendered for. */
export type Dialect = "sqlite" | "postgres";

/** What a bound value may be: booleans are stored as 0/1 integers in both engines. */
export type SqlValue = string | number | bigint | null;

/** A value a parameter may take: booleans are bound as 0/1 (both engines store flags so). */
export type SqlScalar = string | number | bigint | boolean | null;

/** A named parameter of a statement; `T` is what it holds (a scalar, or a list for the JSON helpers). */
export class Param<T> {
  /** Phantom: a `Param<string[]>` is not a `Param<string>`. */
  declare readonly held: T;
  constructor(readonly name: string) {}
}

/** A parameter bound as the JSON text of its value (a list the statement reads with json_each). */
class JsonParam {
  constructor(readonly param: Param<unknown>) {}
}

/** Text that differs between the engines. */
class PerEngine {
  constructor(
    readonly sqlite: SqlFragment,
    readonly postgres: SqlFragment,
  ) {}
}

type Part = string | Param<unknown> | JsonParam | PerEngine;

/** A piece of SQL: template text, parameters and fragments, not yet rendered for an engine. */
export class SqlFragment {
  constructor(readonly parts: readonly Part[]) {}
}

/** What a hole of `sql` accepts: a scalar parameter or a fragment (never a bare value). */
export type Hole = SqlFragment | Param<SqlScalar>;

/** The tag: template text is SQL, each hole a parameter or a fragment. */
export function sql(strings: TemplateStringsArray, ...holes: Hole[]): SqlFragment {
  const parts: Part[] = [];
  strings.forEach((text, i) => {
    if (text) parts.push(text);
    if (i >= holes.length) return;
    const hole = holes[i];
    if (hole instanceof SqlFragment) parts.push(...hole.parts);
    else if (hole instanceof Param) parts.push(hole);
    else throw new TypeError(`an SQL hole holds a parameter or a fragment, not ${typeof hole} ${JSON.stringify(hole)}`);
  });
  return new SqlFragment(parts);
}

// ---- fragments --------------------------------------------------------------------------

/** Text spelled differently per engine (what has no common spelling). */
export const byEngine = (spelled: Record<Dialect, SqlFragment>): SqlFragment => new SqlFragment([new PerEngine(spelled.sqlite, spelled.postgres)]);

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A table or column name, quoted; only plain lower-case names are accepted. */
export function ident(name: string): SqlFragment {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`);
  return new SqlFragment([`"${name}"`]);
}

/** Fragments joined by a separator (column lists, conditions). */
export function join(fragments: readonly SqlFragment[], separator: ", " | " AND " | " OR " = ", "): SqlFragment {
  return new SqlFragment(fragments.flatMap((f, i) => (i ? [separator, ...f.parts] : f.parts)));
}

/** A parameter bound as the JSON text of its value (a list or a record). */
export const asJson = (value: Param<readonly unknown[]>): SqlFragment => new SqlFragment([new JsonParam(value)]);

/**
 * The elements of a list parameter as rows of one column, `value`: SQLite's `json_each`,
 * PostgreSQL's `jsonb_array_elements_text`. The list travels as one JSON text parameter, so a
 * statement takes a list of any length (no limit on variables, one prepared statement).
 */
export function jsonEach(list: Param<readonly unknown[]>): SqlFragment {
  return byEngine({
    sqlite: sql`json_each(${asJson(list)})`,
    // Cast to text first: Bun's client would otherwise encode the string as a JSON string when
    // PostgreSQL infers the parameter's type from the cast.
    postgres: sql`jsonb_array_elements_text(CAST(CAST(${asJson(list)} AS TEXT) AS jsonb))`,
  });
}

/** `IN ${inList(p.xs)}`: one of the list's elements (see jsonEach). */
export const inList = (list: Param<readonly string[]>): SqlFragment => sql`(SELECT value FROM ${jsonEach(list)})`;

const JSON_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/**
 * A member of JSON text, by a path of keys (`"matched.version"`), as text: the element's text,
 * an object as JSON, null for a JSON null or a missing key. SQLite's `json_extract`; on
 * PostgreSQL `#>>` on the text read as `json` (which keeps its bytes).
 */
export function jsonText(json: SqlFragment, path: string): SqlFragment {
  if (!JSON_PATH.test(path)) throw new Error(`not a JSON path of keys: ${JSON.stringify(path)}`);
  return byEngine({
    sqlite: new SqlFragment(["json_extract(", ...json.parts, `, '$.${path}')`]),
    postgres: new SqlFragment(["(CAST(", ...json.parts, ` AS json) #>> '{${path.split(".").join(",")}}')`]),
  });
}

/**
 * The row lock a queue claim takes on PostgreSQL: the rows this transaction selected are its own
 * until it ends; with `skipLocked` a claim running at the same time in another server skips them
 * instead of waiting. SQLite has one writer at a time and no row locks (its claim transaction is
 * IMMEDIATE), so the clause is empty there.
 */
export function forUpdate(opts: { of?: string; skipLocked?: boolean } = {}): SqlFragment {
  if (opts.of !== undefined && !IDENTIFIER.test(opts.of)) throw new Error(`not a plain identifier: ${JSON.stringify(opts.of)}`);
  return byEngine({ sqlite: sql``, postgres: new SqlFragment([` FOR UPDATE${opts.of ? ` OF ${opts.of}` : ""}${opts.skipLocked ? " SKIP LOCKED" : ""}`]) });
}

// ---- statements -------------------------------------------------------------------------

/** A statement as one engine runs it: its text and, per placeholder, the parameter bound there. */
export interface Rendered {
  readonly text: string;
  readonly names: readonly string[];
  /** Per placeholder: bound as the JSON text of the value. */
  readonly json: readonly boolean[];
}

/** A statement with parameters `P` whose rows are `R` (for `values`, `R` is the tuple of a row). */
export interface Query<P = unknown, R = unknown> {
  /** `group.key`, given by `statements` (unnamed until then). */
  name: string;
  /** The engines it runs on: both, but for the few reads of one engine's own state. */
  readonly engines: readonly Dialect[];
  /** A migration data step's write to tables as they stood then: the migration, per engine (see QueryOptions). */
  readonly writtenFor?: Readonly<Record<Dialect, string>>;
  /** The text and parameters per engine (an empty text for an engine it does not run on). */
  readonly sqlite: Rendered;
  readonly postgres: Rendered;
  /** Phantom, for inference. */
  readonly types?: { params: P; row: R };
}

/** The parameters a statement's template sees, one per key of `P`. */
export type Params<P> = { readonly [K in keyof P]-?: Param<P[K]> };

const registry: Query[] = [];

const parameters = new Proxy({}, { get: (_, name) => (typeof name === "string" ? new Param(name) : undefined) });

export interface QueryOptions {
  /** Only for reads of one engine's own state (a PRAGMA); by default a statement runs on both. */
  engines?: readonly Dialect[];
  /**
   * For a migration's data step, which runs on the tables as that migration left them, not as
   * they are now: the migration's tag per engine. The tests prepare it on a ledger migrated up to
   * there (the statement would not prepare on today's tables, which a later migration changed).
   */
  writtenFor?: Readonly<Record<Dialect, string>>;
}

/** A statement, rendered for both engines now, and registered (see `statements`). */
export function query<P extends object = Record<never, never>, R = unknown>(build: (p: Params<P>) => SqlFragment, opts: QueryOptions = {}): Query<P, R> {
  const q = adHocQuery<P, R>(build, opts);
  registry.push(q as Query);
  return q;
}

/**
 * A statement that is not registered: for tests and one-off scripts, which build statements as
 * they go. The ledger defines its statements once, with `query`.
 */
export function adHocQuery<P extends object = Record<never, never>, R = unknown>(build: (p: Params<P>) => SqlFragment, opts: QueryOptions = {}): Query<P, R> {
  const fragment = build(parameters as Params<P>);
  const engines = opts.engines ?? (["sqlite", "postgres"] as const);
  const rendered = (dialect: Dialect) => (engines.includes(dialect) ? render(fragment, dialect) : { text: "", names: [], json: [] });
  return { name: "", engines, ...(opts.writtenFor ? { writtenFor: opts.writtenFor } : {}), sqlite: rendered("sqlite"), postgres: rendered("postgres") };
}

/** A statement's text for an engine, or an error naming it when it does not run there. */
export function textFor(q: Query, dialect: Dialect): string {
  const text = q[dialect].text;
  if (!text) throw new Error(`statement ${q.name || "(ad hoc)"} does not run on ${dialect}`);
  return text;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any statement, whatever its parameters and rows
type AnyQuery = Query<any, any>;
type Group = { [key: string]: AnyQuery | Group };

/** Names a table's statements `group.key` (nested groups `group.key.key`); returns them as given. */
export function statements<T extends Group>(group: string, queries: T): T {
  for (const [key, value] of Object.entries(queries)) {
    if (isQuery(value)) value.name = `${group}.${key}`;
    else statements(`${group}.${key}`, value);
  }
  return queries;
}

const isQuery = (v: AnyQuery | Group): v is AnyQuery => typeof (v as Query).sqlite?.text === "string";

/** Every statement `query` has made so far (those of the modules loaded). */
export const registeredStatements = (): readonly Query[] => registry;

function render(fragment: SqlFragment, dialect: Dialect): Rendered {
  const names: string[] = [];
  const json: boolean[] = [];
  const index = new Map<string, number>();
  const placeholder = (param: Param<unknown>, asJson: boolean): string => {
    let i = index.get(param.name);
    if (i === undefined) {
      i = names.push(param.name) - 1;
      json.push(asJson);
      index.set(param.name, i);
    } else if (json[i] !== asJson) {
      throw new Error(`parameter ${param.name} is used both as a list and as a value`);
    }
    return dialect === "sqlite" ? `?${i + 1}` : `$${i + 1}`;
  };
  const text = (parts: readonly Part[]): string =>
    parts
      .map((part) => {
        if (typeof part === "string") return part;
        if (part instanceof Param) return placeholder(part, false);
        if (part instanceof JsonParam) return placeholder(part.param, true);
        return text(part[dialect].parts);
      })
      .join("");
  return { text: text(fragment.parts), names, json };
}

/** The values for a rendered statement's placeholders, in order. */
export function bind(rendered: Rendered, params: unknown): SqlValue[] {
  const values: SqlValue[] = new Array(rendered.names.length);
  for (let i = 0; i < values.length; i++) {
    const v = (params as Record<string, unknown> | undefined)?.[rendered.names[i]!];
    if (v === undefined) throw new Error(`no value for parameter ${rendered.names[i]} of ${JSON.stringify(rendered.text.slice(0, 80))}`);
    values[i] = rendered.json[i] ? JSON.stringify(v) : typeof v === "boolean" ? (v ? 1 : 0) : (v as SqlValue);
  }
  return values;
}
