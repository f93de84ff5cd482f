// Error responses: every body is {"error", "code"}; status follows decisions §4.
import { errorCodes, type ErrorCode } from "../../schemas/errors.ts";

export class ApiFailure extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly headers: Record<string, string> = {}) { super(message); }
  get status(): number { return errorCodes[this.code]; }
}

export function errorResponse(code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message, code }), {
    status: errorCodes[code],
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Names the failing parameter in a validation error, without echoing the value back. */
export function describeValidation(err: unknown): string {
  const e = err as { type?: string; valueError?: { path?: string; message?: string }; all?: { path?: string; message?: string }[] };
  const first = e.valueError ?? e.all?.[0];
  const where = e.type === "body" ? "body" : e.type === "params" ? "path" : e.type === "query" ? "query" : e.type === "headers" ? "header" : "request";
  const path = (first?.path ?? "").replace(/^\//, "").replace(/\//g, ".");
  const name = path ? `${where} parameter ${path}` : `the ${where}`;
  return `Invalid ${name}: ${first?.message ?? "does not match the schema"}.`;
}
