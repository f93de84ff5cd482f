// Error responses: every body is {"error", "code"}; status follows docs/api.md#errors.
import { errorCodes, type ErrorCode } from "../../schemas/errors.ts";

export class ApiFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status(): number {
    return errorCodes[this.code];
  }
}

export function errorResponse(code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message, code }), {
    status: errorCodes[code],
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Names the failing parameter in a validation error, without echoing the value back. */
export function describeValidation(err: unknown, url?: URL): string {
  const e = err as { type?: string; value?: unknown; valueError?: { path?: string; message?: string } };
  const first = e.valueError;
  let where = e.type === "body" ? "body" : e.type === "params" ? "path" : e.type === "query" ? "query" : e.type === "headers" ? "header" : "request";
  let path = (first?.path ?? "").replace(/^\//, "").replace(/\//g, ".");
  // Elysia validates coerced query numbers one property at a time and loses the name: find the
  // query parameter that carried the refused value.
  if (!path && e.type === "property" && url) {
    const same = (v: string) => String(e.value) === v || (v.trim() !== "" && Number(v) === Number(e.value));
    for (const [k, v] of url.searchParams)
      if (same(v)) {
        path = k;
        where = "query";
        break;
      }
  }
  const name = path ? `${where} parameter ${path}` : where === "request" ? "request" : `${where}`;
  const message = (first?.message ?? "does not match the schema").replace(/\.$/, "");
  return `Invalid ${name}: ${message}.`;
}
