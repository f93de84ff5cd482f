// The tax exports on the demo ledger, read back with a real CSV parser (csv-parse): each tool's
// header exactly as its help pages document it, its date format, every income event of the demo
// exactly once with its units, transaction hash and USD where the template has room for them, and
// nothing that is not income (the demo holds splits, spin-offs and identity changes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createClient } from "../../client/src/index.ts";
import { roundedText } from "../../src/domain/display.ts";
import { parseDecimal } from "../../src/domain/numbers.ts";
import { address, allScopes, call, registerWallet, seedWallet, startTestServer } from "../harness/index.ts";
import { serveDemoLedger, stopDemoLedger, type DemoServer } from "../support/demo-server.ts";

let srv: DemoServer;
let owners: string[];
/** Every income event of the demo, per wallet, from the API: v1 income entries whose v2 action is of treatment income. */
const income = new Map<string, { id: string; effectiveAt: string; symbol: string; units: string; usd: string | null; signature: string; type: string }[]>();
let otherTreatments = 0;

beforeAll(async () => {
  ({ srv, owners } = await serveDemoLedger());
  for (const owner of owners) {
    const entries = (await call(srv.url, `/v1/income?owner=${owner}&limit=200`, { key: srv.key })).body.entries as { id: string; incomeUnits: string; usd: string | null }[];
    const list = [];
    for (const e of entries) {
      const d = (await call(srv.url, `/v2/actions/${e.id}?owner=${owner}`, { key: srv.key })).body;
      if (d.treatment !== "income") {
        otherTreatments++;
        continue;
      }
      list.push({ id: e.id, effectiveAt: d.effectiveAt, symbol: d.symbol, units: e.incomeUnits, usd: e.usd, signature: d.chain.signature, type: d.type });
    }
    income.set(owner, list);
  }
});
afterAll(() => stopDemoLedger(srv));

async function exportOf(owner: string, dataset: string, filter = "") {
  const a = await call(srv.url, `/v1/export?owner=${owner}&dataset=${dataset}${filter}`, { key: srv.key });
  expect(a.status).toBe(200);
  expect(a.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(a.headers.get("x-ca-ledger-dataset")).toBe("synthetic");
  expect(a.headers.get("content-disposition")).toContain(`ca-ledger-${dataset}-`);
  const rows = parse(a.text, { record_delimiter: "\r\n", relax_column_count: false }) as string[][];
  return { header: rows[0]!, rows: rows.slice(1), records: parse(a.text, { columns: true, record_delimiter: "\r\n" }) as Record<string, string>[] };
}

const HEADERS = {
  koinly: "Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash",
  cointracker: "Date,Received Quantity,Received Currency,Sent Quantity,Sent Currency,Fee Amount,Fee Currency,Tag",
  coinledger: "Date (UTC),Platform (Optional),Asset Sent,Amount Sent,Asset Received,Amount Received,Fee Currency (Optional),Fee Amount (Optional),Type,Description (Optional),TxHash (Optional)",
  awaken: "Date,Received Quantity,Received Currency,Received Fiat Amount,Sent Quantity,Sent Currency,Sent Fiat Amount,Fee Amount,Fee Currency,Transaction Hash,Notes,Tag",
  tax: "dataset,date,wallet,symbol,isin,type,units,grossUsd,withholdingTaxRate,withholdingTaxUsd,retainedUsd,usd,signature,evidenceSha256,reason,warnings",
};

const koinlyDate = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)} ${iso.slice(11, 19)}`;
/** Units as written in a file: as the income entry shows them, or at 8 decimals (half-even) where the tool keeps at most 8. */
const sameUnits = (written: string, units: string) => written === units || written === roundedText(parseDecimal(units), 8);

describe("the demo's income events", () => {
  test("there are income events and events of other treatments to leave out", () => {
    expect([...income.values()].flat().length).toBe(32);
    expect(otherTreatments).toBeGreaterThan(0);
    expect([...income.values()].flat().some((e) => e.usd === null)).toBe(true);
    expect([...income.values()].flat().some((e) => e.type === "withholding_adjustment")).toBe(true);
  });
});

describe("each file", () => {
  for (const [dataset, header] of Object.entries(HEADERS)) {
    test(`${dataset}: the exact header, the date format, every income event once and nothing else`, async () => {
      for (const owner of owners) {
        const events = income.get(owner)!;
        const file = await exportOf(owner, dataset);
        expect(file.header.join(",")).toBe(header);
        expect(file.rows.length).toBe(events.length);
        const r = file.records;
        switch (dataset) {
          case "koinly":
            for (const row of r) expect(row.Date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
            expect(r.map((row) => row.TxHash).sort()).toEqual(events.map((e) => e.signature).sort());
            for (const e of events) {
              const row = r.find((x) => x.TxHash === e.signature)!;
              expect(row).toMatchObject({
                Date: koinlyDate(e.effectiveAt),
                "Received Currency": e.symbol,
                "Net Worth Amount": e.usd ?? "",
                "Net Worth Currency": e.usd === null ? "" : "USD",
                Label: "income",
                "Sent Amount": "",
                "Sent Currency": "",
              });
              expect(sameUnits(row["Received Amount"]!, e.units)).toBe(true);
            }
            break;
          case "cointracker":
            // No hash column in this template: each event is its date, symbol and units, once.
            for (const row of r) expect(row.Date).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
            expect(r.map((row) => `${row.Date}|${row["Received Currency"]}|${row["Received Quantity"]}`).sort()).toEqual(events.map((e) => `${usDate(e.effectiveAt)}|${e.symbol}|${e.units}`).sort());
            for (const row of r) expect(row).toMatchObject({ Tag: "interest", "Sent Quantity": "", "Sent Currency": "", "Fee Amount": "" });
            break;
          case "coinledger":
            expect(r.map((row) => row["TxHash (Optional)"]).sort()).toEqual(events.map((e) => e.signature).sort());
            for (const e of events) {
              const row = r.find((x) => x["TxHash (Optional)"] === e.signature)!;
              expect(row).toMatchObject({
                "Date (UTC)": usDate(e.effectiveAt),
                "Asset Received": e.symbol,
                "Amount Received": e.units,
                Type: "Income",
                "Asset Sent": "",
                "Amount Sent": "",
                "Platform (Optional)": "",
              });
            }
            break;
          case "awaken":
            expect(r.map((row) => row["Transaction Hash"]).sort()).toEqual(events.map((e) => e.signature).sort());
            for (const e of events) {
              const row = r.find((x) => x["Transaction Hash"] === e.signature)!;
              expect(row).toMatchObject({ Date: usDate(e.effectiveAt), "Received Currency": e.symbol, "Received Fiat Amount": e.usd ?? "", Tag: "rewards_income", "Sent Quantity": "" });
              expect(row["Received Quantity"]).toMatch(/^\d+(\.\d{1,8})?$/); // no negatives, at most 8 decimals
              expect(sameUnits(row["Received Quantity"]!, e.units)).toBe(true);
            }
            break;
          case "tax":
            expect(r.map((row) => row.signature).sort()).toEqual(events.map((e) => e.signature).sort());
            for (const e of events) {
              const row = r.find((x) => x.signature === e.signature)!;
              expect(row).toMatchObject({ dataset: "synthetic", date: e.effectiveAt, wallet: owner, symbol: e.symbol, type: e.type, units: e.units, usd: e.usd ?? "" });
              expect(row.evidenceSha256).toMatch(/^[0-9a-f]{64}$/);
              expect(row.isin).toMatch(/^[A-Z]{2}[A-Z0-9]{9}\d$/);
              expect(row.reason!.length).toBeGreaterThan(0);
            }
            break;
        }
      }
    });
  }
});

describe("filters and the client", () => {
  test("a year's file holds that year's events only", async () => {
    for (const owner of owners) {
      for (const year of [2025, 2026]) {
        const want = income.get(owner)!.filter((e) => e.effectiveAt.startsWith(String(year)));
        const file = await exportOf(owner, "awaken", `&year=${year}`);
        expect(file.records.map((r) => r["Transaction Hash"]).sort()).toEqual(want.map((e) => e.signature).sort());
      }
    }
  });

  test("exportCsv with a tool's dataset and a date filter is the same file", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: srv.key });
    const owner = owners[0]!;
    const text = await c.exportCsv(owner, "coinledger", { from: "2026-01-01", to: "2026-06-30" });
    expect(text).toBe((await call(srv.url, `/v1/export?owner=${owner}&dataset=coinledger&from=2026-01-01&to=2026-06-30`, { key: srv.key })).text);
    expect(text.split("\r\n")[0]).toBe(HEADERS.coinledger);
  });

  test("the file is named for the period it covers, not the day it was made, and for the treatment (docs/lots.md#exports)", async () => {
    const owner = owners[0]!;
    const nameOf = async (filter: string) =>
      /filename="([^"]+)"/.exec((await call(srv.url, `/v1/export?owner=${owner}&dataset=koinly${filter}`, { key: srv.key })).headers.get("content-disposition") ?? "")?.[1];
    const who = owner.slice(0, 8);
    expect(await nameOf("&year=2025")).toBe(`ca-ledger-koinly-${who}-2025-income.csv`);
    expect(await nameOf("&from=2026-01-01&to=2026-06-30")).toBe(`ca-ledger-koinly-${who}-2026-01-01_2026-06-30-income.csv`);
    expect(await nameOf("&from=2026-01-01")).toBe(`ca-ledger-koinly-${who}-from-2026-01-01-income.csv`);
    expect(await nameOf("&to=2025-12-31")).toBe(`ca-ledger-koinly-${who}-to-2025-12-31-income.csv`);
    expect(await nameOf("")).toBe(`ca-ledger-koinly-${who}-to-${new Date().toISOString().slice(0, 10)}-income.csv`);
  });
});

describe("the formula guard", () => {
  test("a text cell a spreadsheet would run is quoted in every file; amounts are left as numbers", async () => {
    const server = await startTestServer();
    try {
      const key = (await server.key([...allScopes])).key;
      const owner = address("tax:formula");
      await registerWallet(server.db, "acme", owner);
      await seedWallet(server.db, owner, 4, { reasonFor: (i) => (i === 0 ? '=HYPERLINK("http://x","y")' : undefined) });
      for (const [dataset, column] of [
        ["tax", "reason"],
        ["koinly", "Description"],
        ["coinledger", "Description (Optional)"],
        ["awaken", "Notes"],
      ] as const) {
        const a = await call(server.url, `/v1/export?owner=${owner}&dataset=${dataset}`, { key });
        const rows = parse(a.text, { columns: true, record_delimiter: "\r\n" }) as Record<string, string>[];
        const guarded = rows.find((r) => r[column]!.includes("HYPERLINK"))!;
        expect({ dataset, cell: guarded[column] }).toEqual({ dataset, cell: `'=HYPERLINK("http://x","y")` });
        for (const r of rows) expect(Object.values(r).some((v) => /^'[0-9]/.test(v))).toBe(false);
      }
    } finally {
      await server.close();
    }
  });
});
