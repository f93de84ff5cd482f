// Date filters on /v1/income, /v1/journal, /v2/actions and /v1/export against the real server:
// every filtered page is the unfiltered list restricted to those days, with total and nextOffset
// counting what the filter keeps; refusals are 400 invalid_request naming the parameter; the
// client passes the filters; and every list query reads an index on owner × effective_at.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createClient } from "../../client/src/index.ts";
import { bind, type Query } from "../../src/ledger/sql/statement.ts";
import { actionSql } from "../../src/ledger/tables/actions.ts";
import { journalSql } from "../../src/ledger/tables/journal.ts";
import { sqliteOf } from "../../src/ledger/db.ts";
import { address, allScopes, call, registerWallet, seedWallet, startTestServer, type Answer, type TestServer } from "../harness/index.ts";
import { q } from "../support/sql.ts";

let srv: TestServer;
let key: string;
const owner = address("dates:owner");

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key([...allScopes])).key;
  await registerWallet(srv.db, "acme", owner);
  // 45 actions, one a day from 2025-01-01 to 2025-02-14 (cash dividends, splits, stock dividends, announced).
  await seedWallet(srv.db, owner, 45);
});
afterAll(async () => {
  await srv?.close();
});

const lists = [
  { path: "/v1/income", items: "entries" },
  { path: "/v1/journal", items: "entries" },
  { path: "/v2/actions", items: "actions" },
] as const;

type Item = { id: string | number; effectiveAt: string | null };
const dayOf = (i: Item) => (i.effectiveAt ?? "").slice(0, 10);

async function everyPage(path: string, items: string, filter: string, limit: number) {
  const out: Item[] = [];
  let offset: number | null = 0;
  let total = -1;
  while (offset !== null) {
    const a: Answer = await call(srv.url, `${path}?owner=${owner}${filter}&limit=${limit}&offset=${offset}`, { key });
    expect(a.status).toBe(200);
    if (total >= 0) expect(a.body.total).toBe(total);
    total = a.body.total;
    out.push(...a.body[items]);
    const next: number | null = a.body.nextOffset;
    expect(next === null ? out.length : next).toBe(out.length);
    offset = next;
  }
  expect(out.length).toBe(total);
  return out;
}

const filters = [
  { q: "&from=2025-01-10&to=2025-01-20", keep: (d: string) => d >= "2025-01-10" && d <= "2025-01-20" },
  { q: "&from=2025-02-01", keep: (d: string) => d >= "2025-02-01" },
  { q: "&to=2025-01-05", keep: (d: string) => d <= "2025-01-05" },
  { q: "&from=2025-01-31&to=2025-01-31", keep: (d: string) => d === "2025-01-31" },
  { q: "&year=2025", keep: (d: string) => d.startsWith("2025") },
  { q: "&year=2024", keep: (d: string) => d.startsWith("2024") },
];

describe("lists", () => {
  for (const { path, items } of lists) {
    test(`${path}: each filter keeps exactly its days, in the same order, paged with total and nextOffset`, async () => {
      const all = await everyPage(path, items, "", 200);
      expect(all.length).toBeGreaterThan(20);
      for (const f of filters) {
        const want = all.filter((i) => f.keep(dayOf(i)));
        const got = await everyPage(path, items, f.q, 4);
        expect(got.map((i) => i.id)).toEqual(want.map((i) => i.id));
      }
      // The bounds are whole UTC days: an action at 00:00 on `to` is in, one on the next day out.
      const onTo = all.filter((i) => dayOf(i) === "2025-01-21");
      expect(onTo.length).toBeGreaterThan(0);
      const upTo = await everyPage(path, items, "&to=2025-01-21", 200);
      expect(upTo.every((i) => dayOf(i) <= "2025-01-21")).toBe(true);
      expect(upTo.map((i) => i.id)).toEqual(expect.arrayContaining(onTo.map((i) => i.id)));
    });
  }

  test("/v1/export: every dataset keeps exactly the filtered rows", async () => {
    const journal = (await call(srv.url, `/v1/journal?owner=${owner}&limit=200`, { key })).body.entries as Item[];
    const income = (await call(srv.url, `/v1/income?owner=${owner}&limit=200`, { key })).body.entries as (Item & { kind: string })[];
    const inRange = (i: Item) => dayOf(i) >= "2025-01-10" && dayOf(i) <= "2025-01-20";
    const csv = async (dataset: string) => {
      const a = await call(srv.url, `/v1/export?owner=${owner}&dataset=${dataset}&from=2025-01-10&to=2025-01-20`, { key });
      expect(a.status).toBe(200);
      return parse(a.text, { columns: true, record_delimiter: "\r\n" }) as Record<string, string>[];
    };
    expect((await csv("journal")).map((r) => r.id)).toEqual(journal.filter(inRange).map((i) => String(i.id)));
    expect((await csv("income")).map((r) => r.id)).toEqual(income.filter(inRange).map((i) => String(i.id)));
    const dividends = income.filter((i) => inRange(i) && i.kind === "dividend");
    expect((await csv("tax")).map((r) => r.date).sort()).toEqual(dividends.map((i) => i.effectiveAt!).sort());
    expect((await csv("koinly")).length).toBe(dividends.length);
  });
});

describe("refusals: 400 invalid_request naming the parameter, before the tenant check", () => {
  const stranger = address("dates:not-registered");
  const cases: [string, RegExp][] = [
    ["&year=2025&from=2025-01-01", /year.*from or to/],
    ["&year=2025&to=2025-01-01", /year.*from or to/],
    ["&from=2025-02-30", /parameter from/],
    ["&to=2025-13-01", /parameter to/],
    ["&from=2025-1-1", /parameter from/],
    ["&to=yesterday", /parameter to/],
    ["&from=2025-03-01&to=2025-02-28", /from is after to/],
    ["&year=abc", /parameter year/],
    ["&year=1969", /parameter year/],
    ["&year=2025.5", /parameter year/],
    ["&year=%202025", /parameter year/],
  ];
  for (const route of ["/v1/income", "/v1/journal", "/v2/actions", "/v1/export"]) {
    test(route, async () => {
      for (const [q, message] of cases) {
        for (const who of [owner, stranger]) {
          const a = await call(srv.url, `${route}?owner=${who}${q}`, { key });
          expect({ q, status: a.status, code: a.body.code }).toEqual({ q, status: 400, code: "invalid_request" });
          expect(a.body.error).toMatch(message);
        }
      }
    });
  }
});

describe("the client", () => {
  test("income, journal, v2.actions, exportCsv and exportUrl pass from, to and year", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const http = async (p: string) => (await call(srv.url, p, { key })).body;
    expect(await c.income(owner, { from: "2025-01-10", to: "2025-01-20", limit: 3, offset: 1 })).toEqual(await http(`/v1/income?owner=${owner}&from=2025-01-10&to=2025-01-20&limit=3&offset=1`));
    expect(await c.journal(owner, { year: 2025, limit: 5 })).toEqual(await http(`/v1/journal?owner=${owner}&year=2025&limit=5`));
    expect(await c.v2.actions(owner, { from: "2025-02-01" })).toEqual(await http(`/v2/actions?owner=${owner}&from=2025-02-01`));
    expect((await c.income(owner, { year: 2024 })).total).toBe(0);
    expect(c.exportUrl(owner, "koinly", { year: 2025 })).toBe(`${srv.url}/v1/export?owner=${owner}&dataset=koinly&year=2025`);
    const text = await c.exportCsv(owner, "tax", { from: "2025-01-01", to: "2025-01-03" });
    expect(text.split("\r\n")[0]!.startsWith("dataset,date,wallet,symbol,isin,type")).toBe(true);
  });
});

describe("the list queries read indexes on owner × effective_at", () => {
  // Each statement's own parameters, from these (a page of 50, two v1 kinds).
  const params = { owner, from: "2025-01-01", before: "2025-02-01", limit: 50, offset: 0, kinds: ["dividend", "split"], actionId: "act_000000000000000000000000" };
  const plan = async (statement: Query): Promise<string> => {
    const ledger = srv.ledger;
    if (ledger.engine === "sqlite") {
      return (
        sqliteOf(ledger)
          .query(`EXPLAIN QUERY PLAN ${statement.sqlite.text}`)
          .all(...bind(statement.sqlite, params)) as { detail: string }[]
      )
        .map((r) => r.detail)
        .join(" | ");
    }
    // PostgreSQL plans a table this small as a sequential scan: with that turned off, the plan
    // shows the index the query can be answered from.
    return ledger.db.client.begin(async (c) => {
      await c.unsafe("SET LOCAL enable_seqscan = off");
      return ((await c.unsafe(`EXPLAIN ${statement.postgres.text}`, bind(statement.postgres, params))) as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join(" | ");
    });
  };
  /**
   * SQLite's plan names the index and the range it reads. PostgreSQL chooses among the indexes on
   * owner by its statistics (on a table this small, any of them): its plan must read an index by
   * owner, never the whole table.
   */
  const expectIndex = (p: string, sqlite: RegExp) => {
    if (srv.ledger.engine === "sqlite") return expect(p).toMatch(sqlite);
    expect(p).toMatch(/Index (Only )?Scan (Backward )?using (actions|journal)_owner\w* on .*Index Cond: \(+(\w+\.)?owner = /);
    expect(p).not.toMatch(/Seq Scan/);
  };
  const cases: [string, Query, RegExp][] = [
    ["v2 count", actionSql.count, /USING COVERING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["v2 page", actionSql.page, /USING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["v1 count", actionSql.v1Count, /USING COVERING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["v1 page", actionSql.v1Page, /USING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["v1 count of kinds", actionSql.v1CountOfKinds, /USING COVERING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["v1 page of kinds", actionSql.v1PageOfKinds, /USING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["journal count", journalSql.count, /USING COVERING INDEX journal_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    // The journal lists in effective-time order, ties by id: read off the index in its own order.
    ["journal page", journalSql.page, /USING INDEX journal_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["journal count of kinds", journalSql.countOfKinds, /USING INDEX journal_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["journal page of kinds", journalSql.pageOfKinds, /USING INDEX journal_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["year report", journalSql.incomeEntries, /USING INDEX journal_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
    ["tax export", actionSql.taxEvents, /USING INDEX actions_owner_effective \(owner=\? AND effective_at>\? AND effective_at<\?\)/],
  ];
  for (const [name, statement, want] of cases) {
    test(name, async () => {
      const p = await plan(statement);
      expectIndex(p, want);
      expect(p).not.toMatch(/SCAN (actions|journal|a)\b(?! USING)/);
      expect(p).not.toContain("USE TEMP B-TREE FOR ORDER BY");
    });
  }

  // An action's entries (its detail) are read off the index on the wallet's first characters and
  // the action id (docs/storage.md#indexes), by key: not the wallet's entries, which can be thousands.
  test("an action's entries", async () => {
    const p = await plan(journalSql.ofAction);
    if (srv.ledger.engine === "sqlite") expect(p).toMatch(/^SEARCH journal USING INDEX journal_action \(<expr>=\?\)$/);
    else expect(p).toMatch(/Index Scan using journal_action on journal .*Index Cond: \(\(substr\(owner, 1, 4\) \|\| action_id\) = /);
  });
});
