// GET /v2/lots, /v2/reports/gains and /v2/reports/holdings, and the gains and lots exports, on the
// demo ledger served by the real server on loopback: every body matches its schema and names the
// treatment and method it used (the server's default, or the request's); the lots hold exactly
// what /v1/portfolio shows; the statement reconciles opening → closing exactly on the exact
// values; the gains totals are the sums of their rows; the CSV exports carry the JSON figures and
// the treatment; bad parameters are 400 with a code, another tenant's wallet is 404. The client's
// methods read the same answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../../client/src/index.ts";
import * as S from "../../schemas/index.ts";
import { add, cmp, formatDecimal, parseDecimal, rat, ratAbs, sub, sum, ZERO } from "../../src/domain/numbers.ts";
import { LOT_METHODS, TAX_TREATMENTS } from "../../src/domain/lots/types.ts";
import { demoOwners } from "../../src/demo/identity.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { call, schemaErrors } from "../harness/index.ts";
import { serveDemoLedger, stopDemoLedger, type DemoServer } from "../support/demo-server.ts";

let srv: DemoServer;
let owners: string[];

beforeAll(async () => {
  ({ srv, owners } = await serveDemoLedger());
});
afterAll(() => stopDemoLedger(srv));

/**
 * The lots' exact units sum to the instrument's: an exact value whose expansion does not end (a
 * scaled lot) is written at 18 decimals, so each is within half a unit of the 18th decimal.
 */
function near(lots: { exact: { units: string } }[], total: string): boolean {
  const gap = ratAbs(sub(sum(lots.map((l) => parseDecimal(l.exact.units))), parseDecimal(total)));
  return cmp(gap, rat(BigInt(lots.length + 1), 10n ** 18n)) <= 0;
}

const get = (path: string, key = srv.key) => call(srv.url, path, { key });

describe("GET /v2/lots", () => {
  test("each wallet's lots: schema, the server's default choice named, units equal to the portfolio's, lots summing to their instrument", async () => {
    expect(owners.length).toBeGreaterThan(1);
    for (const owner of owners) {
      const r = await get(`/v2/lots?owner=${owner}`);
      expect(r.status).toBe(200);
      expect(schemaErrors(S.LotsResponse, r.body)).toEqual([]);
      expect([r.body.treatment, r.body.method]).toEqual(["income", "fifo"]);
      expect(r.body.asOf).toBe(new Date().toISOString().slice(0, 10));
      const portfolio = (await get(`/v1/portfolio?owner=${owner}`)).body;
      const held = Object.fromEntries(portfolio.positions.map((p: { mint: string; quantity: string }) => [p.mint, p.quantity]));
      for (const i of r.body.instruments) {
        expect({ mint: i.mint, units: i.units }).toEqual({ mint: i.mint, units: held[i.mint] ?? "0" });
        const mine = r.body.lots.filter((l: { mint: string }) => l.mint === i.mint);
        const unknown = mine.filter((l: { basisKnown: boolean }) => !l.basisKnown);
        expect(near(mine, i.exact.units)).toBe(true);
        expect(near(unknown, i.exact.unknownBasisUnits)).toBe(true);
        for (const l of unknown) expect([l.basisUsd, typeof l.reason]).toEqual([null, "string"]);
      }
      expect(r.body.lots.length).toBeGreaterThan(0);
    }
  });

  test("method and treatment per request are used and named; the units held do not depend on them", async () => {
    const owner = owners[0]!;
    const base = (await get(`/v2/lots?owner=${owner}`)).body;
    for (const method of LOT_METHODS) {
      for (const treatment of TAX_TREATMENTS) {
        const r = await get(`/v2/lots?owner=${owner}&method=${method}&treatment=${treatment}`);
        expect(r.status).toBe(200);
        expect([r.body.method, r.body.treatment]).toEqual([method, treatment]);
        expect(r.body.instruments.map((i: { units: string }) => i.units)).toEqual(base.instruments.map((i: { units: string }) => i.units));
      }
    }
  });

  test("an earlier asOf shows the lots open then", async () => {
    const r = await get(`/v2/lots?owner=${owners[0]}&asOf=2020-01-01`);
    expect(r.status).toBe(200);
    expect([r.body.asOf, r.body.lots]).toEqual(["2020-01-01", []]);
  });

  test("refusals: bad method, treatment or day are 400 invalid_request naming the parameter; another tenant's wallet 404; no owner 400", async () => {
    for (const [q, name] of [
      ["method=oldest", "method"],
      ["treatment=none", "treatment"],
      ["asOf=2026-02-30", "asOf"],
      ["asOf=yesterday", "asOf"],
    ] as const) {
      const r = await get(`/v2/lots?owner=${owners[0]}&${q}`);
      expect({ q, status: r.status, code: r.body.code }).toEqual({ q, status: 400, code: "invalid_request" });
      expect(r.body.error).toContain(name);
    }
    expect((await get("/v2/lots")).status).toBe(400);
    const other = await createKey(srv.ledger.db, { name: "other-tenant", tenant: "other", scopes: ["ledger:read"] });
    const r = await get(`/v2/lots?owner=${owners[0]}`, other.key);
    expect([r.status, r.body.code]).toEqual([404, "wallet_not_registered"]);
    expect((await get(`/v2/reports/gains?year=2026`, other.key)).body.rows).toEqual([]);
  });
});

describe("GET /v2/reports/holdings", () => {
  test("opening + acquired − disposed + own transfers + corporate-action units = closing, exactly, per wallet and instrument; closing = the lots' units then", async () => {
    const asOf = new Date().toISOString().slice(0, 10);
    for (const treatment of TAX_TREATMENTS) {
      const r = await get(`/v2/reports/holdings?asOf=${asOf}&from=2020-01-01&treatment=${treatment}`);
      expect(r.status).toBe(200);
      expect(schemaErrors(S.HoldingsStatement, r.body)).toEqual([]);
      expect([r.body.from, r.body.treatment]).toEqual(["2020-01-01", treatment]);
      expect(r.body.wallets.map((w: { owner: string }) => w.owner).sort()).toEqual([...owners].sort());
      let instruments = 0;
      for (const w of r.body.wallets) {
        const lots = (await get(`/v2/lots?owner=${w.owner}&asOf=${asOf}&treatment=${treatment}`)).body;
        for (const i of w.instruments) {
          instruments++;
          const x = i.exact.reconciliation;
          const closing = add(
            sub(add(parseDecimal(x.openingUnits), parseDecimal(x.acquiredUnits)), parseDecimal(x.disposedUnits)),
            add(parseDecimal(x.ownTransferUnits), parseDecimal(x.corporateActionUnits)),
          );
          expect(formatDecimal(add(closing, parseDecimal(x.uncoveredUnits)))).toBe(formatDecimal(parseDecimal(x.closingUnits)));
          expect(x.uncoveredUnits).toBe("0");
          const held = lots.instruments.find((l: { mint: string }) => l.mint === i.mint);
          expect(formatDecimal(parseDecimal(x.closingUnits))).toBe(formatDecimal(held ? parseDecimal(held.exact.units) : ZERO));
        }
      }
      expect(instruments).toBeGreaterThan(0);
    }
  });

  test("from after asOf is 400 invalid_request; asOf is required", async () => {
    const r = await get("/v2/reports/holdings?asOf=2026-01-01&from=2026-02-01");
    expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
    expect((await get("/v2/reports/holdings")).status).toBe(400);
  });
});

describe("GET /v2/reports/gains and the exports", () => {
  test("each year: schema, totals the sums of the rows' exact values, rows of the wallets asked", async () => {
    for (const year of [2025, 2026]) {
      for (const treatment of TAX_TREATMENTS) {
        const r = await get(`/v2/reports/gains?year=${year}&treatment=${treatment}&method=hifo`);
        expect(r.status).toBe(200);
        expect(schemaErrors(S.GainsReport, r.body)).toEqual([]);
        expect([r.body.year, r.body.treatment, r.body.method]).toEqual([year, treatment, "hifo"]);
        for (const term of ["short", "long"] as const) {
          const rows = r.body.rows.filter((x: { term: string }) => x.term === term);
          const t = r.body.totals[term];
          expect(t.rows).toBe(rows.length);
          const known = rows.filter((x: { exact: { gainUsd: string | null } }) => x.exact.gainUsd !== null);
          expect(t.unknownRows).toBe(rows.length - known.length);
          expect(formatDecimal(parseDecimal(t.exact.gainUsd))).toBe(formatDecimal(sum(known.map((x: { exact: { gainUsd: string } }) => parseDecimal(x.exact.gainUsd)))));
        }
        const one = await get(`/v2/reports/gains?year=${year}&treatment=${treatment}&method=hifo&owner=${owners[0]}`);
        expect(one.body.rows).toEqual(r.body.rows.filter((x: { owner: string }) => x.owner === owners[0]));
      }
    }
    expect((await get("/v2/reports/gains?year=1969")).status).toBe(400);
  });

  test("export gains: Form 8949's columns, one row per JSON row, the treatment in a header and the file name; lots: the JSON lots", async () => {
    const owner = owners[0]!;
    const year = 2026;
    const json = (await get(`/v2/reports/gains?year=${year}&owner=${owner}&treatment=deferred`)).body;
    const res = await fetch(`${srv.url}/v1/export?owner=${owner}&dataset=gains&year=${year}&treatment=deferred`, { headers: { authorization: `Bearer ${srv.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ca-ledger-treatment")).toBe("deferred");
    expect(res.headers.get("content-disposition")).toContain("-deferred.csv");
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toStartWith(
      "dataset,(a) Description of property,(b) Date acquired,(c) Date sold or disposed of,(d) Proceeds (sales price),(e) Cost or other basis,(f) Code(s) from instructions,(g) Amount of adjustment,(h) Gain or (loss),term",
    );
    expect(lines.length - 1).toBe(json.rows.length);
    const lots = (await get(`/v2/lots?owner=${owner}&asOf=${year}-12-31`)).body;
    const csv = await createClient({ baseUrl: srv.url, apiKey: srv.key }).exportCsv(owner, "lots", { year });
    const rows = csv.trimEnd().split("\r\n").slice(1);
    expect(rows.length).toBe(lots.lots.length);
    expect(rows.map((l) => l.split(",")[12])).toEqual(lots.lots.map((l: { id: string }) => l.id));
  });

  test("under deferred, the tax tools' templates have no income rows and tax keeps the withholding as information", async () => {
    const owner = owners[0]!;
    const text = async (q: string) => (await fetch(`${srv.url}/v1/export?owner=${owner}&${q}`, { headers: { authorization: `Bearer ${srv.key}` } })).text();
    const income = (await text("dataset=koinly")).trimEnd().split("\r\n");
    expect(income.length).toBeGreaterThan(1);
    expect((await text("dataset=koinly&treatment=deferred")).trimEnd().split("\r\n")).toEqual([income[0]!]);
    const tax = (await text("dataset=tax")).trimEnd().split("\r\n");
    const deferred = (await text("dataset=tax&treatment=deferred")).trimEnd().split("\r\n");
    expect(deferred.length).toBe(tax.length);
    const col = (line: string, name: string) => line.split(",")[tax[0]!.split(",").indexOf(name)];
    for (let i = 1; i < tax.length; i++) {
      expect([col(deferred[i]!, "usd"), col(deferred[i]!, "grossUsd")]).toEqual(["0", "0"]);
      expect(col(deferred[i]!, "withholdingTaxUsd")).toBe(col(tax[i]!, "withholdingTaxUsd"));
    }
  });

  test("the year income report follows the treatment: under deferred every amount is 0 and the withholding is given apart, as information", async () => {
    const client = createClient({ baseUrl: srv.url, apiKey: srv.key });
    for (const year of [2025, 2026]) {
      const income = await client.v2.incomeReport(year);
      const deferred = await client.v2.incomeReport(year, { treatment: "deferred" });
      expect(schemaErrors(S.IncomeReport, deferred)).toEqual([]);
      expect([income.treatment, income.withholdingInformation, deferred.treatment]).toEqual(["income", null, "deferred"]);
      expect(deferred.totals.events).toBe(income.totals.events);
      expect([deferred.totals.exact.usd, deferred.totals.exact.grossUsd, deferred.totals.exact.withholdingTaxUsd]).toEqual(["0", "0", "0"]);
      expect(deferred.rows.every((r) => r.usd === "0" && r.grossUsd === "0")).toBe(true);
      expect(deferred.withholdingInformation!.events).toBe(income.totals.events);
      // The income reading's withholding covers the events with a net value; the information covers every event that has one.
      if (income.totals.unvaluedEvents === 0) expect(deferred.withholdingInformation!.exact.withholdingTaxUsd).toBe(income.totals.exact.withholdingTaxUsd!);
    }
    expect((await get("/v2/reports/income?year=2026&treatment=later")).status).toBe(400);
  });

  test("the client's methods read the same answers", async () => {
    const client = createClient({ baseUrl: srv.url, apiKey: srv.key });
    const owner = owners[0]!;
    expect(await client.v2.lots(owner, { method: "lifo" })).toEqual((await get(`/v2/lots?owner=${owner}&method=lifo`)).body);
    expect(await client.v2.gainsReport(2026, { owners: [owner], treatment: "deferred" })).toEqual((await get(`/v2/reports/gains?year=2026&owner=${owner}&treatment=deferred`)).body);
    expect(await client.v2.holdings("2026-06-30", { from: "2026-01-01" })).toEqual((await get("/v2/reports/holdings?asOf=2026-06-30&from=2026-01-01")).body);
  });
});

/** The rows of the markdown table that follows `marker` in docs/lots.md, as cells (header and rule left out). */
function docTable(marker: string): string[][] {
  const text = readFileSync(join(import.meta.dir, "..", "..", "docs", "lots.md"), "utf8");
  const after = text
    .slice(text.indexOf(`<!-- ${marker} -->`) + marker.length + 9)
    .trimStart()
    .split("\n");
  const lines = after.slice(
    0,
    after.findIndex((l) => !l.startsWith("|")),
  );
  return lines.slice(2).map((l) =>
    l
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

describe("the demo's gains, worked by hand in docs/lots.md#the-demos-gains", () => {
  test("the demo's gains are the ones worked in docs: every row and total, under every method and both treatments", async () => {
    // The demo's wallets in the order scripts/gen-demo.ts makes them: alice, then bob.
    const [alice, bob] = demoOwners();
    const wallet = (owner: string) => (owner === alice ? "alice" : owner === bob ? "bob" : owner);
    const rows = docTable("demo-gains-rows");
    const totals = docTable("demo-gains-totals");
    expect([rows.length, totals.length]).toEqual([10, 4]);
    for (const treatment of TAX_TREATMENTS) {
      expect((await get(`/v2/reports/gains?year=2025&treatment=${treatment}`)).body.rows).toEqual([]);
      for (const method of LOT_METHODS) {
        const r = (await get(`/v2/reports/gains?year=2026&method=${method}&treatment=${treatment}`)).body;
        const served = r.rows.map((x: { owner: string; symbol: string; acquiredAt: string; disposedAt: string; term: string; exact: Record<string, string> }) => [
          method,
          wallet(x.owner),
          x.symbol,
          x.exact.units,
          x.acquiredAt.slice(0, 10),
          x.disposedAt.slice(0, 10),
          x.exact.proceedsUsd,
          x.exact.basisUsd,
          x.exact.gainUsd,
          x.term,
        ]);
        expect({ treatment, rows: served }).toEqual({ treatment, rows: rows.filter((row) => row[0] === method) });
        const { short, long } = r.totals;
        expect({ treatment, totals: [method, short.exact.proceedsUsd, short.exact.basisUsd, short.exact.gainUsd, String(short.rows), String(long.rows)] }).toEqual({
          treatment,
          totals: totals.find((t) => t[0] === method)!,
        });
      }
    }
  });
});
