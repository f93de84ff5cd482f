// Every error body is {"error": "<sentence>", "code": "<code>"} (docs/api.md#errors); each status
// has its own named shape listing the codes it can carry (Error400, Error401, ...).
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
  host_not_allowed: 421,
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

const errorSentence = Type.String({ description: "A sentence saying what went wrong (it names the parameter or scope at fault, never echoes a value)" });

export function errorSchema(status: number, codes: ErrorCode[], description: string) {
  return Type.Object(
    {
      error: errorSentence,
      code: literals(codes, { description: "Machine-readable code; branch on this, not on the sentence" }),
    },
    { title: `Error${status}`, description, examples: [{ error: exampleSentence(codes[0]!), code: codes[0] }] },
  );
}

function exampleSentence(code: ErrorCode): string {
  switch (code) {
    case "missing_scope":
      return "This key lacks the scope wallets:sync. An operator makes a key with it: ca-ledger keys create <name> --tenant acme --scopes assets:read,ledger:read,wallets:sync";
    case "wallet_not_registered":
      return "Wallet is not registered; request a sync with POST /v1/wallets/sync.";
    case "rate_limited":
      return "Rate limit of 120 requests per minute reached; retry after 12 seconds.";
    default:
      return `Error ${code}.`;
  }
}

export const ErrorBody = Type.Object(
  { error: errorSentence, code: Type.String({ description: "Machine-readable code (see the README's list)" }) },
  { title: "ErrorBody", description: "Every error body: a sentence and a code" },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const errors = {
  400: errorSchema(400, ["invalid_request", "invalid_owner"], "A parameter or the body is invalid"),
  401: errorSchema(401, ["missing_api_key", "invalid_api_key"], "No key, or an unknown, malformed or revoked key"),
  403: errorSchema(403, ["missing_scope", "wallet_quota_exceeded"], "The key lacks the route's scope, or the tenant has no wallet left"),
  404: errorSchema(404, ["wallet_not_registered", "not_found", "route_not_found"], "Not registered, or not found"),
  405: errorSchema(405, ["method_not_allowed"], "Known path, wrong method"),
  409: errorSchema(409, ["demo_offline"], "The offline demo cannot sync a wallet it has no recording of"),
  413: errorSchema(413, ["payload_too_large"], "Body over 16 KiB"),
  421: errorSchema(421, ["host_not_allowed"], "The Host header names no host this server answers to (an IP address, localhost or a name in ALLOWED_HOSTS)"),
  422: errorSchema(422, ["export_too_large"], "Export over 100,000 rows"),
  429: errorSchema(429, ["rate_limited", "auth_locked_out"], "Too many requests for this key, or too many failed keys from this address"),
  500: errorSchema(500, ["internal_error"], "Unexpected failure; the log has the details"),
  503: errorSchema(503, ["unavailable"], "The database cannot be read"),
};
