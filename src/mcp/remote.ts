// A tool's call made against a running server (`ca-ledger mcp --url`): the route's own HTTP
// request with the key, its JSON or its error body passed on unchanged (docs/mcp.md#over-stdio).
// Which route a tool is comes from the route's declaration; this only needs its method and path.
import { errorCodes, type ErrorCode } from "../../schemas/errors.ts";
import { describeUrl } from "../describe-url.ts";
import type { ToolOutcome } from "./server.ts";

export interface RemoteTarget {
  /** The server's base URL, e.g. `http://127.0.0.1:4600`. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

export interface RouteRef {
  method: "GET" | "POST" | "DELETE";
  /** Elysia's template: `:name` segments are path parameters, e.g. `/v2/actions/:id`. */
  path: string;
}

/**
 * Runs the route with `args`: path parameters fill the template, the rest go in the query (a
 * list as the parameter repeated) or, for POST, in the JSON body.
 */
export async function callRoute(target: RemoteTarget, route: RouteRef, args: Record<string, unknown>): Promise<ToolOutcome> {
  const rest = { ...args };
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value ?? ""));
  });
  const url = new URL(path, target.baseUrl.endsWith("/") ? target.baseUrl : `${target.baseUrl}/`);
  const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}`, accept: "application/json" };
  let body: string | undefined;
  if (route.method === "POST") {
    body = JSON.stringify(rest);
    headers["content-type"] = "application/json";
  } else {
    for (const [name, value] of Object.entries(rest)) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) url.searchParams.append(name, String(v));
    }
  }
  let res: Response;
  try {
    res = await (target.fetch ?? fetch)(url, { method: route.method, headers, body });
  } catch (error) {
    return failed("unavailable", `The server at ${describeUrl(target.baseUrl)} did not answer: ${(error as Error).message ?? String(error)}`);
  }
  const text = await res.text();
  if (res.ok) {
    try {
      return { json: JSON.parse(text), text };
    } catch {
      return failed("internal_error", `The server at ${describeUrl(target.baseUrl)} answered ${res.status} with a body that is not JSON.`);
    }
  }
  const refusal = errorBody(text);
  if (refusal) return { error: { status: res.status, code: refusal.code, message: refusal.error } };
  return failed(res.status >= 500 ? "unavailable" : "internal_error", `The server at ${describeUrl(target.baseUrl)} answered ${res.status} without an error body.`);
}

function failed(code: ErrorCode, message: string): ToolOutcome {
  return { error: { status: errorCodes[code], code, message } };
}

/** The API's error body `{"error","code"}` with a code it documents, or null. */
function errorBody(text: string): { error: string; code: ErrorCode } | null {
  try {
    const b = JSON.parse(text) as { error?: unknown; code?: unknown };
    return typeof b.error === "string" && typeof b.code === "string" && b.code in errorCodes ? { error: b.error, code: b.code as ErrorCode } : null;
  } catch {
    return null;
  }
}
