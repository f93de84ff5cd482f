// @ca-ledger/client as a user gets it: `npm pack` (which builds it: compiled ESM, declarations,
// the schemas of schemas/ inside), installed from the tarball into a scratch project with TypeBox
// from the npm registry, then run against the real server on loopback under plain Node 20 (the
// machine's node) and the pinned Node LTS, and type-checked by a strict consumer's tsc.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { address, allScopes, registerWallet, repoRoot, seedWallet, startTestServer, tempDir, type TestServer } from "../harness/index.ts";
import { ltsNode, ltsVersion } from "../support/node-lts.ts";
import { run } from "../support/run.ts";

let srv: TestServer;
let key: string;
let scratch: string;
let packed: { filename: string; files: { path: string }[] };
const owner = address("client-package:owner");

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key([...allScopes])).key;
  await registerWallet(srv.db, "acme", owner);
  await seedWallet(srv.db, owner, 4);

  scratch = tempDir("ca-ledger-client-package-");
  const pack = await run(["npm", "pack", "--json", "--pack-destination", scratch], { cwd: join(repoRoot, "client"), timeoutMs: 180_000 });
  expect({ code: pack.code, stderr: pack.code === 0 ? "" : pack.stderr }).toEqual({ code: 0, stderr: "" });
  packed = JSON.parse(pack.stdout)[0];

  const project = join(scratch, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const install = await run(["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", join(scratch, packed.filename)], { cwd: project, timeoutMs: 180_000 });
  expect({ code: install.code, stderr: install.code === 0 ? "" : install.stderr }).toEqual({ code: 0, stderr: "" });
}, 400_000);
afterAll(async () => {
  await srv?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const project = () => join(scratch, "consumer");

describe("the tarball", () => {
  test("holds compiled ESM with declarations and the schemas built from schemas/, no TypeScript source", () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toContain("dist/client/src/index.js");
    expect(files).toContain("dist/client/src/index.d.ts");
    // Every module of schemas/ is in the package, compiled: the one source, no hand-kept copy.
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
    const expected = sources(join(repoRoot, "schemas")).map((f) => "dist/schemas/" + relative(join(repoRoot, "schemas"), f).replace(/\.ts$/, ".js"));
    expect(files.filter((f) => f.startsWith("dist/schemas/") && f.endsWith(".js")).sort()).toEqual(expected.sort());
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  test("installs with no runtime dependency beyond TypeBox", () => {
    const top = readdirSync(join(project(), "node_modules")).filter((n) => !n.startsWith("."));
    const installed = top.flatMap((n) => (n.startsWith("@") ? readdirSync(join(project(), "node_modules", n)).map((m) => `${n}/${m}`) : [n]));
    expect(installed.sort()).toEqual(["@ca-ledger/client", "@sinclair/typebox"]);
  });
});

/** Every path a caller takes: reads validated by the shipped schemas, ApiError, NetworkError. */
const script = `
import { createClient, ApiError, NetworkError, schemas } from "@ca-ledger/client";
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
// TypeBox checks a format only once it is registered (the README's TypeScript client section).
FormatRegistry.Set("date-time", (v) => !Number.isNaN(Date.parse(v)));
const [base, key, owner, closed] = process.argv.slice(2);
const c = createClient({ baseUrl: base, apiKey: key });
const out = { health: (await c.health()).status };
out.portfolio = Value.Check(schemas.Portfolio, await c.portfolio(owner));
const page = await c.income(owner, { limit: 2 });
out.income = [Value.Check(schemas.IncomeList, page), page.entries.length, page.nextOffset];
out.actions = Value.Check(schemas.ActionsList, await c.v2.actions(owner));
out.taxonomy = (await c.v2.taxonomy()).types.length;
out.currencies = Value.Check(schemas.ReportCurrencies, await c.v2.reportCurrencies());
out.csv = (await c.exportCsv(owner)).split("\\r\\n")[0].startsWith("dataset,");
try { await c.portfolio("nope"); } catch (e) { out.apiError = [e instanceof ApiError, e.status, e.code]; }
try { await createClient({ baseUrl: closed }).health(); } catch (e) { out.refused = [e instanceof NetworkError, e.code, e.cause instanceof Error, e.message.includes(closed)]; }
const aborting = (url, init) => fetch(url, { ...init, signal: AbortSignal.abort() });
try { await createClient({ baseUrl: base, fetch: aborting }).health(); } catch (e) { out.aborted = [e instanceof NetworkError, e.code]; }
console.log(JSON.stringify(out));
`;

async function runUnder(node: string): Promise<unknown> {
  const file = join(project(), "run.mjs");
  writeFileSync(file, script);
  const closed = `http://127.0.0.1:${await closedPort()}`;
  const r = await run([node, file, srv.url, key, owner, closed], { cwd: project(), timeoutMs: 30_000 });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout);
}

const expected = {
  health: "ok",
  portfolio: true,
  income: [true, 2, 2],
  actions: true,
  taxonomy: 18,
  currencies: true,
  csv: true,
  apiError: [true, 400, "invalid_owner"],
  refused: [true, "network_error", true, true],
  aborted: [true, "aborted"],
};

describe("runs from the installed tarball against the server", () => {
  test("under plain Node 20 (the machine's node)", async () => {
    const v = await run(["node", "--version"]);
    expect(v.stdout).toStartWith("v20.");
    expect(await runUnder("node")).toEqual(expected);
  }, 60_000);

  test(`under the Node LTS pinned in test/fixtures/node-lts (${ltsVersion})`, async () => {
    expect(await runUnder(await ltsNode())).toEqual(expected);
  }, 400_000);
});

/** A strict consumer: wrong field names and argument types must be errors (the types are real). */
const consumer = `
import { createClient, ApiError, NetworkError, schemas, type ActionDetail, type Client, type Portfolio, type ReportCurrencies } from "@ca-ledger/client";
import type { Static } from "@sinclair/typebox";

const api: Client = createClient({ baseUrl: "http://127.0.0.1:4600", apiKey: "cal_x" });
export type Entry = Static<typeof schemas.IncomeEntry>;

export async function principal(owner: string): Promise<string | undefined> {
  const p: Portfolio = await api.portfolio(owner);
  return p.positions[0]?.principalQuantity;
}
export async function kinds(owner: string): Promise<Entry["kind"][]> {
  return (await api.income(owner, { limit: 50 })).entries.map((e) => e.kind);
}
export async function steps(owner: string, id: string): Promise<ActionDetail["lifecycle"]["steps"]> {
  return (await api.v2.action(owner, id)).lifecycle.steps;
}
export async function lastRateDates(): Promise<string[]> {
  const listed: ReportCurrencies = await api.v2.reportCurrencies();
  return listed.currencies.map((c) => \`\${c.currency} \${c.lastRateDate}\`);
}
export function explain(e: unknown): string {
  if (e instanceof ApiError) return \`\${e.status} \${e.code} \${e.body.error}\`;
  if (e instanceof NetworkError) return \`\${e.code} \${e.method} \${e.url}\`;
  return "other";
}
// @ts-expect-error a misspelt field is an error
export const misspelt = (p: Portfolio) => p.positions[0]?.principalQuantty;
// @ts-expect-error limit is a number
export const badLimit = () => api.income("x", { limit: "50" });
// @ts-expect-error a listed currency has firstRateDate and lastRateDate, no "last"
export const badRateDay = (c: ReportCurrencies["currencies"][number]) => c.last;
// @ts-expect-error a NetworkError code is one of two words
export const badCode = (e: NetworkError) => e.code === "timeout";
`;

const strict = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  types: [],
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
};

describe("tsc --strict in a consumer", () => {
  for (const [name, options] of [
    ["node16", { module: "node16", moduleResolution: "node16" }],
    ["nodenext", { module: "nodenext", moduleResolution: "nodenext" }],
    ["bundler", { module: "esnext", moduleResolution: "bundler" }],
  ] as const) {
    test(`moduleResolution ${name}`, async () => {
      writeFileSync(join(project(), "consumer.ts"), consumer);
      const config = join(project(), `tsconfig.${name}.json`);
      writeFileSync(config, JSON.stringify({ compilerOptions: { ...strict, ...options }, files: ["consumer.ts"] }));
      const r = await run(["node", join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: project(), timeoutMs: 60_000 });
      expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: "" });
    }, 90_000);
  }
});
