// The OpenAPI document. @elysiajs/openapi generates the paths from the routes' TypeBox schemas;
// openapiDocumentation() gives the frame (info, servers, security schemes, tags, the document's
// own path) and finishDocument() turns the generated paths into what a tool can use: named
// components instead of inline shapes, every parameter described, and what the server does for
// every route (no key on open routes, 413 on any body over the cap) said on each operation.
import type { TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import { componentsFor, namedSchemas, toOpenApi, type Json } from "./openapi-schemas.ts";

export function openapiDocumentation(version: string) {
  return {
    info: {
      title: "ca-ledger",
      version,
      description:
        "Read-only corporate actions ledger for tokenized stocks on Solana (Token-2022 Scaled UI Amount). " +
        "Every error body is {error, code}. Amounts are exact decimal strings; USD is null when unknown. " +
        "Keys go in `authorization: Bearer <key>` or `x-api-key`.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      { name: "ops", description: "Health, this document, status and metrics" },
      { name: "assets", description: "Instruments and taxonomy" },
      { name: "wallets", description: "Registration and sync" },
      { name: "ledger", description: "Portfolio, income, journal, yield, exports (v1)" },
      { name: "v2", description: "Corporate actions, taxonomy and lineage (v2)" },
    ],
    // The document's own route is not generated (the plugin serves it): declared here.
    paths: {
      "/v1/openapi.json": {
        get: {
          tags: ["ops"],
          summary: "This OpenAPI 3.1 document (no key)",
          operationId: "getV1OpenapiJson",
          responses: { 200: { description: S.OpenApiDocument.description!, content: { "application/json": { schema: { title: S.OpenApiDocument.title } } } } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: "http" as const, scheme: "bearer", description: "API key as a bearer token (cal_ + 43 characters)" },
        apiKey: { type: "apiKey" as const, in: "header" as const, name: "x-api-key", description: "API key in the x-api-key header" },
      },
    },
  };
}

/** The `detail` of a keyed route: its security requirement, tag and summary. */
export function keyed(tag: string, summary: string, scope: string, description?: string) {
  return {
    tags: [tag],
    summary,
    description: `${description ? description + " " : ""}Requires scope \`${scope}\`.`,
    security: [{ bearer: [] }, { apiKey: [] }] as Record<string, string[]>[],
  };
}

/** A route's request body, as the app registered it. */
export interface RouteBody { method: string; path: string; body: TSchema }

type Operation = { parameters?: Json[]; responses?: Record<string, Json>; requestBody?: Json; security?: unknown[] };

/** The finished document: a new object; the generated one is left as it is. */
export function finishDocument(generated: Json, bodies: RouteBody[]): Json {
  const doc = structuredClone(generated) as Json & { paths: Record<string, Record<string, Operation>>; components?: Json };
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op.parameters) op.parameters = op.parameters.map(parameter);
      const responses: Record<string, Json> = {};
      // A 204 has no content by definition (its route declares S.NoContent).
      for (const [status, res] of Object.entries(op.responses ?? {})) responses[status] = status === "204" ? { description: S.NoContent.description } : response(res, used);
      // onRequest refuses, on every route: a Host it does not answer to (first of all), a query
      // parameter the route does not declare or a scalar one given twice, a body over the cap.
      responses["400"] ??= response({ content: { "application/json": { schema: S.errors[400] } } }, used);
      responses["413"] ??= response({ content: { "application/json": { schema: S.errors[413] } } }, used);
      responses["421"] ??= response({ content: { "application/json": { schema: S.errors[421] } } }, used);
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
      const body = bodies.find((b) => b.method.toLowerCase() === method && b.path.replace(/:([^/]+)/g, "{$1}") === path)?.body;
      if (body) op.requestBody = { required: true, description: body.description, content: { "application/json": { schema: toOpenApi(body, used) } } };
      // A route with no security requirement needs no key: say so, rather than leave it unsaid.
      op.security ??= [];
    }
  }
  doc.components = { ...doc.components, schemas: componentsFor(used) };
  return doc;
}

/** A generated response, its schema replaced by the named component it was built from. */
function response(res: Json, used: Set<string>): Json {
  const [mediaType, media] = Object.entries((res.content ?? {}) as Record<string, { schema?: { title?: unknown } }>)[0] ?? [];
  const title = media?.schema?.title;
  const source = typeof title === "string" ? namedSchemas.get(title) : undefined;
  if (!source) throw new Error(`A response schema has no title naming a schema of schemas/ (${mediaType}: ${String(title)})`);
  const type = (source as { contentMediaType?: string }).contentMediaType ?? mediaType!;
  return { description: source.description ?? res.description, content: { [type]: { schema: toOpenApi(source, used) } } };
}

/**
 * Every query and path parameter of schemas/, by name and JSON type: one schema per name, except
 * that a name may also be a list (`owner` repeated on the year report; one wallet elsewhere).
 */
const parameterSchemas: ReadonlyMap<string, TSchema> = (() => {
  const byName = new Map<string, TSchema>();
  for (const [exportName, value] of Object.entries(S)) {
    if (!/(Query|Params)$/.test(exportName)) continue;
    for (const [name, schema] of Object.entries((value as { properties: Record<string, TSchema> }).properties)) {
      const key = `${name}:${jsonType(schema as { type?: unknown })}`;
      const seen = byName.get(key);
      if (seen && JSON.stringify(seen) !== JSON.stringify(schema)) throw new Error(`Parameter ${name} has two schemas in schemas/`);
      byName.set(key, schema);
    }
  }
  return byName;
})();

/** The JSON type a parameter takes (a union of literals is its members' type; Elysia's integer adds a string branch). */
function jsonType(schema: { type?: unknown; anyOf?: { type?: unknown }[] }): string {
  if (typeof schema.type === "string") return schema.type;
  const types = (schema.anyOf ?? []).map((b) => b.type).filter((t): t is string => typeof t === "string" && t !== "null");
  return types.find((t) => t !== "string") ?? types[0] ?? "string";
}

/**
 * A parameter with its schema from schemas/ and the description on the parameter. This also drops
 * Elysia's string-coercion branch of the integer parameters (a `format: integer` string with a
 * made-up `default: 0`): on the wire a query value is always text, and OpenAPI says so by style.
 */
function parameter(p: Json): Json {
  const source = parameterSchemas.get(`${p.name as string}:${jsonType((p.schema as object | undefined) ?? {})}`);
  if (!source) throw new Error(`Parameter ${String(p.name)} is not declared in schemas/`);
  const { description, ...schema } = toOpenApi(source, new Set());
  return { ...p, description, schema };
}
