// The one source of request and response shapes: the routes, the OpenAPI document and the
// client all read these.
export * from "./common.ts";
export * from "./amounts.ts";
export * from "./errors.ts";
export * from "./v1/ops.ts";
export * from "./v1/assets.ts";
export * from "./v1/wallets.ts";
export * from "./v1/ledger.ts";
export * from "./v2/actions.ts";
export * from "./v2/taxonomy.ts";
export * from "./v2/lineage.ts";
export * from "./v2/reports.ts";
export * from "./v2/lots.ts";
export * from "./v2/calendar.ts";
export * from "./mcp.ts";
