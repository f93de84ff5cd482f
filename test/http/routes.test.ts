// Every route over real HTTP on loopback: success and error paths, headers, paging, CSV, and
// every body (success and error) checked against its TypeBox schema in schemas/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import * as S from "../../schemas/index.ts";
import {
  address,
  bookingOf,
  call,
  insertAction,
  insertInstrument,
  insertJournal,
  makeAction,
  mints,
  randomAddress,
  registerWallet,
  schemaErrors,
  seedWallet,
  startTestServer,
  type Answer,
  type SeededWallet,
  type TestServer,
} from "../harness/index.ts";
import { parseCsv } from "../harness/csv.ts";
import { q } from "../support/sql.ts";

let srv: TestServer;
let key: string; // all scopes, tenant acme
let seeded: SeededWallet;
const owner = address("routes:owner");
const emptyOwner = address("routes:empty");
const unknownOwner = address("routes:unknown");

function expectSchema(schema: TSchema, a: Answer) {
  expect(schemaErrors(schema, a.body)).toEqual([]);
}

/** An error answer: status, code, the status's error schema, and the generic error body. */
function expectError(a: Answer, status: number, code: string, mentions?: string | RegExp) {
  expect({ status: a.status, code: a.body?.code }).toEqual({ status, code });
  expect(a.headers.get("content-type") ?? "").toContain("application/json");
  expect(Object.keys(a.body).sort()).toEqual(["code", "error"]);
  expect(schemaErrors(S.ErrorBody, a.body)).toEqual([]);
  const byStatus = (S.errors as Record<number, TSchema>)[status];
  expect(byStatus).toBeDefined();
  expect(schemaErrors(byStatus!, a.body)).toEqual([]);
  expect(a.body.error.length).toBeGreaterThan(5);
  if (mentions !== undefined) expect(a.body.error).toMatch(mentions);
}

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key()).key;
  await registerWallet(srv.db, "acme", owner);
  await registerWallet(srv.db, "acme", emptyOwner, "queued");
  seeded = await seedWallet(srv.db, owner, 7);
  for (const inst of Object.values(mints)) await insertInstrument(srv.db, inst);
});
afterAll(async () => {
  await srv?.close();
});

const get = (path: string, k: string | null = key) => call(srv.url, path, { key: k });

describe("health and openapi (no key)", () => {
  test("GET /v1/health answers 200 with version and dataset, no key needed", async () => {
    const a = await get("/v1/health", null);
    expect(a.status).toBe(200);
    expectSchema(S.Health, a);
    expect(a.body.status).toBe("ok");
    expect(a.body.dataset).toEqual({ kind: "mainnet", description: null });
    expect(a.headers.get("x-ca-ledger-dataset")).toBe("mainnet");
    expect(a.headers.get("ratelimit-limit")).toBeNull();
  });
  test("health ignores a bad key instead of refusing it", async () => {
    const a = await get("/v1/health", "cal_nope");
    expect(a.status).toBe(200);
  });
  test("GET /v1/openapi.json answers without a key", async () => {
    const a = await get("/v1/openapi.json", null);
    expect(a.status).toBe(200);
    expect(a.body.openapi).toMatch(/^3\./);
  });
});

describe("v1 assets and wallets", () => {
  test("GET /v1/assets lists instruments with the multiplier in force", async () => {
    const a = await get("/v1/assets");
    expect(a.status).toBe(200);
    expectSchema(S.AssetsResponse, a);
    const nv = a.body.assets.find((x: { symbol: string }) => x.symbol === "NVDAx");
    // The exact decimal expansion of the f64 the chain holds (1.0025 is not a binary fraction).
    expect(nv).toMatchObject({ mint: mints.NVDAx.mint, decimals: 8, multiplier: "1.002499999999999946709294817992486059665679931640625" });
  });

  test("POST /v1/wallets/sync: 202 registered/enqueued, then already_registered/already_pending", async () => {
    const w = randomAddress();
    const first = await call(srv.url, "/v1/wallets/sync", { key, body: { owner: w } });
    expect(first.status).toBe(202);
    expectSchema(S.SyncRequestResponse, first);
    expect(first.body).toEqual({ owner: w, registration: "registered", status: "queued", job: "enqueued" });
    const again = await call(srv.url, "/v1/wallets/sync", { key, body: { owner: w } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ owner: w, registration: "already_registered", status: "queued", job: "already_pending" });
  });

  test("POST /v1/wallets/sync on a finished sync queues it again (enqueued)", async () => {
    const w = randomAddress();
    await registerWallet(srv.db, "acme", w, "complete");
    const a = await call(srv.url, "/v1/wallets/sync", { key, body: { owner: w } });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({ owner: w, registration: "already_registered", status: "queued", job: "enqueued" });
    const st = await get(`/v1/wallets/${w}/status`);
    expect(st.body.status).toBe("queued");
  });

  test("POST /v1/wallets/sync on a running sync is already_pending with status running", async () => {
    const w = randomAddress();
    await registerWallet(srv.db, "acme", w, "running");
    const a = await call(srv.url, "/v1/wallets/sync", { key, body: { owner: w } });
    expect(a.body).toEqual({ owner: w, registration: "already_registered", status: "running", job: "already_pending" });
  });

  test("POST /v1/wallets/sync validation: missing owner, extra field, not JSON, not an object, bad owner", async () => {
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: {} }), 400, "invalid_request", /owner/);
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: { owner: randomAddress(), extra: 1 } }), 400, "invalid_request", /extra/);
    expectError(await call(srv.url, "/v1/wallets/sync", { key, rawBody: "{not json", headers: { "content-type": "application/json" } }), 400, "invalid_request", /JSON|body/);
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: [1, 2] }), 400, "invalid_request", /body/);
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: { owner: 42 } }), 400, "invalid_request", /owner/);
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: { owner: "not-a-wallet" } }), 400, "invalid_owner", /owner/);
    // 31 bytes of base58: right alphabet, wrong length.
    expectError(await call(srv.url, "/v1/wallets/sync", { key, body: { owner: "1111111111111111111111111111111" } }), 400, "invalid_owner");
  });

  test("POST /v1/wallets/sync with a body over 16 KiB is 413 payload_too_large", async () => {
    const padded = `{"owner":"${randomAddress()}"${" ".repeat(17 * 1024)}}`;
    expectError(await call(srv.url, "/v1/wallets/sync", { key, rawBody: padded, headers: { "content-type": "application/json" } }), 413, "payload_too_large");
  });

  test("a chunked body over 16 KiB (no content-length) is also 413", async () => {
    const padded = `{"owner":"${randomAddress()}"${" ".repeat(20 * 1024)}}`;
    const body = new ReadableStream({
      start(c) {
        const bytes = new TextEncoder().encode(padded);
        for (let i = 0; i < bytes.length; i += 4096) c.enqueue(bytes.slice(i, i + 4096));
        c.close();
      },
    });
    const res = await fetch(srv.url + "/v1/wallets/sync", { method: "POST", body, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } });
    const a: Answer = { status: res.status, headers: res.headers, text: "", body: await res.json() };
    expectError(a, 413, "payload_too_large");
  });

  test("POST /v1/wallets/sync beyond the server's MAX_WALLETS_PER_TENANT is 403 wallet_quota_exceeded", async () => {
    const tiny = await startTestServer({ MAX_WALLETS_PER_TENANT: "1" });
    try {
      const k = (await tiny.key(["wallets:sync", "ledger:read"], "tiny")).key;
      const first = await call(tiny.url, "/v1/wallets/sync", { key: k, body: { owner: randomAddress() } });
      expect(first.status).toBe(202);
      const second = await call(tiny.url, "/v1/wallets/sync", { key: k, body: { owner: randomAddress() } });
      expectError(second, 403, "wallet_quota_exceeded", /1/);
      // Re-requesting an already registered wallet is not a new wallet: still allowed.
      const again = await call(tiny.url, "/v1/wallets/sync", { key: k, body: { owner: first.body.owner } });
      expect(again.status).toBe(202);
      const w = await call(tiny.url, "/v1/wallets", { key: k });
      expect(w.body.maxWallets).toBe(1);
      expect(w.body.wallets).toHaveLength(1);
    } finally {
      await tiny.close();
    }
  });

  test("GET /v1/wallets lists this tenant's wallets with status", async () => {
    const a = await get("/v1/wallets");
    expect(a.status).toBe(200);
    expectSchema(S.WalletsResponse, a);
    expect(a.body.tenant).toBe("acme");
    expect(a.body.maxWallets).toBe(100);
    const mine = a.body.wallets.find((w: { owner: string }) => w.owner === owner);
    expect(mine.status).toBe("complete");
    expect(a.body.wallets.find((w: { owner: string }) => w.owner === emptyOwner).status).toBe("queued");
  });

  test("GET /v1/wallets/{owner}/status: 200, 404 wallet_not_registered, 400 invalid_owner", async () => {
    const a = await get(`/v1/wallets/${owner}/status`);
    expect(a.status).toBe(200);
    expectSchema(S.SyncStatusResponse, a);
    expect(a.body).toMatchObject({ owner, status: "complete", progress: { phase: "done", done: 3, total: 3 }, transactionsFetched: 7, gaps: [], error: null });
    expectError(await get(`/v1/wallets/${unknownOwner}/status`), 404, "wallet_not_registered");
    expectError(await get(`/v1/wallets/not-base58-0OIl/status`), 400, "invalid_owner");
    const long = "A".repeat(80);
    const tooLong = await get(`/v1/wallets/${long}/status`);
    expect(tooLong.status).toBe(400);
    expect(["invalid_request", "invalid_owner"]).toContain(tooLong.body.code);
    expectError(tooLong, 400, tooLong.body.code, /owner/);
  });
});

describe("v1 ledger reads", () => {
  test("GET /v1/portfolio: positions, totals, unclassified adjustments", async () => {
    const a = await get(`/v1/portfolio?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.Portfolio, a);
    expect(a.body.owner).toBe(owner);
    expect(a.body.dataset).toEqual({ kind: "mainnet", description: null });
    expect(a.body.positions).toHaveLength(2);
    // Seeded: one stock dividend with a v1 entry (index 2) → one unclassified adjustment.
    expect(a.body.unclassifiedAdjustments).toBe(1);
    // Three cash dividends of 1.75 USD recognized in the journal.
    expect(a.body.totals.incomeUsd).toBe("5.25");
  });

  test("GET /v1/portfolio for a registered wallet with no data is an empty portfolio", async () => {
    const a = await get(`/v1/portfolio?owner=${emptyOwner}`);
    expect(a.status).toBe(200);
    expectSchema(S.Portfolio, a);
    expect(a.body.positions).toEqual([]);
    expect(a.body.totals).toEqual({ incomeUsd: "0", unvaluedIncomeEvents: 0, exact: { incomeUsd: "0" } });
  });

  test("wallet-scoped query routes: missing owner 400 naming owner, bad owner 400 invalid_owner, unknown 404", async () => {
    for (const path of ["/v1/portfolio", "/v1/income", "/v1/journal", "/v1/yield", "/v1/export", "/v2/actions", `/v1/income/${seeded.actions[0]!.id}`, `/v2/actions/${seeded.actions[0]!.id}`]) {
      const sep = path.includes("?") ? "&" : "?";
      expectError(await get(path), 400, "invalid_request", /owner/);
      expectError(await get(`${path}${sep}owner=abc`), 400, "invalid_owner", /owner/);
      expectError(await get(`${path}${sep}owner=${unknownOwner}`), 404, "wallet_not_registered", /POST \/v1\/wallets\/sync|regist/);
    }
  });

  test("GET /v1/income: v1 entries newest first, announced actions hidden", async () => {
    const a = await get(`/v1/income?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.IncomeList, a);
    // 7 actions, one announced (index 4) has no v1 entry.
    expect(a.body.total).toBe(6);
    expect(a.body.nextOffset).toBeNull();
    const times = a.body.entries.map((e: { effectiveAt: string }) => e.effectiveAt);
    expect(times).toEqual([...times].sort().reverse());
    const kinds = new Set(a.body.entries.map((e: { kind: string }) => e.kind));
    expect(kinds).toEqual(new Set(["dividend", "split", "unclassified_adjustment"]));
    const split = a.body.entries.find((e: { kind: string }) => e.kind === "split");
    expect(split.splitFactor).toBe("10");
    const stock = a.body.entries.find((e: { kind: string }) => e.kind === "unclassified_adjustment");
    expect(stock.splitFactor).toBeNull();
    expect(stock.reasons[0]).toContain("Stock dividend booked as a quantity adjustment, not income");
  });

  test("paging on income, journal and v2 actions: limit 1–200, offset ≥ 0, total and nextOffset", async () => {
    for (const [path, listKey, total] of [
      ["/v1/income", "entries", 6],
      ["/v1/journal", "entries", 6],
      ["/v2/actions", "actions", 7],
    ] as const) {
      const seen: unknown[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const a = await get(`${path}?owner=${owner}&limit=2&offset=${offset}`);
        expect(a.status).toBe(200);
        expect(a.body.total).toBe(total);
        expect(a.body[listKey].length).toBeLessThanOrEqual(2);
        seen.push(...a.body[listKey].map((x: { id: unknown }) => x.id));
        offset = a.body.nextOffset;
        if (offset !== null) expect(offset).toBe(seen.length);
        pages++;
      }
      expect(pages).toBe(Math.ceil(total / 2));
      expect(new Set(seen).size).toBe(total);
      const full = await get(`${path}?owner=${owner}`);
      expect(full.body[listKey].map((x: { id: unknown }) => x.id)).toEqual(seen);
      // limit 1 and limit 200 are the edges that pass.
      const one = await get(`${path}?owner=${owner}&limit=1`);
      expect(one.body[listKey]).toHaveLength(1);
      expect(one.body.nextOffset).toBe(1);
      expect((await get(`${path}?owner=${owner}&limit=200`)).status).toBe(200);
      // Beyond the end: empty page, nextOffset null.
      const past = await get(`${path}?owner=${owner}&offset=1000`);
      expect(past.status).toBe(200);
      expect(past.body[listKey]).toEqual([]);
      expect(past.body.total).toBe(total);
      expect(past.body.nextOffset).toBeNull();
      for (const bad of ["limit=0", "limit=201", "limit=-1", "limit=abc", "limit=1.5", "limit="]) {
        expectError(await get(`${path}?owner=${owner}&${bad}`), 400, "invalid_request", /limit/);
      }
      for (const bad of ["offset=-1", "offset=x", "offset=0.5"]) {
        expectError(await get(`${path}?owner=${owner}&${bad}`), 400, "invalid_request", /offset/);
      }
    }
  });

  test("GET /v1/income/{id}: detail with chain block, classification and journal; 404 not_found", async () => {
    const stock = seeded.actions[2]!;
    const a = await get(`/v1/income/${stock.id}?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.IncomeDetail, a);
    expect(a.body.id).toBe(stock.id);
    expect(a.body.kind).toBe("unclassified_adjustment");
    expect(a.body.evidence.classification.result).toBe("unclassified");
    expect(a.body.chain.effectiveAt).toBe(stock.effectiveAt);
    expect(a.body.journal).toHaveLength(1);
    expect(a.body.dataset.kind).toBe("mainnet");
    const div = await get(`/v1/income/${seeded.actions[0]!.id}?owner=${owner}`);
    expect(div.body.evidence.classification.result).toBe("dividend");
    expect(div.body.evidence.issuerRecord.eventId).toBe(seeded.actions[0]!.matched!.eventId);
    expectError(await get(`/v1/income/act_unknown?owner=${owner}`), 404, "not_found");
    // The announced action has no v1 entry.
    expectError(await get(`/v1/income/${seeded.actions[4]!.id}?owner=${owner}`), 404, "not_found");
    // Another registered wallet of the same tenant does not see this wallet's entry.
    expectError(await get(`/v1/income/${stock.id}?owner=${emptyOwner}`), 404, "not_found");
    expectError(await get(`/v1/income/${"x".repeat(200)}?owner=${owner}`), 400, "invalid_request", /id/);
  });

  test("GET /v1/journal: entries by id, newest first", async () => {
    const a = await get(`/v1/journal?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.JournalList, a);
    const ids = a.body.entries.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...seeded.journalIds].reverse());
    expect(a.body.entries[0].entryType).toBe("recognition");
  });

  test("GET /v1/yield: windows per position", async () => {
    const a = await get(`/v1/yield?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.YieldResponse, a);
    expect(a.body.positions).toHaveLength(1);
    expect(a.body.positions[0].windows.map((w: { window: string }) => w.window)).toEqual(["trailing_30d", "trailing_365d", "tracked"]);
    const empty = await get(`/v1/yield?owner=${emptyOwner}`);
    expect(empty.body.positions).toEqual([]);
  });
});

describe("CSV export", () => {
  const csvOwner = address("routes:csv");
  beforeAll(async () => {
    await registerWallet(srv.db, "acme", csvOwner);
    const evil = makeAction(csvOwner, 0, "cash_dividend", { symbol: '=HYPERLINK("http://x")' });
    await insertAction(srv.db, evil);
    await insertJournal(srv.db, bookingOf(evil));
    const plain = makeAction(csvOwner, 1, "forward_split");
    await insertAction(srv.db, plain);
    const b = bookingOf(plain);
    const id = await insertJournal(srv.db, b);
    await insertJournal(
      srv.db,
      { ...b, unitsDelta: "-" + b.unitsDelta, principalUnitsDelta: "-" + b.principalUnitsDelta },
      { entryType: "reversal", reversesId: id, changeReason: '@SUM(1,2) "quoted"\nsecond line' },
    );
    for (const [i, lead] of ["+", "-", "\t", "\r"].entries()) {
      const a = makeAction(csvOwner, 10 + i, "cash_dividend", { symbol: `${lead}cmd` });
      await insertAction(srv.db, a);
      await insertJournal(srv.db, bookingOf(a));
    }
  });

  async function exportOf(dataset?: string) {
    const a = await get(`/v1/export?owner=${csvOwner}${dataset ? `&dataset=${dataset}` : ""}`);
    expect(a.status).toBe(200);
    expect(schemaErrors(S.CsvText, a.text)).toEqual([]);
    return a;
  }

  for (const dataset of [undefined, "journal", "income"] as const) {
    test(`export ${dataset ?? "(default journal)"}: RFC 4180, CRLF, header row, first column dataset, filename`, async () => {
      const a = await exportOf(dataset);
      const ds = dataset ?? "journal";
      expect(a.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(a.headers.get("x-ca-ledger-dataset")).toBe("mainnet");
      const today = new Date().toISOString().slice(0, 10);
      expect(a.headers.get("content-disposition")).toBe(`attachment; filename="ca-ledger-${ds}-${csvOwner.slice(0, 8)}-to-${today}.csv"`);
      expect(a.text.endsWith("\r\n")).toBe(true);
      // Every line break outside a quoted cell is CRLF.
      const outside = a.text.replace(/"(?:[^"]|"")*"/g, "");
      expect(outside.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
      const rows = parseCsv(a.text);
      const header = rows[0]!;
      expect(header[0]).toBe("dataset");
      expect(header).toContain("id");
      expect(header).toContain("symbol");
      const body = rows.slice(1);
      expect(body.length).toBe(ds === "journal" ? 7 : 6);
      for (const r of body) {
        expect(r).toHaveLength(header.length);
        expect(r[0]).toBe("mainnet");
      }
      const sym = header.indexOf("symbol");
      const symbols = body.map((r) => r[sym]);
      expect(symbols).toContain('\'=HYPERLINK("http://x")');
      for (const lead of ["+", "-", "\t", "\r"]) expect(symbols).toContain(`'${lead}cmd`);
      // Nothing in any text cell starts a formula.
      for (const r of body) for (const cell of r) if (!/^-?[0-9]+(\.[0-9]+)?$/.test(cell)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      if (ds === "journal") {
        const reason = body.map((r) => r[header.indexOf("changeReason")]).find((c) => c);
        expect(reason).toBe('\'@SUM(1,2) "quoted"\nsecond line');
        // Negative decimals are numbers, not formulas: left as they are.
        expect(body.map((r) => r[header.indexOf("unitsDelta")])).toContain("-90");
      } else {
        expect(body.map((r) => r[header.indexOf("kind")]).sort()).toEqual(["dividend", "dividend", "dividend", "dividend", "dividend", "split"]);
      }
    });
  }

  test("export errors: unknown dataset 400 naming dataset, unknown wallet 404, bad owner 400", async () => {
    expectError(await get(`/v1/export?owner=${csvOwner}&dataset=bogus`), 400, "invalid_request", /dataset/);
    expectError(await get(`/v1/export?owner=${unknownOwner}`), 404, "wallet_not_registered");
    expectError(await get(`/v1/export?owner=zz`), 400, "invalid_owner");
  });

  test("an export over 100,000 rows is 422 export_too_large and says how to page", async () => {
    const bigOwner = address("routes:big");
    await registerWallet(srv.db, "acme", bigOwner);
    const a = makeAction(bigOwner, 0, "cash_dividend");
    const b = bookingOf(a);
    const now = new Date().toISOString();
    const [insert, values] =
      q`INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta, income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at)
       VALUES (${b.owner}, ${b.actionId}, 'recognition', NULL, ${b.mint}, ${b.symbol}, ${b.type}, ${b.treatment}, ${b.kind}, ${b.unitsDelta}, ${b.principalUnitsDelta}, ${b.incomeUnits}, ${b.usd}, NULL, ${b.effectiveAt!}, NULL, ${b.evidenceSha256}, '{}', ${now})`;
    await srv.db.write(async (tx) => {
      for (let i = 0; i < 100_001; i++) await tx.run(insert, values);
    });
    const r = await get(`/v1/export?owner=${bigOwner}&dataset=journal`);
    expectError(r, 422, "export_too_large", /limit|offset|page/);
  }, 30_000);
});

describe("v2 reads", () => {
  test("GET /v2/taxonomy lists all 18 types", async () => {
    const a = await get("/v2/taxonomy");
    expect(a.status).toBe(200);
    expectSchema(S.TaxonomyResponse, a);
    expect(a.body.types.map((t: { type: string }) => t.type).sort()).toEqual([...S.actionTypes].sort());
  });

  test("GET /v2/actions: every action, newest first, dataset label", async () => {
    const a = await get(`/v2/actions?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.ActionsList, a);
    expect(a.body.total).toBe(7);
    expect(a.body.dataset).toEqual({ kind: "mainnet", description: null });
    const times = a.body.actions.map((x: { effectiveAt: string }) => x.effectiveAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(a.body.actions.some((x: { lifecycle: { state: string } }) => x.lifecycle.state === "announced")).toBe(true);
  });

  test("GET /v2/actions/{id}: detail; 404 not_found; over-long id 400", async () => {
    const act = seeded.actions[1]!;
    const a = await get(`/v2/actions/${act.id}?owner=${owner}`);
    expect(a.status).toBe(200);
    expectSchema(S.ActionDetail, a);
    expect(a.body).toMatchObject({ id: act.id, type: "forward_split", factor: "10", dataset: { kind: "mainnet" } });
    expect(Object.keys(a.body.timestamps)).toHaveLength(6);
    expect(a.body.revisions).toHaveLength(1);
    expect(a.body.journal).toHaveLength(1);
    const ann = await get(`/v2/actions/${seeded.actions[4]!.id}?owner=${owner}`);
    expect(ann.status).toBe(200);
    expectSchema(S.ActionDetail, ann);
    expect(ann.body.lifecycle.state).toBe("announced");
    expectError(await get(`/v2/actions/act_nope?owner=${owner}`), 404, "not_found");
    expectError(await get(`/v2/actions/${act.id}?owner=${emptyOwner}`), 404, "not_found");
    expectError(await get(`/v2/actions/${"y".repeat(200)}?owner=${owner}`), 400, "invalid_request", /id/);
  });

  test("GET /v2/instruments/{mint}/lineage: known mint 200, unknown 404 not_found", async () => {
    const a = await get(`/v2/instruments/${mints.NVDAx.mint}/lineage`);
    expect(a.status).toBe(200);
    expectSchema(S.LineageResponse, a);
    expect(a.body.mint).toBe(mints.NVDAx.mint);
    expect(a.body.basisNowSits).toEqual([{ holding: "NVDAx", kind: "position", fraction: "1" }]);
    expectError(await get(`/v2/instruments/${randomAddress()}/lineage`), 404, "not_found");
    expectError(await get(`/v2/instruments/${"m".repeat(80)}/lineage`), 400, "invalid_request", /mint/);
  });
});

describe("ops", () => {
  test("GET /v1/ops/status: named checks, no tenant or wallet", async () => {
    const a = await get("/v1/ops/status");
    expect(a.status).toBe(200);
    expectSchema(S.OpsStatus, a);
    const names = a.body.checks.map((c: { name: string }) => c.name);
    for (const n of ["database", "sync_queue_draining", "failed_syncs", "issuer_feed_freshness", "mint_poll_freshness", "rpc_errors"]) expect(names).toContain(n);
    expect(a.text).not.toContain(owner);
    expect(a.text).not.toContain("acme");
  });
  test("GET /v1/ops/metrics: Prometheus text", async () => {
    const a = await get("/v1/ops/metrics");
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toContain("text/plain");
    expect(a.text).toContain("# TYPE caledger_http_requests_total counter");
    expect(schemaErrors(S.MetricsText, a.text)).toEqual([]);
  });
});

describe("errors every route shares", () => {
  test("404 route_not_found for unknown paths, with or without a key", async () => {
    // "/" is the dashboard's page (test/dashboard/assets.test.ts).
    for (const p of ["/v1", "/v1/nope", "/v3/actions", "/v1/wallets/x/y/status", "/v1/wallets//status", "/v2/instruments/abc"]) {
      expectError(await get(p), 404, "route_not_found");
      expectError(await get(p, null), 404, "route_not_found");
    }
  });
  test("405 method_not_allowed with allow", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/v1/assets", "GET"],
      ["GET", "/v1/wallets/sync", "POST"],
      ["DELETE", "/v1/health", "GET"],
      ["PUT", "/v2/actions", "GET"],
      ["PATCH", `/v1/wallets/${owner}/status`, "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const a = await call(srv.url, path, { key, method, rawBody: method === "GET" || method === "DELETE" ? undefined : "{}" });
      expectError(a, 405, "method_not_allowed", new RegExp(allow));
      expect(a.headers.get("allow")).toBe(allow);
    }
  });
  test("every response carries a distinct x-request-id and the x-ca-ledger-dataset header", async () => {
    const answers = await Promise.all([
      get("/v1/health", null),
      get("/v1/assets"),
      get("/v1/assets", null),
      get("/v1/assets", "cal_bad"),
      get("/v1/nope"),
      call(srv.url, "/v1/assets", { method: "POST", key }),
      get(`/v1/income?owner=${owner}&limit=0`),
      get(`/v1/export?owner=${owner}`),
      get("/v1/ops/metrics"),
      get(`/v1/portfolio?owner=${unknownOwner}`),
    ]);
    const ids = answers.map((a) => a.headers.get("x-request-id"));
    for (const [i, id] of ids.entries()) {
      expect({ i, id }).toEqual({ i, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(answers[i]!.headers.get("x-ca-ledger-dataset")).toBe("mainnet");
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
  test("keyed responses carry ratelimit-limit, ratelimit-remaining and ratelimit-reset", async () => {
    for (const p of ["/v1/assets", `/v1/portfolio?owner=${owner}`, `/v1/portfolio?owner=${unknownOwner}`, `/v1/income?owner=${owner}&limit=0`, `/v1/export?owner=${owner}`]) {
      const a = await get(p);
      expect(a.headers.get("ratelimit-limit")).toBe("100000");
      expect(Number(a.headers.get("ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
      expect(Number(a.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
      expect(Number(a.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
    }
  });
});

describe("paging numbers are digits", () => {
  test("limit and offset written as ' 5', 0x10, 1e2, 1.5 or -0 are 400 invalid_request naming the parameter", async () => {
    const k = key; // the file's key: its tenant registered `owner`
    for (const path of ["/v1/income", "/v1/journal", "/v2/actions"]) {
      for (const bad of [" 5", "0x10", "1e2", "1.5", "-0", "+3"]) {
        for (const name of ["limit", "offset"]) {
          const a = await call(srv.url, `${path}?owner=${owner}&${name}=${encodeURIComponent(bad)}`, { key: k });
          expectError(a, 400, "invalid_request", name);
        }
      }
      expect((await call(srv.url, `${path}?owner=${owner}&limit=5&offset=0`, { key: k })).status).toBe(200);
    }
  });
});
