// A route, declared once (docs/api.md#routes-and-scopes): its method, path, scope, parameters,
// responses, documentation and handler in one typed object, in the file of its resource
// (routes/<resource>.ts). Everything else is derived from the list in routes/index.ts: the
// Elysia registration, the auth matcher (which runs before parsing and validation), the query
// rules, the OpenAPI document, the metrics label and the client's path table (registry.ts).
//
// A handler knows nothing of HTTP: it gets the caller's principal and the validated query, path
// parameters and body, and the app's context; it returns the body of its success (checked
// against the route's response schema), text it serialised itself (a page spliced from stored
// JSON, a CSV), or withStatus(202 | 204, ...). So the same handler can answer for a principal
// without a request: a route declared with `tool` is also an MCP tool (src/mcp/route-tools.ts).
// The one exception is a route that speaks another protocol over HTTP (POST /mcp): it declares
// `takesRequest`, is given the Request and answers a Response.
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { DatasetLabel } from "../../schemas/common.ts";
import type { Config } from "../config.ts";
import type { Scope } from "../domain/scopes.ts";
import type { Ledger } from "../ledger/db.ts";
import type { DatabaseHealth } from "../ledger/health.ts";
import type { KeyPrincipal } from "../ledger/keys.ts";
import type { actionQueries } from "../ledger/queries/actions.ts";
import type { incomeEntries } from "../ledger/queries/income-report.ts";
import type { instrumentQueries } from "../ledger/queries/instruments.ts";
import type { journalQueries } from "../ledger/queries/journal.ts";
import type { portfolioQueries } from "../ledger/queries/portfolio.ts";
import type { EnqueueResult } from "../sync/queue.ts";
import type { exporter } from "./exports.ts";
import type { Metrics } from "./metrics.ts";

export type Method = "GET" | "POST" | "DELETE";

/** The OpenAPI tags (openapi.ts describes each). */
export type Tag = "ops" | "assets" | "wallets" | "ledger" | "v2" | "agents";

/** A route's own responses by status: its success and the errors it answers beyond every keyed route's. */
export type Responses = { [status: number]: TSchema };

/** What the handlers share: the ledger, its prepared reads and the server's settings, made once per app. */
export interface RouteContext {
  ledger: Ledger;
  config: Config;
  metrics: Metrics;
  health: DatabaseHealth;
  /** The ledger's label, read once: it is written once per data dir, before the server starts. */
  dataset: DatasetLabel;
  version: string;
  /** Set when serving the offline demo: the only wallets it has data for. */
  demoOwners: ReadonlySet<string> | null;
  registerWallet(tenantId: number, maxWallets: number, owner: string): Promise<EnqueueResult>;
  /** The tenant stops following the wallet (true when it did). */
  removeWallet(tenantId: number, owner: string): Promise<boolean>;
  /** This API's OpenAPI document (openapi.ts), built once from the declared routes. */
  openapiDocument(): Record<string, unknown>;
  /** Answers one POST /mcp (its body already parsed) for the key's principal (src/mcp/http.ts), with the declared routes as tools. */
  mcp(request: Request, principal: KeyPrincipal, body: unknown): Promise<Response>;
  queries: {
    actions: ReturnType<typeof actionQueries>;
    journal: ReturnType<typeof journalQueries>;
    portfolio: ReturnType<typeof portfolioQueries>;
    instruments: ReturnType<typeof instrumentQueries>;
    incomeEntries: ReturnType<typeof incomeEntries>;
    exportCsv: ReturnType<typeof exporter>;
  };
}

type Input<T> = [T] extends [TObject] ? Static<T> : undefined;

/**
 * Who may call a route: a key with this scope; `"key"`, any valid key whatever its scopes (the
 * route checks each operation's scope itself, as POST /mcp does per tool); null, anyone (no key).
 */
export type Access = Scope | "key" | null;

/** Who calls and with what: the key's principal (on an open route, null) and the validated input. */
export interface Caller<S extends Access = Access, Q = unknown, P = unknown, B = unknown> {
  principal: S extends null ? null : KeyPrincipal;
  query: Q;
  params: P;
  body: B;
  /** The HTTP request itself, given only to a route that declares `takesRequest`. */
  request?: Request;
}

/**
 * A route an agent can call as an MCP tool too (docs/mcp.md#tools): its input is the route's
 * path, query and body schemas as one object, its result the route's JSON.
 */
export interface ToolDeclaration<T = any> {
  /** snake_case, unique. */
  name: string;
  /** One sentence for people from the route's JSON; without it, a generic one (what it holds, how many). */
  summarize?: (body: T) => string;
  /** The tool reaches beyond the ledger (a sync reads the chain and the issuer). */
  openWorld?: boolean;
  /** Also readable as this MCP resource (`ca-ledger://…`): a route without parameters whose answer explains others (the taxonomy). */
  resource?: string;
}

/**
 * A 200 body the handler serialised itself, with its media type and any header of its own (a
 * CSV's file name): sent as it is, without Elysia's response-schema check (the tests check it).
 */
export class Serialized {
  constructor(
    readonly text: string,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A success other than 200, with its body (none for 204). */
export class WithStatus<C extends 202 | 204 = 202 | 204, T = unknown> {
  constructor(
    readonly code: C,
    readonly body: T,
  ) {}
}
export function withStatus<T>(code: 202, body: T): WithStatus<202, T>;
export function withStatus(code: 204): WithStatus<204, undefined>;
export function withStatus(code: 202 | 204, body?: unknown): WithStatus {
  return new WithStatus(code, body);
}

type Body<R, C extends number> = R extends { [K in C]: infer T extends TSchema } ? Static<T> : never;
/** What a handler answers: its 200 body, as a value or serialised, or a 202/204 it declares. */
export type Reply<R> = Body<R, 200> | Serialized | (202 extends keyof R ? WithStatus<202, Body<R, 202>> : never) | (204 extends keyof R ? WithStatus<204, undefined> : never);

export interface RouteDeclaration<S extends Access, Q extends TObject | undefined, P extends TObject | undefined, B extends TObject | undefined, R extends Responses> {
  method: Method;
  /** Elysia's template: `:name` for a path parameter. */
  path: string;
  /** The scope a key needs; `"key"` any key; null for a route that takes no key. Checked before validation (docs/api.md#check-order). */
  scope: S;
  /** Reads no ledger data (or reports on the ledger itself): still answered once the database file is gone. */
  databaseFree?: boolean;
  /**
   * Answered from the ledger alone, by reads: the key's row, the wallet's registration and the
   * route's rows are read in one pinned snapshot, from the key check to the answer (one shared
   * lock on SQLite; docs/api.md#one-snapshot-a-request). Only for a handler that writes nothing
   * and awaits nothing but the ledger's reads (no worker, no stream, no other service).
   */
  pinnedRead?: boolean;
  query?: Q;
  params?: P;
  body?: B;
  /** The route's success and its own errors; every keyed route also answers 401, 403, 429, 500 and 503. */
  response: R;
  tag: Tag;
  summary: string;
  description?: string;
  /** Also an MCP tool (a route with a scope only). */
  tool?: ToolDeclaration<Body<NoInfer<R>, 200> | Body<NoInfer<R>, 202>>;
  /**
   * Given the Request (caller.request; its body already read: the checked JSON is caller.body)
   * and may answer a Response as it is: a route that speaks another protocol over HTTP.
   */
  takesRequest?: boolean;
  handler(caller: Caller<S, Input<Q>, Input<P>, Input<B>>, app: RouteContext): Reply<NoInfer<R>> | Response | Promise<Reply<NoInfer<R>> | Response>;
}

/** A declared route, its types erased (what the registry works with). */
export interface Route {
  method: Method;
  path: string;
  scope: Access;
  databaseFree?: boolean;
  pinnedRead?: boolean;
  query?: TObject;
  params?: TObject;
  body?: TObject;
  response: Responses;
  tag: Tag;
  summary: string;
  description?: string;
  tool?: ToolDeclaration;
  takesRequest?: boolean;
  handler(caller: Caller, app: RouteContext): unknown;
}

/** Declares a route; the types tie the handler to the route's own schemas. */
export function route<const S extends Access, R extends Responses, Q extends TObject | undefined = undefined, P extends TObject | undefined = undefined, B extends TObject | undefined = undefined>(
  declaration: RouteDeclaration<S, Q, P, B, R>,
): Route {
  return declaration as unknown as Route;
}
