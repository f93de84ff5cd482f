// GET /v2/reports/income on the demo ledger (with an issuer correction, so the journal holds a
// reversal), served by the real server: for every year and every choice of wallets the report
// equals the sum of that year's income entries of the journal, exactly; with currency, each
// event is converted at its day's ECB rate (imported with the compiled binary from the real
// sample), else the latest earlier one, and an event with no rate makes its amounts null with a
// reason. The currencies it can be given in (GET /v2/reports/currencies) are those of the sample,
// each converting the year's events. Refusals, tenancy, wallets whose books are not visible yet,
// and the client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createClient } from "../../client/src/index.ts";
import * as S from "../../schemas/index.ts";
import { usdForPeople } from "../../src/domain/display.ts";
import { add, cmp, div, formatExact, mul, parseDecimal, rat, ratAbs, sub, ZERO, type Rat } from "../../src/domain/numbers.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { readFileSync } from "node:fs";
import { call, registerWallet, schemaErrors, startTestServer } from "../harness/index.ts";
import { appendCorrection, cli, demoDataDir, removeTempDirs, withLedger } from "../ops/helpers.ts";
import { serveDemo, type DemoServer } from "../support/demo-server.ts";
import { q } from "../support/sql.ts";

const sample = join(import.meta.dir, "..", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");

let srv: DemoServer;
let owners: string[];

beforeAll(async () => {
  const dir = await demoDataDir();
  await withLedger(dir, (l) => appendCorrection(l.db, 1));
  const imported = cli(["rates", "import", sample, "--data-dir", dir]);
  expect(imported.code).toBe(0);
  srv = await serveDemo(dir);
  owners = (await call(srv.url, "/v1/wallets", { key: srv.key })).body.wallets.map((w: { owner: string }) => w.owner);
});
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

interface JournalRow {
  owner: string;
  entry_type: string;
  effective_at: string;
  symbol: string | null;
  usd: string | null;
  payload: string;
}
const PARTS = ["grossUsd", "withholdingTaxUsd", "retainedUsd", "usd"] as const;

type Group = { events: number; unvalued: number; valued: Record<string, Rat>; lacking: Record<string, number>; unvaluedGross: Rat; unvaluedLackingGross: number };

/**
 * The year's income entries summed here, independently of the report's code: per month × symbol
 * and in total. The parts cover the events with a known net (docs/income-and-tax.md#year-report);
 * the gross of the others is apart.
 */
async function journalSums(year: number, who: string[]) {
  const rows = await srv.ledger.db.all(
    ...q<JournalRow>`SELECT owner, entry_type, effective_at, symbol, usd, payload FROM journal WHERE treatment = 'income' AND substr(effective_at, 1, 4) = ${String(year)}`,
  );
  const groups = new Map<string, Group>();
  const bump = (key: string, r: JournalRow) => {
    const g = groups.get(key) ?? { events: 0, unvalued: 0, valued: {}, lacking: {}, unvaluedGross: ZERO, unvaluedLackingGross: 0 };
    const sign = r.entry_type === "reversal" ? -1 : 1;
    g.events += sign;
    const booking = JSON.parse(r.payload) as Record<string, string | null | undefined>;
    if (r.usd === null) {
      g.unvalued += sign;
      const gross = booking.grossUsd ?? null;
      if (gross === null) g.unvaluedLackingGross += sign;
      else g.unvaluedGross = add(g.unvaluedGross, parseDecimal(gross));
    } else {
      for (const p of PARTS) {
        const v = p === "usd" ? r.usd : (booking[p] ?? null);
        if (v === null) g.lacking[p] = (g.lacking[p] ?? 0) + sign;
        else g.valued[p] = add(g.valued[p] ?? ZERO, parseDecimal(v));
      }
    }
    groups.set(key, g);
  };
  for (const r of rows.filter((r) => who.includes(r.owner))) {
    bump("totals", r);
    bump(`${r.effective_at.slice(0, 7)}|${r.symbol}`, r);
  }
  return groups;
}

/** A converted exact figure: exact when its expansion ends, else within half a unit of the 18th decimal. */
const close = (a: Rat, b: Rat) => cmp(ratAbs(sub(a, b)), rat(1n, 2n * 10n ** 18n)) <= 0;

function exactOf(g: Group) {
  const known = (p: string) => g.events - g.unvalued > 0 && !g.lacking[p];
  return {
    ...Object.fromEntries(PARTS.map((p) => [p, known(p) ? formatExact(g.valued[p] ?? ZERO) : null])),
    unvaluedGrossUsd: g.unvaluedLackingGross === 0 ? formatExact(g.unvaluedGross) : null,
  } as Record<(typeof PARTS)[number] | "unvaluedGrossUsd", string | null>;
}

async function report(query: string) {
  const a = await call(srv.url, `/v2/reports/income?${query}`, { key: srv.key });
  expect(a.status).toBe(200);
  expect(schemaErrors(S.IncomeReport, a.body)).toEqual([]);
  return a.body as import("../../client/src/index.ts").IncomeReport;
}

describe("the report is the sum of the journal", () => {
  test("the journal holds a reversal (the correction), so reversals are summed too", async () => {
    const n = (await srv.ledger.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM journal WHERE treatment = 'income' AND entry_type = 'reversal'`))!;
    expect(n.n).toBeGreaterThan(0);
  });

  for (const year of [2025, 2026]) {
    test(`${year}: all wallets, and each wallet alone, equal that year's income entries exactly`, async () => {
      for (const who of [owners, ...owners.map((o) => [o])]) {
        const q = `year=${year}${who.length === 1 ? `&owner=${who[0]}` : ""}`;
        const r = await report(q);
        expect(r.owners.sort()).toEqual([...who].sort());
        const sums = await journalSums(year, who);
        const totals = sums.get("totals")!;
        expect(totals.events).toBeGreaterThan(0);
        expect({ events: r.totals.events, unvaluedEvents: r.totals.unvaluedEvents, exact: r.totals.exact }).toEqual({ events: totals.events, unvaluedEvents: totals.unvalued, exact: exactOf(totals) });
        const rows = [...sums.entries()].filter(([k]) => k !== "totals");
        expect(r.rows.map((row) => `${row.month}|${row.symbol}`)).toEqual(rows.map(([k]) => k).sort());
        for (const row of r.rows) {
          const g = sums.get(`${row.month}|${row.symbol}`)!;
          expect({ events: row.events, unvaluedEvents: row.unvaluedEvents, exact: row.exact }).toEqual({ events: g.events, unvaluedEvents: g.unvalued, exact: exactOf(g) });
        }
      }
    });
  }

  test("2026 adds up: gross − withheld − retained = net in every row and the totals; the gross of the 3 events without a net is apart; nothing unknown reads 0", async () => {
    const r = await report("year=2026&currency=EUR");
    const exact = (v: string | null) => parseDecimal(v!);
    for (const t of [r.totals, ...r.rows]) {
      const e = t.exact;
      if (e.grossUsd === null || e.withholdingTaxUsd === null || e.retainedUsd === null || e.usd === null) continue;
      expect({ t: e, net: formatExact(sub(sub(exact(e.grossUsd), exact(e.withholdingTaxUsd)), exact(e.retainedUsd))) }).toEqual({ t: e, net: e.usd });
    }
    // The demo's 2026 breakdown is whole: its totals carry every part.
    for (const p of PARTS) expect(r.totals.exact[p]).not.toBeNull();
    // The events without a net USD (SPYx and NVOx without net cash, STRCx's last record): their gross, from their own actions.
    const unvalued = [];
    for (const owner of owners) {
      const list = (await call(srv.url, `/v2/actions?owner=${owner}&year=2026&limit=200`, { key: srv.key })).body.actions as {
        treatment: string;
        usd: string | null;
        exact: { grossUsd: string | null };
      }[];
      unvalued.push(...list.filter((a) => a.treatment === "income" && a.usd === null));
    }
    expect(unvalued.length).toBe(3);
    expect(r.totals.unvaluedEvents).toBe(3);
    expect(r.totals.exact.unvaluedGrossUsd).toBe(formatExact(unvalued.reduce((s, a) => add(s, exact(a.exact.grossUsd)), ZERO)));
    // A row whose only events have no net has no parts (unknown), never 0; in EUR too.
    const nvo = r.rows.find((row) => row.month === "2026-03" && row.symbol === "NVOx")!;
    expect(nvo).toMatchObject({ events: 1, unvaluedEvents: 1, grossUsd: null, withholdingTaxUsd: null, retainedUsd: null, usd: null, unvaluedGrossUsd: "36.820137" });
    expect(nvo.converted).toMatchObject({ gross: null, withholdingTax: null, net: null, unvaluedGross: expect.stringMatching(/^31\.6/) });
    // STRCx's August: one dividend valued (withheld 0), the other without a net: its gross is not in the row's gross.
    const strc = r.rows.find((row) => row.month === "2026-08" && row.symbol === "STRCx")!;
    expect(strc).toMatchObject({ events: 2, unvaluedEvents: 1, grossUsd: "13.372294", withholdingTaxUsd: "0", retainedUsd: "0", usd: "13.372294", unvaluedGrossUsd: "13.442108" });
  });

  test("a year without income is empty, and named wallets may be repeated", async () => {
    const r = await report(`year=2024&owner=${owners[0]}&owner=${owners[0]}`);
    expect(r.owners).toEqual([owners[0]!]);
    expect(r.rows).toEqual([]);
    expect(r.totals).toMatchObject({ events: 0, unvaluedEvents: 0, usd: null, grossUsd: null });
  });
});

describe("in another currency at the ECB's reference rates", () => {
  test("EUR: each event at its day's rate, else the latest earlier ECB day; before the imported history, null with a reason", async () => {
    const r2025 = await report("year=2025&currency=EUR");
    expect(r2025.currency).toBe("EUR");
    const december = r2025.rows.find((row) => row.month === "2025-12")!;
    // HONx on 2025-12-05: the ECB's rate of that very day, 1.1645 dollars per euro.
    expect(december.converted!.rates).toEqual([{ eventDate: "2025-12-05", rateDate: "2025-12-05", usdPerEur: "1.1645", perEur: "1", rate: "0.8587376556" }]);
    const inEuro = div(parseDecimal(december.exact.usd!), parseDecimal("1.1645"));
    expect(december.converted!.net).toBe(usdForPeople(inEuro));
    expect(close(parseDecimal(december.converted!.exact.net!), inEuro)).toBe(true);
    expect(december.converted!.reason).toBeNull();
    // Events before 2025-12-01 have no rate: their amounts are null, with the reason; so are the year's totals.
    const august = r2025.rows.find((row) => row.month === "2025-08")!;
    expect(august.converted).toMatchObject({ net: null, gross: null, reason: expect.stringContaining("No EUR reference rate on or before 2025-08-26") });
    expect(r2025.totals.converted).toMatchObject({ net: null, reason: expect.stringContaining("ca-ledger rates import") });

    const r2026 = await report("year=2026&currency=EUR");
    for (const row of r2026.rows) {
      expect(row.converted!.reason).toBeNull();
      // After the sample ends (2026-01-09), every event takes that latest earlier day's rate.
      for (const q of row.converted!.rates) expect(q).toMatchObject({ rateDate: "2026-01-09", usdPerEur: "1.1642" });
    }
    // The total is the exact sum of each event at its rate, rounded once.
    const net = r2026.rows.reduce((s, row) => (row.exact.usd === null ? s : add(s, div(parseDecimal(row.exact.usd), parseDecimal("1.1642")))), ZERO);
    expect(r2026.totals.converted!.net).toBe(usdForPeople(net));
    expect(close(parseDecimal(r2026.totals.converted!.exact.net!), net)).toBe(true);
  });

  test("JPY: (yen per euro) ÷ (dollars per euro) of the day; a currency never imported is null throughout", async () => {
    const r = await report(`year=2026&currency=JPY&owner=${owners.join("&owner=")}`);
    const january = r.rows.find((row) => row.month === "2026-01")!;
    const rate = div(parseDecimal("183.52"), parseDecimal("1.1642"));
    expect(january.converted!.rates[0]).toMatchObject({ rateDate: "2026-01-09", perEur: "183.52", usdPerEur: "1.1642", rate: "157.6361449923" });
    expect(january.converted!.net).toBe(usdForPeople(mul(parseDecimal(january.exact.usd!), rate)));
    const none = await report("year=2026&currency=XAU");
    expect(none.totals.converted).toMatchObject({ currency: "XAU", net: null });
    expect(none.totals.converted!.reason).toContain("no XAU reference rate");
    expect(none.rows.every((row) => row.converted!.net === null && row.converted!.reason !== null)).toBe(true);
  });
});

/** Each currency of the sample file with the first and last day it and the dollar are both quoted, read here from the CSV. */
function sampleCurrencies(): { currency: string; firstRateDate: string; lastRateDate: string }[] {
  const [header, ...days] = readFileSync(sample, "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(","));
  const usd = header!.indexOf("USD");
  const out = header!.flatMap((code, col) => {
    if (col === 0 || code === "") return [];
    const quoted = days
      .filter((d) => d[col] !== "N/A" && d[usd] !== "N/A")
      .map((d) => d[0]!)
      .sort();
    return quoted.length ? [{ currency: code === "USD" ? "EUR" : code, firstRateDate: quoted[0]!, lastRateDate: quoted[quoted.length - 1]! }] : [];
  });
  return out.sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

describe("the currencies it can be given in", () => {
  test("those the imported sample quotes (its all-N/A columns left out), EUR for the dollar, each with its first and last ECB day", async () => {
    const a = await call(srv.url, "/v2/reports/currencies", { key: srv.key });
    expect(a.status).toBe(200);
    expect(schemaErrors(S.ReportCurrencies, a.body)).toEqual([]);
    const expected = sampleCurrencies();
    expect(expected.length).toBe(30); // 41 columns, 11 of them N/A throughout (currencies the euro replaced, and RUB)
    expect(a.body.currencies).toEqual(expected);
    expect(a.body.dataset).toEqual((await report("year=2026")).dataset); // a list carries the dataset label
    const codes = a.body.currencies.map((c: { currency: string }) => c.currency);
    expect(codes).toContain("EUR");
    expect(codes).not.toContain("USD");
    expect(codes).not.toContain("CYP");
    expect(a.body.currencies.find((c: { currency: string }) => c.currency === "GBP")).toEqual({ currency: "GBP", firstRateDate: "2025-12-01", lastRateDate: "2026-01-09" });
    // Bulgaria adopted the euro on 2026-01-01: the ECB's last lev rate is of 2025-12-31.
    expect(a.body.currencies.find((c: { currency: string }) => c.currency === "BGN")).toEqual({ currency: "BGN", firstRateDate: "2025-12-01", lastRateDate: "2025-12-31" });
  });

  test("every listed currency converts every 2026 event; the report's lastEventDate is the year's last event, after the rates end", async () => {
    const { currencies } = (await call(srv.url, "/v2/reports/currencies", { key: srv.key })).body as { currencies: { currency: string; lastRateDate: string }[] };
    // Days whose events stand: recognitions less reversals.
    const days = await srv.ledger.db.all(
      ...q<{ day: string }>`SELECT substr(effective_at, 1, 10) AS day FROM journal WHERE treatment = 'income' AND substr(effective_at, 1, 4) = '2026'
       GROUP BY substr(effective_at, 1, 10) HAVING sum(CASE WHEN entry_type = 'reversal' THEN -1 ELSE 1 END) <> 0 ORDER BY day`,
    );
    for (const { currency, lastRateDate } of currencies) {
      const r = await report(`year=2026&currency=${currency}`);
      expect({ currency, reason: r.totals.converted!.reason, net: r.totals.converted!.net === null }).toEqual({ currency, reason: null, net: false });
      expect(r.lastEventDate).toBe(days[days.length - 1]!.day);
      expect(lastRateDate < r.lastEventDate!).toBe(true); // the picker's "rates to 2026-01-09"
    }
    expect((await report("year=2024")).lastEventDate).toBeNull();
  });

  test("a ledger with no rates imported lists none, and the client reads the same list", async () => {
    const empty = await startTestServer();
    try {
      const { key } = await empty.key(["ledger:read"]);
      const a = await call(empty.url, "/v2/reports/currencies", { key });
      expect({ status: a.status, currencies: a.body.currencies }).toEqual({ status: 200, currencies: [] });
      expect(await createClient({ baseUrl: empty.url, apiKey: key }).v2.reportCurrencies()).toEqual(a.body);
    } finally {
      await empty.close();
    }
    const c = createClient({ baseUrl: srv.url, apiKey: srv.key });
    expect(await c.v2.reportCurrencies()).toEqual((await call(srv.url, "/v2/reports/currencies", { key: srv.key })).body);
  });
});

describe("refusals and tenancy", () => {
  test("a bad year, owner or currency is 400; a wallet the tenant did not register is 404 wallet_not_registered", async () => {
    const expectError = async (q: string, status: number, code: string, says: RegExp) => {
      const a = await call(srv.url, `/v2/reports/income?${q}`, { key: srv.key });
      expect({ q, status: a.status, code: a.body.code }).toEqual({ q, status, code });
      expect(a.body.error).toMatch(says);
    };
    await expectError("", 400, "invalid_request", /year/);
    await expectError("year=twenty", 400, "invalid_request", /year/);
    await expectError("year=1800", 400, "invalid_request", /year/);
    await expectError("year=2025&currency=eur", 400, "invalid_request", /currency/);
    await expectError("year=2025&owner=not-an-address", 400, "invalid_owner", /owner/);
    await expectError(`year=2025&owner=${owners[0]}&owner=So11111111111111111111111111111111111111112`, 404, "wallet_not_registered", /not registered/);
  });

  test("another tenant sees only its own wallets; one whose first sync has not finished counts as empty", async () => {
    await registerWallet(srv.ledger.db, "other", owners[0]!, "queued");
    const { key } = await createKey(srv.ledger.db, { name: "other", tenant: "other", scopes: ["ledger:read"] });
    const a = await call(srv.url, "/v2/reports/income?year=2026", { key });
    expect(a.status).toBe(200);
    expect(a.body.owners).toEqual([owners[0]]);
    expect(a.body.rows).toEqual([]);
    expect(a.body.totals.events).toBe(0);
    const b = await call(srv.url, `/v2/reports/income?year=2026&owner=${owners[1]}`, { key });
    expect({ status: b.status, code: b.body.code }).toEqual({ status: 404, code: "wallet_not_registered" });
    const nobody = await createKey(srv.ledger.db, { name: "empty", tenant: "empty", scopes: ["ledger:read"] });
    const c = await call(srv.url, "/v2/reports/income?year=2026", { key: nobody.key });
    expect(c.body).toMatchObject({ owners: [], rows: [], totals: { events: 0 } });
  });
});

describe("the client", () => {
  test("v2.incomeReport(year, {owners, currency}) is the same report", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: srv.key });
    expect(await c.v2.incomeReport(2026)).toEqual(await report("year=2026"));
    expect(await c.v2.incomeReport(2025, { owners: [owners[1]!], currency: "EUR" })).toEqual(await report(`year=2025&owner=${owners[1]}&currency=EUR`));
    expect(await c.v2.incomeReport(2025, { owners })).toEqual(await report(`year=2025&owner=${owners[0]}&owner=${owners[1]}`));
  });
});
