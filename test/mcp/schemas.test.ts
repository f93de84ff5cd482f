// Every shape in schemas/ can be a tool's schema as it is (docs/mcp.md#tool-results): as an
// output schema, the SDK client's own validator (Ajv with formats) compiles it; as an input
// schema, TypeBox (which checks a tool's arguments in src/mcp/server.ts) knows every format it
// names. A route added later is covered without a list to keep in step.
import { describe, expect, test } from "bun:test";
import { FormatRegistry, Kind, type TSchema } from "@sinclair/typebox";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import * as S from "../../schemas/index.ts";
import { argumentRefusal } from "../../src/mcp/server.ts";

const shapes = Object.entries(S).filter(([, v]) => typeof v === "object" && v !== null && Kind in v) as [string, TSchema][];
const objects = shapes.filter(([, s]) => s.type === "object");
const inputs = objects.filter(([name]) => /(Query|Params|Body)$/.test(name));

function formatsIn(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) formatsIn(s, out);
  else if (schema && typeof schema === "object") {
    for (const [k, v] of Object.entries(schema)) {
      if (k === "format" && typeof v === "string") out.add(v);
      else formatsIn(v, out);
    }
  }
  return out;
}

describe("schemas/ as MCP tool schemas", () => {
  test("there are response and input shapes to check", () => {
    expect(objects.length).toBeGreaterThan(30);
    expect(inputs.map(([n]) => n)).toEqual(expect.arrayContaining(["ActionsQuery", "IncomeReportQuery", "SyncRequestBody", "ActionParams"]));
  });

  test("the SDK client's validator compiles every object shape, as JSON", () => {
    const ajv = new AjvJsonSchemaValidator();
    const failures: string[] = [];
    for (const [name, schema] of objects) {
      try {
        ajv.getValidator(JSON.parse(JSON.stringify(schema)));
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("input shapes use no format TypeBox cannot check", () => {
    const unknown = inputs.flatMap(([name, s]) => [...formatsIn(s)].filter((f) => !FormatRegistry.Has(f)).map((f) => `${name}: ${f}`));
    expect(unknown).toEqual([]);
  });

  test("arguments are checked against the input shape: unknown names, wrong types and ranges are refused, naming the parameter", () => {
    const q = S.ActionsQuery;
    const owner = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    expect(argumentRefusal(q, { owner, limit: 200, offset: 0, year: 2026 })).toBeNull();
    expect(argumentRefusal(q, { owner, limit: 201 })).toMatch(/^Invalid parameter limit: /);
    expect(argumentRefusal(q, { owner, from: "2026-1-1" })).toMatch(/^Invalid parameter from: /);
    expect(argumentRefusal(q, { owner, secret: "cal_abc" })).toBe("Unknown parameter secret: this tool takes owner, limit, offset, from, to, year.");
    expect(argumentRefusal(S.IncomeReportQuery, { year: 2026, owner: [owner, 5] })).toMatch(/^Invalid parameter owner\.1: /);
    // The value itself is never echoed back.
    expect(argumentRefusal(q, { owner: "x".repeat(65) })).not.toContain("xxx");
  });
});
