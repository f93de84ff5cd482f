// The v1 lists against the real server: `kind` (repeatable) keeps only entries of those kinds on
// /v1/income and /v1/journal, with total and paging counting what it keeps, for every set of
// kinds and several page sizes; an unknown kind is 400 invalid_request naming the parameter; the
// client passes it; and the journal is in effective-time order, newest first, ties by id.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "../../client/src/index.ts";
import { address, allScopes, bookingOf, call, insertAction, insertJournal, makeAction, registerWallet, startTestServer, type Answer, type Flavor, type TestServer } from "../harness/index.ts";

let srv: TestServer;
let key: string;
const owner = address("kinds:owner");
const kinds = ["dividend", "split", "unclassified_adjustment"] as const;
type Kind = (typeof kinds)[number];
/** Every non-empty set of kinds. */
const kindSets: Kind[][] = [1, 2, 3, 4, 5, 6, 7].map((bits) => kinds.filter((_, i) => bits & (1 << i)));

type Entry = { id: string | number; kind: Kind; effectiveAt: string };

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key([...allScopes])).key;
  await registerWallet(srv.db, "acme", owner);
  // Booked out of effective order (a later sync finds an older event), so the journal's ids do not
  // follow the effective times: day i of 2025 for action i, booked in this order.
  const order = [7, 2, 11, 0, 5, 9, 1, 12, 3, 8, 6, 10, 4, 13];
  const flavors: Flavor[] = ["cash_dividend", "forward_split", "stock_dividend"];
  const booked = new Map<number, number>();
  for (const i of order) {
    const a = makeAction(owner, i, flavors[i % 3]);
    await insertAction(srv.db, a);
    booked.set(i, await insertJournal(srv.db, bookingOf(a)));
  }
  // A correction of action 5 long after: a reversal and a new recognition on the same effective
  // time as the first, with the highest ids.
  const corrected = makeAction(owner, 5, flavors[5 % 3]);
  await insertJournal(srv.db, bookingOf(corrected), { entryType: "reversal", reversesId: booked.get(5)!, changeReason: "issuer correction" });
  await insertJournal(srv.db, bookingOf(corrected), { changeReason: "issuer correction" });
});
afterAll(async () => {
  await srv?.close();
});

async function everyPage(path: string, filter: string, limit: number): Promise<Entry[]> {
  const out: Entry[] = [];
  let offset: number | null = 0;
  let total = -1;
  while (offset !== null) {
    const a: Answer = await call(srv.url, `${path}?owner=${owner}${filter}&limit=${limit}&offset=${offset}`, { key });
    expect(a.status).toBe(200);
    if (total >= 0) expect(a.body.total).toBe(total);
    total = a.body.total;
    out.push(...a.body.entries);
    offset = a.body.nextOffset;
    expect(offset === null ? out.length : offset).toBe(out.length);
  }
  expect(out.length).toBe(total);
  return out;
}

describe("the journal's order", () => {
  test("newest effective time first, ties by id (newest first), whatever order the entries were booked in", async () => {
    const entries = (await everyPage("/v1/journal", "", 200)) as (Entry & { id: number })[];
    expect(entries).toHaveLength(16);
    const expected = [...entries].sort((a, b) => b.effectiveAt.localeCompare(a.effectiveAt) || b.id - a.id);
    expect(entries.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    // The three entries of the corrected action sit together, newest id first.
    const day5 = entries.filter((e) => e.effectiveAt.startsWith("2025-01-06"));
    expect(day5.map((e) => e.id)).toEqual([...day5.map((e) => e.id)].sort((a, b) => b - a));
    expect(day5).toHaveLength(3);
    // Not the booking order: the correction has the highest ids, the newest event comes first.
    expect(entries[0]!.effectiveAt.startsWith("2025-01-14")).toBe(true);
    expect(entries[0]!.id).not.toBe(Math.max(...entries.map((e) => e.id)));
  });

  test("a page of the journal is that slice of the whole list", async () => {
    const whole = await everyPage("/v1/journal", "", 200);
    for (const limit of [1, 3, 7]) expect((await everyPage("/v1/journal", "", limit)).map((e) => e.id)).toEqual(whole.map((e) => e.id));
  });
});

describe("kind filters /v1/income and /v1/journal", () => {
  for (const path of ["/v1/income", "/v1/journal"]) {
    test(`${path}: for every set of kinds and page size, the pages are the whole list restricted to those kinds`, async () => {
      const whole = await everyPage(path, "", 200);
      expect(new Set(whole.map((e) => e.kind))).toEqual(new Set(kinds));
      for (const set of kindSets) {
        const want = whole.filter((e) => set.includes(e.kind)).map((e) => e.id);
        expect(want.length).toBeGreaterThan(0);
        for (const limit of [2, 5, 200]) {
          const repeated = set.map((k) => `&kind=${k}`).join("");
          expect({ set, limit, ids: (await everyPage(path, repeated, limit)).map((e) => e.id) }).toEqual({ set, limit, ids: want });
        }
        // Comma-separated reads the same.
        expect((await everyPage(path, `&kind=${set.join(",")}`, 4)).map((e) => e.id)).toEqual(want);
      }
    });

    test(`${path}: kind with a date filter keeps what both keep`, async () => {
      const whole = await everyPage(path, "", 200);
      const want = whole.filter((e) => e.kind === "dividend" && e.effectiveAt >= "2025-01-05" && e.effectiveAt < "2025-01-11").map((e) => e.id);
      expect(want.length).toBeGreaterThan(0);
      expect((await everyPage(path, "&kind=dividend&from=2025-01-05&to=2025-01-10", 2)).map((e) => e.id)).toEqual(want);
    });

    test(`${path}: an unknown or empty kind is 400 invalid_request naming the parameter`, async () => {
      for (const q of ["kind=bogus", "kind=", "kind=split&kind=Dividend", "kind=split,nope"]) {
        const a = await call(srv.url, `${path}?owner=${owner}&${q}`, { key });
        expect({ q, status: a.status, code: a.body.code }).toEqual({ q, status: 400, code: "invalid_request" });
        expect(a.body.error).toContain("query parameter kind");
        expect(a.body.error).toContain("dividend, split, unclassified_adjustment");
        expect(Object.keys(a.body).sort()).toEqual(["code", "error"]);
      }
    });
  }

  test("the client passes kind", async () => {
    const c = createClient({ baseUrl: srv.url, apiKey: key });
    const http = async (p: string) => (await call(srv.url, p, { key })).body;
    expect(await c.income(owner, { kind: ["split"], limit: 2 })).toEqual(await http(`/v1/income?owner=${owner}&kind=split&limit=2`));
    expect(await c.journal(owner, { kind: ["dividend", "unclassified_adjustment"], offset: 1 })).toEqual(await http(`/v1/journal?owner=${owner}&kind=dividend&kind=unclassified_adjustment&offset=1`));
    expect((await c.journal(owner, { kind: ["split"] })).entries.every((e) => e.kind === "split")).toBe(true);
  });
});
