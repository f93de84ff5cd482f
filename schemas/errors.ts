// Every error body is {"error": "<sentence>", "code": "<code>"} (docs/api.md#errors).
import { Type, type Static } from "@sinclair/typebox";
import { literals } from "./common.ts";

export const errorCodes = {
  invalid_request: 400,
  invalid_owner: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  missing_scope: 403,
  wallet_quota_exceeded: 403,
  wallet_not_registered: 404,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  demo_offline: 409,
  payload_too_large: 413,
  export_too_large: 422,
  rate_limited: 429,
  auth_locked_out: 429,
  internal_error: 500,
  unavailable: 503,
  // The dashboard's own answers (its session and its forwarding path, not the API's routes).
  session_required: 401,
  csrf_refused: 403,
} as const;
export type ErrorCode = keyof typeof errorCodes;

export function errorSchema(codes: ErrorCode[], description: string) {
  return Type.Object(
    {
      error: Type.String({ description: "A sentence saying what went wrong" }),
      code: literals(codes),
    },
    { description, examples: [{ error: exampleSentence(codes[0]!), code: codes[0] }] },
  );
}

function exampleSentence(code: ErrorCode): string {
  switch (code) {
    case "missing_scope": return "This key lacks the scope ledger:read.";
    case "wallet_not_registered": return "Wallet is not registered; request a sync with POST /v1/wallets/sync.";
    case "rate_limited": return "Rate limit of 120 requests per minute reached; retry after 12 seconds.";
    default: return `Error ${code}.`;
  }
}

export const ErrorBody = Type.Object({ error: Type.String(), code: Type.String() });
export type ErrorBody = Static<typeof ErrorBody>;

export const errors = {
  400: errorSchema(["invalid_request", "invalid_owner"], "A parameter or the body is invalid"),
  401: errorSchema(["missing_api_key", "invalid_api_key"], "No key, or an unknown, malformed or revoked key"),
  403: errorSchema(["missing_scope", "wallet_quota_exceeded"], "The key lacks the route's scope, or the tenant has no wallet left"),
  404: errorSchema(["wallet_not_registered", "not_found", "route_not_found"], "Not registered, or not found"),
  405: errorSchema(["method_not_allowed"], "Known path, wrong method"),
  409: errorSchema(["demo_offline"], "The offline demo cannot sync a wallet it has no recording of"),
  413: errorSchema(["payload_too_large"], "Body over 16 KiB"),
  422: errorSchema(["export_too_large"], "Export over 100,000 rows"),
  429: errorSchema(["rate_limited", "auth_locked_out"], "Too many requests for this key, or too many failed keys from this address"),
  500: errorSchema(["internal_error"], "Unexpected failure; the log has the details"),
  503: errorSchema(["unavailable"], "The database cannot be read"),
};
