// The OpenAPI document as served: valid (swagger-parser), and listing exactly the routes of
// src/http/routes/ with methods, parameters, security and error responses. And the
// Prometheus text of /v1/ops/metrics: promtool when installed, our own format checks always.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { spawnSync } from "node:child_process";
import { routes } from "../../src/http/routes/index.ts";
import { version } from "../../src/version.ts";
import { testEngine } from "../support/engine.ts";
import { address, allScopes, call, randomAddress, registerWallet, seedWallet, startTestServer, type TestServer } from "../harness/index.ts";

let srv: TestServer;
let doc: any;
/** The document with every $ref replaced by what it names (the shapes are named components). */
let deref: any;
const owner = address("openapi:owner");

beforeAll(async () => {
  srv = await startTestServer();
  const a = await call(srv.url, "/v1/openapi.json");
  expect(a.status).toBe(200);
  doc = a.body;
  deref = await SwaggerParser.dereference(structuredClone(doc));
});
afterAll(async () => {
  await srv?.close();
});

const toOpenApiPath = (template: string) => template.replace(/:([a-z]+)/g, "{$1}");
const methods = ["get", "post", "put", "patch", "delete", "head", "options", "trace"];

/** Query parameters each route takes (docs/api.md#wallet-scoped-reads, docs/api.md#paging, docs/api.md#kind-filter). */
const dates = [
  { name: "from", required: false },
  { name: "to", required: false },
  { name: "year", required: false },
];
const paged = [{ name: "owner", required: true }, { name: "limit", required: false }, { name: "offset", required: false }, ...dates];
const expectedQuery: Record<string, { name: string; required: boolean }[]> = {
  "/v1/portfolio": [{ name: "owner", required: true }],
  "/v1/income": [...paged, { name: "kind", required: false }],
  "/v1/income/:id": [{ name: "owner", required: true }],
  "/v1/journal": [...paged, { name: "kind", required: false }],
  "/v1/yield": [{ name: "owner", required: true }],
  "/v1/export": [{ name: "owner", required: true }, { name: "dataset", required: false }, ...dates, { name: "method", required: false }, { name: "treatment", required: false }],
  "/v2/actions": paged,
  "/v2/actions/:id": [{ name: "owner", required: true }],
  "/v2/reports/income": [
    { name: "year", required: true },
    { name: "owner", required: false },
    { name: "currency", required: false },
    { name: "treatment", required: false },
  ],
  "/v2/lots": [
    { name: "owner", required: true },
    { name: "asOf", required: false },
    { name: "method", required: false },
    { name: "treatment", required: false },
  ],
  "/v2/reports/gains": [
    { name: "year", required: true },
    { name: "owner", required: false },
    { name: "method", required: false },
    { name: "treatment", required: false },
    { name: "currency", required: false },
  ],
  "/v2/reports/holdings": [
    { name: "asOf", required: true },
    { name: "from", required: false },
    { name: "owner", required: false },
    { name: "method", required: false },
    { name: "treatment", required: false },
  ],
  "/v2/calendar": [{ name: "owner", required: false }],
  "/v2/events": [{ name: "lastEventId", required: false }],
};

describe("OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document (swagger-parser)", async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    await SwaggerParser.validate(structuredClone(doc));
  });

  test("is the same document at /v1/openapi.json/ (a trailing slash reaches the same route)", async () => {
    const slash = await call(srv.url, "/v1/openapi.json/");
    expect(slash.status).toBe(200);
    expect(slash.body).toEqual(doc);
  });

  test("lists exactly the declared routes, its own path included", () => {
    const documented = new Set<string>();
    for (const [p, item] of Object.entries<any>(doc.paths)) for (const m of methods) if (item[m]) documented.add(`${m.toUpperCase()} ${p}`);
    const table = new Set(routes.map((r) => `${r.method} ${toOpenApiPath(r.path)}`));
    const missing = [...table].filter((r) => !documented.has(r));
    const extra = [...documented].filter((r) => !table.has(r));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  for (const route of routes) {
    test(`${route.method} ${route.path}: parameters, security, responses`, () => {
      const op = deref.paths[toOpenApiPath(route.path)][route.method.toLowerCase()];
      const params: { name: string; in: string; required?: boolean }[] = op.parameters ?? [];
      // Path parameters: exactly those of the template, required.
      const pathNames = [...route.path.matchAll(/:([a-z]+)/g)].map((m) => m[1]);
      expect(params.filter((p) => p.in === "path").map((p) => [p.name, p.required])).toEqual(pathNames.map((n) => [n, true]));
      // Query parameters as decided.
      const q = params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: Boolean(p.required) }));
      expect(q).toEqual(expectedQuery[route.path] ?? []);
      const responses = Object.keys(op.responses ?? {});
      const ok = route.path === "/mcp" ? "200" : route.method === "POST" ? "202" : route.method === "DELETE" ? "204" : "200";
      expect(responses).toContain(ok);
      if (route.scope === null) {
        expect(op.security).toEqual([]);
      } else {
        const schemes = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
        expect(schemes.length).toBeGreaterThan(0);
        for (const s of schemes) expect(doc.components.securitySchemes[s]).toBeDefined();
        expect(schemes.some((s: string) => doc.components.securitySchemes[s].scheme === "bearer")).toBe(true);
        expect(`${op.description ?? ""} ${op.summary ?? ""}`).toContain(route.scope);
        for (const code of ["401", "403", "429"]) expect(responses).toContain(code);
        const e401 = op.responses["401"].content?.["application/json"]?.schema;
        expect(JSON.stringify(e401)).toContain("invalid_api_key");
      }
      if (pathNames.length || expectedQuery[route.path] || route.method === "POST") expect(responses).toContain("400");
      if (expectedQuery[route.path]?.some((p) => p.name === "owner") || route.path.includes(":owner")) {
        expect(responses).toContain("404");
        expect(JSON.stringify(op.responses["404"])).toContain("wallet_not_registered");
      }
      if (route.path.endsWith(":id") || route.path.includes(":mint")) expect(JSON.stringify(op.responses["404"])).toContain("not_found");
    });
  }

  test("the sync request body is documented as {owner} with no other fields", () => {
    const body = deref.paths["/v1/wallets/sync"].post.requestBody;
    expect(body.required).toBe(true);
    const schema = body.content["application/json"].schema;
    expect(schema.required).toEqual(["owner"]);
    expect(Object.keys(schema.properties)).toEqual(["owner"]);
    expect(schema.additionalProperties).toBe(false);
    expect(JSON.stringify(deref.paths["/v1/wallets/sync"].post.responses["413"])).toContain("payload_too_large");
  });

  test("paging limits are documented as 1–200 and offset ≥ 0", () => {
    for (const p of ["/v1/income", "/v1/journal", "/v2/actions"]) {
      const params = doc.paths[p].get.parameters;
      const limit = JSON.stringify(params.find((x: { name: string }) => x.name === "limit").schema);
      expect(limit).toContain('"minimum":1');
      expect(limit).toContain('"maximum":200');
      expect(JSON.stringify(params.find((x: { name: string }) => x.name === "offset").schema)).toContain('"minimum":0');
    }
  });

  test("the export documents its datasets and a CSV response", () => {
    const op = deref.paths["/v1/export"].get;
    const ds = JSON.stringify(op.parameters.find((x: { name: string }) => x.name === "dataset").schema);
    for (const d of ["journal", "income", "tax", "koinly", "cointracker", "coinledger", "awaken"]) expect(ds).toContain(`"${d}"`);
    expect(Object.keys(op.responses["200"].content)).toContain("text/csv");
    expect(JSON.stringify(op.responses["422"])).toContain("export_too_large");
    expect(op.responses["200"].content["text/csv"].schema.description).toContain("tool's own");
  });

  test("the date filters and the year report are documented", () => {
    for (const p of ["/v1/income", "/v1/journal", "/v2/actions", "/v1/export"]) {
      const params = doc.paths[p].get.parameters;
      for (const name of ["from", "to", "year"]) expect(params.find((x: { name: string }) => x.name === name).description).toMatch(/effectiveAt/);
    }
    const report = doc.paths["/v2/reports/income"].get;
    expect(report.parameters.find((x: { name: string }) => x.name === "owner").schema.type).toBe("array");
    expect(report.description).toContain("currency");
    expect(report.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/IncomeReport" });
    const row = doc.components.schemas.IncomeReportRow.properties;
    for (const field of ["month", "symbol", "events", "grossUsd", "withholdingTaxUsd", "retainedUsd", "usd", "unvaluedEvents", "exact", "converted"]) expect(row[field]).toBeDefined();
  });
});

// ---- metrics -------------------------------------------------------------------------------

/** Our own check of the Prometheus text format 0.0.4 (what promtool would refuse). */
function checkExposition(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith("\n")) problems.push("no final newline");
  const types = new Map<string, string>();
  const seenSamples = new Set<string>();
  const histograms = new Map<string, { inf: boolean; count: boolean; sum: boolean }>();
  const sampleRe = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*)?\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)( -?\d+)?$/;
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) continue;
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      if (types.has(name!)) problems.push(`second TYPE for ${name}`);
      if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(type!)) problems.push(`bad type ${type}`);
      types.set(name!, type!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = sampleRe.exec(line);
    if (!m) {
      problems.push(`bad sample line: ${line}`);
      continue;
    }
    const name = m[1]!;
    if (seenSamples.has(name + (m[2] ?? ""))) problems.push(`duplicate sample ${name}${m[2] ?? ""}`);
    seenSamples.add(name + (m[2] ?? ""));
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const type = types.get(name) ?? types.get(base);
    if (!type) problems.push(`sample before TYPE: ${name}`);
    if (type === "counter" && !name.endsWith("_total")) problems.push(`counter without _total: ${name}`);
    if (type === "histogram") {
      const labels = (m[3] ?? "").replace(/,?le="[^"]*"/, "");
      const h = histograms.get(base + labels) ?? { inf: false, count: false, sum: false };
      if (name.endsWith("_bucket") && /le="\+Inf"/.test(m[3] ?? "")) h.inf = true;
      if (name.endsWith("_count")) h.count = true;
      if (name.endsWith("_sum")) h.sum = true;
      histograms.set(base + labels, h);
    }
  }
  for (const [k, h] of histograms) if (!h.inf || !h.count || !h.sum) problems.push(`incomplete histogram ${k}`);
  return problems;
}

describe("/v1/ops/metrics", () => {
  let text = "";
  beforeAll(async () => {
    const keyA = (await srv.key([...allScopes], "acme")).key;
    await registerWallet(srv.db, "acme", owner);
    await seedWallet(srv.db, owner, 3);
    // Traffic of every kind: success, validation, refused keys, unknown routes, wrong methods.
    await call(srv.url, `/v1/portfolio?owner=${owner}`, { key: keyA });
    await call(srv.url, `/v1/wallets/${owner}/status`, { key: keyA });
    await call(srv.url, `/v1/income?owner=${owner}&limit=0`, { key: keyA });
    await call(srv.url, `/v2/actions/act_x?owner=${owner}`, { key: keyA });
    await call(srv.url, "/v1/wallets/sync", { key: keyA, body: { owner: randomAddress() } });
    await call(srv.url, "/v1/assets", { key: "cal_" + "Z".repeat(43) });
    await call(srv.url, "/v1/assets");
    await call(srv.url, `/v1/nope/${owner}`, { key: keyA });
    await call(srv.url, "/v1/assets", { key: keyA, method: "POST" });
    const ops = (await srv.key(["ops:read"], "ops-team")).key;
    const a = await call(srv.url, "/v1/ops/metrics", { key: ops });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    text = a.text;
  });

  test("is well-formed Prometheus text 0.0.4", () => {
    expect(checkExposition(text)).toEqual([]);
  });

  test("passes promtool check metrics when promtool is installed", () => {
    const which = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" });
    const promtool = which.stdout.trim();
    if (!promtool) {
      console.log("promtool not on PATH: skipped the promtool call (format checked by checkExposition)");
      expect(checkExposition(text)).toEqual([]);
      return;
    }
    const r = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
    expect({ status: r.status, out: r.stdout + r.stderr }).toEqual({ status: 0, out: expect.any(String) });
  });

  test("has the decided series", () => {
    for (const name of [
      "caledger_http_requests_total",
      "caledger_http_request_duration_seconds",
      "caledger_auth_failures_total",
      "caledger_rate_limited_total",
      "caledger_sync_jobs",
      "caledger_rpc_requests_total",
      "caledger_issuer_records",
      "caledger_actions",
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
    expect(text).toMatch(/^# TYPE caledger_http_request_duration_seconds histogram$/m);
    expect(text).toMatch(/^caledger_process_\w*memory\w* \d+/m);
    expect(text).toMatch(/^caledger_process_uptime_seconds [0-9.]+$/m);
    expect(text).toContain('caledger_http_requests_total{method="GET",route="/v1/portfolio",status="200"} 1');
    expect(text).toContain('caledger_http_requests_total{method="GET",route="/v1/wallets/:owner/status",status="200"} 1');
    expect(text).toMatch(/caledger_auth_failures_total\{reason="[a-z_]+"\} \d+/);
    expect(text).toMatch(/caledger_sync_jobs\{state="queued"\} \d+/);
    expect(text).toMatch(/caledger_actions\{type="cash_dividend"\} \d+/);
  });

  test("caledger_build_info: a gauge of 1 labelled with the version and the ledger's engine", () => {
    expect(text).toContain("# TYPE caledger_build_info gauge\n");
    expect(text.split("\n").filter((l) => l.startsWith("caledger_build_info"))).toEqual([`caledger_build_info{version="${version}",engine="${testEngine}"} 1`]);
  });

  test("labels hold route templates and fixed words, never owners, keys or raw paths", () => {
    expect(text).not.toContain(owner);
    expect(text).not.toContain("cal_");
    expect(text).not.toContain("acme");
    for (const m of text.matchAll(/\{([^}]*)\}/g)) {
      for (const [, name, value = ""] of m[1]!.matchAll(/([a-z_]+)="([^"]*)"/g)) {
        if (name === "route") expect(value).toMatch(/^(\/v[12](\/([a-z.]+|:[a-z]+))*|unmatched)$/);
        else if (name === "le") expect(value).toMatch(/^([0-9.]+|\+Inf)$/);
        else if (name === "version") expect(value).toBe(version);
        else expect(value).toMatch(/^[A-Za-z0-9_]{1,40}$/);
        expect(value.length).toBeLessThan(40);
      }
    }
  });
});
