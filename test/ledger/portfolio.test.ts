// The portfolio is a read model stored at booking (docs/api.md#portfolio). GET /v1/portfolio
// answers, byte for byte, what it answered when every request rendered it (the demo, recorded from
// main before the change), served stored; a wallet never booked is rendered per request; over random histories booked in two rounds on a real ledger, the stored
// rendering is the rendering of the engine's positions, the journal and the actions after every
// booking, alone or among others.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { DemoRecording } from "../../src/demo/transport.ts";
import { jsonBefore } from "../../src/http/json-page.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { openLedger, type Ledger } from "../../src/ledger/db.ts";
import { runEngine } from "../../src/domain/engine.ts";
import { loadEngineInput } from "../../src/ledger/engine-input.ts";
import { positionsOf, renderPortfolios } from "../../src/ledger/portfolio-render.ts";
import { portfolioQueries } from "../../src/ledger/queries/portfolio.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { demoDataDir, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { serveDemo, type DemoServer } from "../support/demo-server.ts";
import { demoPortfolioOwners, mainsAnswer } from "../support/demo-portfolio.ts";
import demoBefore from "../fixtures/demo-recording-before.json" with { type: "json" };
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";
import { DAY, history, observations } from "../support/random-history.ts";

afterAll(removeTempDirs);

describe("the demo's portfolio, stored at booking", () => {
  let srv: DemoServer;
  // The demo main's answers were recorded from (test/fixtures/demo-recording-before.json), not today's.
  beforeAll(async () => {
    srv = await serveDemo(await demoDataDir(demoBefore as unknown as DemoRecording));
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const answer = async (owner: string) => {
    const res = await fetch(`${srv.url}/v1/portfolio?owner=${owner}`, { headers: { authorization: `Bearer ${srv.key}` } });
    expect(res.status).toBe(200);
    return res.text();
  };
  const owners = demoPortfolioOwners;

  test("served from the stored rows, each wallet's answer is byte for byte main's", async () => {
    expect(owners.length).toBe(2);
    const stored = await srv.ledger.db.all(...q<{ owner: string }>`SELECT owner FROM portfolios ORDER BY owner`);
    expect(stored.map((r) => r.owner)).toEqual([...owners].sort());
    for (const owner of owners) {
      const text = await answer(owner);
      expect(text).toBe(mainsAnswer(text, owner));
    }
  });

  test("a wallet with no stored row (never booked) is rendered per request: nothing held, no income", async () => {
    // A ledger from before the stored rows has them stored by its upgrade (test/ops/upgrade-portfolio.test.ts).
    const never = "NeverBooked1111111111111111111111111111111";
    expect(await portfolioQueries(srv.ledger.db).portfolio(never)).toBe('{"unclassifiedAdjustments":0,"totals":{"incomeUsd":"0","unvaluedIncomeEvents":0,"exact":{"incomeUsd":"0"}},"positions":[]}');
  });
});

describe("splicing a stored body after the per-request fields", () => {
  // Named keys, as a portfolio's are: JavaScript orders integer-like keys ("0") before all others.
  const key = fc
    .tuple(fc.constantFrom("a", "p", "t", "u"), fc.string({ maxLength: 5 }))
    .map(([a, b]) => a + b)
    .filter((k) => !["owner", "dataset", "asOf"].includes(k));
  test("is JSON.stringify of the fields followed by the stored object's", async () => {
    fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.jsonValue(), { maxKeys: 6 }), fc.string(), async (stored, owner) => {
        const head = { owner, dataset: { kind: "mainnet", description: null }, asOf: new Date(0).toISOString() };
        const text = jsonBefore(head, JSON.stringify(stored)).text;
        expect(text).toBe(JSON.stringify({ ...head, ...stored }));
      }),
      { numRuns: 300 },
    );
  });
});

// ---- random histories ------------------------------------------------------------------------

let runs = 0;

describe("over random histories, booked in two rounds", () => {
  let ledger: Ledger;
  beforeAll(async () => {
    ledger = await openLedger(ledgerTarget(tempDir("cal-portfolio-")));
  });
  afterAll(async () => {
    await ledger?.close();
  });

  test("after each booking, each stored portfolio is the rendering of its wallet's positions, journal and actions, alone or among others", async () => {
    const seen = { unclassified: 0, positions: 0, changed: 0 };
    await fc.assert(
      fc.asyncProperty(history, async (mints) => {
        const { owners, rounds, cut } = observations(mints, runs++);
        const bodies: string[][] = [];
        for (const [i, batch] of rounds.entries()) {
          await storeObservations(ledger.db, batch, new Date((cut + i * 400 * DAY) * 1000));
          const at = new Date((cut + i * 400 * DAY) * 1000);
          await bookEverythingDirty(ledger.db, at);
          // Rendered again from what the engine derives at the booking's time, the journal and the actions.
          const derived = runEngine(await loadEngineInput(ledger.db, at, { owners })).positions;
          const together = await renderPortfolios(ledger.db, positionsOf(owners, derived));
          const round: string[] = [];
          for (const owner of owners) {
            const stored = await ledger.db.get(...q<{ body: string }>`SELECT body FROM portfolios WHERE owner = ${owner}`);
            if (!stored) continue; // a wallet with no balance change yet has never been booked
            expect(stored.body).toBe((await renderPortfolios(ledger.db, positionsOf([owner], derived))).get(owner)!);
            expect(stored.body).toBe(together.get(owner)!);
            expect(await portfolioQueries(ledger.db).portfolio(owner)).toBe(stored.body);
            const p = JSON.parse(stored.body);
            seen.unclassified += p.unclassifiedAdjustments;
            seen.positions += p.positions.length;
            round.push(stored.body);
          }
          bodies.push(round);
        }
        if (bodies[0]!.join() !== bodies[1]!.join()) seen.changed++;
      }),
      { numRuns: 25 },
    );
    // The histories did exercise what the rendering shows, and the second round changed it.
    expect(seen.positions).toBeGreaterThan(0);
    expect(seen.unclassified).toBeGreaterThan(0);
    expect(seen.changed).toBeGreaterThan(0);
  }, 120_000);
});
