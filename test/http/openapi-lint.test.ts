// The served OpenAPI document is one a tool can use: redocly's recommended rules pass with no
// error and no warning, every shape is a named component, every property and parameter says
// what it means, and the paging parameters carry their real defaults.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as S from "../../schemas/index.ts";
import { call, repoRoot, startTestServer, tempDir, type TestServer } from "../harness/index.ts";

let srv: TestServer;
let doc: any;

beforeAll(async () => {
  srv = await startTestServer();
  const a = await call(srv.url, "/v1/openapi.json");
  expect(a.status).toBe(200);
  doc = a.body;
});
afterAll(async () => {
  await srv?.close();
});

const operations = () => Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
const component = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")];

/** Every object schema in the document, with where it sits. */
function objectSchemas(node: unknown, at: string, out: { at: string; schema: any }[] = []): { at: string; schema: any }[] {
  if (Array.isArray(node)) node.forEach((n, i) => objectSchemas(n, `${at}[${i}]`, out));
  else if (node && typeof node === "object") {
    if ("properties" in node && typeof (node as any).properties === "object") out.push({ at, schema: node });
    for (const [k, v] of Object.entries(node)) objectSchemas(v, `${at}/${k}`, out);
  }
  return out;
}

/** What a property says it means: its own description, else the one of the component it names. */
function meaning(prop: any): string | undefined {
  if (prop.description) return prop.description;
  if (prop.$ref) return component(prop.$ref)?.description;
  return undefined;
}

describe("redocly lint (recommended rules)", () => {
  test("reports no error and no warning on the served document", () => {
    const dir = tempDir("ca-ledger-openapi-");
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const r = spawnSync(join(repoRoot, "node_modules/.bin/redocly"), ["lint", file, "--format=json"], {
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      timeout: 60_000,
    });
    rmSync(dir, { recursive: true, force: true });
    const report = JSON.parse(r.stdout);
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect({ totals: report.totals, problems }).toEqual({ totals: { errors: 0, warnings: 0, ignored: 0 }, problems: [] });
    expect(r.status).toBe(0);
  }, 90_000);
});

describe("named components", () => {
  test("every response and request body is a $ref to a named component", () => {
    const inline: string[] = [];
    for (const { name, op } of operations()) {
      const bodies = [...Object.entries<any>(op.responses).map(([s, r]) => [s, r.content] as const), ["body", op.requestBody?.content] as const];
      for (const [where, content] of bodies) {
        for (const [type, media] of Object.entries<any>(content ?? {})) {
          const ref = media.schema?.$ref;
          if (!ref || !component(ref)) inline.push(`${name} ${where} ${type}`);
        }
      }
    }
    expect(inline).toEqual([]);
  });

  test("the shapes a client uses are named, nested ones by reference", () => {
    const names = Object.keys(doc.components.schemas);
    for (const n of [
      "IncomeEntry",
      "IncomeList",
      "ActionSummary",
      "ActionDetail",
      "Position",
      "Portfolio",
      "JournalEntry",
      "ActionType",
      "DatasetLabel",
      "Error400",
      "Error401",
      "Error404",
      "Error429",
    ]) {
      expect(names).toContain(n);
    }
    expect(doc.components.schemas.IncomeList.properties.entries.items).toEqual({ $ref: "#/components/schemas/IncomeEntry" });
    expect(doc.components.schemas.ActionsList.properties.actions.items).toEqual({ $ref: "#/components/schemas/ActionSummary" });
    expect(doc.paths["/v1/income"].get.responses["404"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error404" });
    // A union of literals is an enum that keeps its description.
    expect(doc.components.schemas.ActionType.enum).toHaveLength(18);
    expect(doc.components.schemas.ActionType.description).toBeString();
  });

  test("every component is used and says what it is", () => {
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: undefined } }) + JSON.stringify(Object.values(doc.components.schemas));
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      expect(text).toContain(`"#/components/schemas/${name}"`);
      expect({ name, description: typeof schema.description }).toEqual({ name, description: "string" });
    }
  });
});

describe("descriptions", () => {
  test("every property of every schema has a description of its own meaning", () => {
    // A type's generic wording ("Exact decimal as a string") does not say what the field means.
    const generic = new Set([S.Decimal, S.Usd, S.NullableDecimal, S.Timestamp, S.NullableTimestamp, S.Sha256, S.Address].map((s) => s.description));
    const undescribed: string[] = [];
    let count = 0;
    for (const { at, schema } of objectSchemas(doc, "")) {
      for (const [name, prop] of Object.entries<any>(schema.properties)) {
        count++;
        const m = meaning(prop);
        if (!m || generic.has(m)) undescribed.push(`${at}.${name}`);
      }
    }
    expect(undescribed).toEqual([]);
    expect(count).toBeGreaterThan(250);
  });

  test("every parameter is described", () => {
    const undescribed = operations().flatMap(({ name, op }) => (op.parameters ?? []).filter((p: any) => !p.description).map((p: any) => `${name} ${p.name}`));
    expect(undescribed).toEqual([]);
  });

  test("the position split and the retention rate are explained in words", () => {
    const position = doc.components.schemas.Position.properties;
    expect(position.principalQuantity.description).toContain("deposits");
    expect(position.convertibleQuantity.description).toContain("income");
    expect(doc.components.schemas.ActionSummary.properties.retentionRate.description).toContain("kept back");
  });
});

describe("parameters", () => {
  test("limit and offset carry their real defaults, with no string branch defaulting to 0", () => {
    for (const path of ["/v1/income", "/v1/journal", "/v2/actions"]) {
      const params = doc.paths[path].get.parameters;
      expect(params.find((p: any) => p.name === "limit").schema).toEqual({ type: "integer", minimum: 1, maximum: 200, default: 50 });
      expect(params.find((p: any) => p.name === "offset").schema).toEqual({ type: "integer", minimum: 0, maximum: 1_000_000_000, default: 0 });
    }
    expect(JSON.stringify(doc)).not.toContain('"format":"integer"');
  });

  test("dataset keeps its values and its default", () => {
    const ds = doc.paths["/v1/export"].get.parameters.find((p: any) => p.name === "dataset");
    expect(ds.schema).toEqual({ type: "string", enum: ["journal", "income", "tax", "koinly", "cointracker", "coinledger", "awaken", "gains", "lots"], default: "journal" });
    expect(ds.description).toContain("import template");
  });
});

describe("what the document says of every route holds", () => {
  test("open routes declare no security and a body over the cap answers 413 even there", async () => {
    expect(doc.paths["/v1/health"].get.security).toEqual([]);
    expect(doc.paths["/v1/openapi.json"].get.security).toEqual([]);
    for (const { name, op } of operations()) expect({ name, has413: "413" in op.responses }).toEqual({ name, has413: true });
    // A GET cannot carry a body through fetch: speak HTTP on a socket.
    const { port } = new URL(srv.url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("GET /v1/health HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 20000\r\n\r\n"));
      let text = "";
      socket.on("data", (d) => {
        text += d.toString();
        if (text.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
    });
    expect(head).toStartWith("HTTP/1.1 413");
  });
});
