// The OpenAPI 3.1 document, built from the declared routes (routes/index.ts) and the TypeBox
// schemas of schemas/: every shape a named component instead of an inline one, every parameter
// described, and what the server does on every route said on each operation (no key on an open
// route; the refusals of onRequest: 400 for the query string, 413 for a body over the cap, 421
// for a Host it does not answer to).
import type { TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import { componentsFor, namedSchemas, toOpenApi, type Json } from "./openapi-schemas.ts";
import { responsesOf } from "./registry.ts";
import type { Route } from "./route.ts";

export function openapiDocument(routes: readonly Route[], version: string): Json {
  const used = new Set<string>();
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) (paths[openapiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(r, used);
  return {
    openapi: "3.1.2",
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
      { name: "agents", description: "The Model Context Protocol server: the reads above as tools for agents" },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API key as a bearer token (cal_ + 43 characters)" },
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "API key in the x-api-key header" },
      },
      schemas: componentsFor(used),
    },
  };
}

/** `/v1/wallets/:owner` as OpenAPI writes it: `/v1/wallets/{owner}`. */
export const openapiPath = (path: string): string => path.replace(/:([^/]+)/g, "{$1}");

/** The operation's id: its method and path in camel case, a parameter as `By<Name>` (`getV1WalletsByOwnerStatus`). */
export function operationId(route: Pick<Route, "method" | "path">): string {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const words = route.path
    .split("/")
    .filter(Boolean)
    .map((seg) =>
      seg.startsWith(":")
        ? `By${cap(seg.slice(1))}`
        : seg
            .split(/[^A-Za-z0-9]+/)
            .map(cap)
            .join(""),
    );
  return route.method.toLowerCase() + words.join("");
}

function operation(r: Route, used: Set<string>): Json {
  const parameters = [
    ...Object.entries(r.params?.properties ?? {}).map(([name, schema]) => parameter(name, "path", true, schema, used)),
    ...Object.entries(r.query?.properties ?? {}).map(([name, schema]) => parameter(name, "query", r.query!.required?.includes(name) ?? false, schema, used)),
  ];
  const responses: Record<string, Json> = {};
  for (const [status, schema] of Object.entries(responsesOf(r))) responses[status] = response(status, schema, used);
  // onRequest refuses, on every route: a Host it does not answer to (first of all), a query
  // parameter the route does not declare or a scalar one given twice, a body over the cap.
  for (const status of [400, 413, 421] as const) responses[status] ??= response(String(status), S.errors[status], used);
  return {
    tags: [r.tag],
    summary: r.summary,
    ...(r.scope !== null
      ? {
          description: `${r.description ? r.description + " " : ""}${r.scope === "key" ? "Requires a key (any scope)." : `Requires scope \`${r.scope}\`.`}`,
          security: [{ bearer: [] }, { apiKey: [] }],
        }
      : // A route with no security requirement needs no key: say so, rather than leave it unsaid.
        { ...(r.description ? { description: r.description } : {}), security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(r.body ? { requestBody: { required: true, description: r.body.description, content: { "application/json": { schema: toOpenApi(r.body, used) } } } } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    operationId: operationId(r),
  };
}

/** A parameter with its schema from schemas/ and, beside it, the schema's description. */
function parameter(name: string, where: "path" | "query", required: boolean, source: TSchema, used: Set<string>): Json {
  const { description, ...schema } = toOpenApi(source, used);
  return { name, in: where, required, schema, description };
}

/**
 * A response as the named component it is: its description, and its media type (a schema's own
 * `contentMediaType`, else text for a string, JSON for the rest). A 204 has no content by definition.
 */
function response(status: string, schema: TSchema, used: Set<string>): Json {
  if (status === "204") return { description: schema.description };
  const source = typeof schema.title === "string" ? namedSchemas.get(schema.title) : undefined;
  if (!source) throw new Error(`A response schema has no title naming a schema of schemas/ (${status}: ${String(schema.title)})`);
  const type = (source as { contentMediaType?: string }).contentMediaType ?? (source.type === "string" ? "text/plain" : "application/json");
  return { description: source.description, content: { [type]: { schema: toOpenApi(source, used) } } };
}
