// The OpenAPI document's frame: info, servers, security schemes and tags. Paths, parameters
// and schemas come from the routes' TypeBox schemas through @elysiajs/openapi.
export function openapiDocumentation(version: string) {
  return {
    info: {
      title: "ca-ledger",
      version,
      description:
        "Read-only corporate actions ledger for tokenized stocks on Solana (Token-2022 Scaled UI Amount). " +
        "Every error body is {error, code}. Amounts are exact decimal strings; USD is null when unknown. " +
        "Keys go in `authorization: Bearer <key>` or `x-api-key`.",
    },
    tags: [
      { name: "ops", description: "Health, status and metrics" },
      { name: "assets", description: "Instruments and taxonomy" },
      { name: "wallets", description: "Registration and sync" },
      { name: "ledger", description: "Portfolio, income, journal, yield, exports (v1)" },
      { name: "v2", description: "Corporate actions, taxonomy and lineage (v2)" },
    ],
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
