// Query strings against each route's declared parameters, over real HTTP, for every operation the
// OpenAPI document lists (so a route added later is covered without editing this file): a
// parameter a route does not declare is 400 invalid_request naming it, and so is a scalar
// parameter given twice (it used to take the last value silently); a list parameter (`owner` on
// the year report) may repeat.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { routes } from "../../src/http/routes/index.ts";
import { address, allScopes, call, registerWallet, startTestServer, type TestServer } from "../harness/index.ts";

interface Parameter {
  name: string;
  in: "query" | "path";
  required?: boolean;
  schema: Schema;
}
interface Schema {
  type?: string;
  enum?: unknown[];
  examples?: unknown[];
  minimum?: number;
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  $ref?: string;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
}

let srv: TestServer;
let key: string;
let operations: Operation[];
let components: Record<string, Schema> = {};
const wallet = address("query-params:wallet");

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key([...allScopes])).key;
  await registerWallet(srv.db, "acme", wallet, "complete");
  const doc = (await call(srv.url, "/v1/openapi.json")).body as { paths: Record<string, Record<string, { parameters?: Parameter[] }>>; components?: { schemas?: Record<string, Schema> } };
  components = doc.components?.schemas ?? {};
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, parameters: op.parameters ?? [] })));
});
afterAll(async () => {
  await srv?.close();
});

/** A valid value for a parameter, from its schema (and the wallet for addresses). */
function valueFor(p: Parameter, schema: Schema = p.schema): string {
  if (p.name === "owner" || p.name === "mint") return wallet;
  if (p.name === "currency") return "EUR";
  if (schema.$ref) return valueFor(p, components[schema.$ref.split("/").pop()!]!);
  if (schema.items) return valueFor(p, schema.items);
  const v = schema.enum?.[0] ?? schema.anyOf?.find((b) => b.const !== undefined)?.const ?? schema.examples?.[0] ?? schema.minimum ?? "x";
  return String(v);
}

/** The operation's path with its path parameters filled, and its required query parameters. */
function baseline(op: Operation): { path: string; query: [string, string][] } {
  let path = op.path;
  for (const p of op.parameters.filter((x) => x.in === "path")) path = path.replace(`{${p.name}}`, valueFor(p));
  return { path, query: op.parameters.filter((p) => p.in === "query" && p.required).map((p) => [p.name, valueFor(p)]) };
}

/** A body each POST takes: a wallet to sync, or a message of the Model Context Protocol. */
const postBody = (op: Operation) => (op.path === "/mcp" ? { jsonrpc: "2.0", id: 1, method: "ping" } : { owner: wallet });

/** One request; a DELETE that removed the wallet is undone at once, so every later request finds it registered. */
async function send(op: Operation, path: string, query: [string, string][]) {
  const res = await call(srv.url, `${path}${query.length ? "?" + new URLSearchParams(query) : ""}`, {
    key,
    method: op.method,
    body: op.method === "POST" ? postBody(op) : undefined,
    headers: { accept: "application/json, text/event-stream" },
  });
  if (op.method === "DELETE") await registerWallet(srv.db, "acme", wallet, "complete");
  return res;
}

describe("query parameters", () => {
  test("the document lists every declared route", () => {
    const listed = new Set(operations.map((o) => `${o.method} ${o.path.replace(/\{([a-z]+)\}/g, ":$1")}`));
    for (const r of routes) expect({ route: `${r.method} ${r.path}`, listed: listed.has(`${r.method} ${r.path}`) }).toEqual({ route: `${r.method} ${r.path}`, listed: true });
  });

  test("every route refuses a parameter it does not declare, naming it, and answers without it", async () => {
    expect(operations.length).toBeGreaterThanOrEqual(routes.length);
    for (const op of operations) {
      const { path, query } = baseline(op);
      const plain = await send(op, path, query);
      expect({ op: `${op.method} ${op.path}`, status: plain.status }).not.toEqual({ op: `${op.method} ${op.path}`, status: 400 });
      const unknown = await send(op, path, [...query, ["zzz", "1"]]);
      expect({ op: `${op.method} ${op.path}`, status: unknown.status, code: unknown.body?.code, names: String(unknown.body?.error).includes("zzz") }).toEqual({
        op: `${op.method} ${op.path}`,
        status: 400,
        code: "invalid_request",
        names: true,
      });
    }
  });

  test("every scalar parameter given twice is refused, naming it; a list parameter may repeat", async () => {
    let scalars = 0,
      lists = 0;
    for (const op of operations) {
      const { path, query } = baseline(op);
      for (const p of op.parameters.filter((x) => x.in === "query")) {
        const rest = query.filter(([n]) => n !== p.name);
        const once = await send(op, path, [...rest, [p.name, valueFor(p)]]);
        const twice = await send(op, path, [...rest, [p.name, valueFor(p)], [p.name, valueFor(p)]]);
        const at = `${op.method} ${op.path} ${p.name}`;
        expect({ at, once: once.status === 400 }).toEqual({ at, once: false });
        if (p.schema.type === "array") {
          lists++;
          expect({ at, status: twice.status }).toEqual({ at, status: once.status });
        } else {
          scalars++;
          expect({ at, status: twice.status, code: twice.body?.code, error: twice.body?.error }).toEqual({
            at,
            status: 400,
            code: "invalid_request",
            error: `Invalid query parameter ${p.name}: given more than once; give it once.`,
          });
        }
      }
    }
    expect(scalars).toBeGreaterThan(20);
    expect(lists).toBeGreaterThanOrEqual(1);
  });

  test("the issue's cases: an unknown parameter on the currencies, two limits, two years", async () => {
    const currencies = await call(srv.url, "/v2/reports/currencies?x=1", { key });
    expect(currencies.body).toEqual({ code: "invalid_request", error: "Unknown query parameter x: this route takes no query parameters." });
    const limits = await call(srv.url, `/v1/income?owner=${wallet}&limit=5&limit=7`, { key });
    expect(limits.body.error).toBe("Invalid query parameter limit: given more than once; give it once.");
    const income = await call(srv.url, `/v1/income?owner=${wallet}&zzz=1`, { key });
    expect(income.body.error).toBe("Unknown query parameter zzz: this route takes owner, limit, offset, from, to, year, kind.");
    const years = await call(srv.url, "/v2/reports/income?year=2025&year=2026", { key });
    expect(years.body.code).toBe("invalid_request");
    const owners = await call(srv.url, `/v2/reports/income?year=2025&owner=${wallet}&owner=${wallet}`, { key });
    expect({ status: owners.status, owners: owners.body.owners }).toEqual({ status: 200, owners: [wallet] });
  });

  test("the OpenAPI document lists the 400 (and the Host refusal, 421) on every operation", async () => {
    const doc = (await call(srv.url, "/v1/openapi.json")).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const at = `${method} ${path}`;
        expect({ at, statuses: ["400", "421"].filter((s) => s in op.responses) }).toEqual({ at, statuses: ["400", "421"] });
      }
    }
  });

  test("the refusal comes after the key's checks, like every validation", async () => {
    const missing = await call(srv.url, "/v2/reports/currencies?x=1&x=2");
    expect(missing.body.code).toBe("missing_api_key");
    const unscoped = await call(srv.url, "/v2/reports/currencies?x=1", { key: (await srv.key(["assets:read"])).key });
    expect(unscoped.body.code).toBe("missing_scope");
  });
});
