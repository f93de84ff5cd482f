// One issuer poll may hold only so much: ISSUER_FEED_MAX_MIB bytes over every answer and
// ISSUER_FEED_MAX_RECORDS rows over every list. A feed past either is reported degraded (the ops
// check says why) and nothing of that poll is stored, not even what came before the cap. A real
// ledger, the issuer poll against loopback servers speaking the xStocks wire format. (The memory
// of a real server fed hundreds of megabytes: test/e2e/bounded-inputs.test.ts.)
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { opsStatus } from "../../src/ledger/queries/ops.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { tempDir } from "../harness/index.ts";
import { ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { hostileHistoryServer } from "../support/hostile-issuer.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function ledger() {
  const dir = tempDir("cal-feed-caps-");
  dirs.push(dir);
  const l = await openLedger(ledgerTarget(dir));
  const config = (url: string, caps: Record<string, string> = {}) => loadConfig({ ...ledgerFlags(dir), "xstocks-api-url": url, ...caps }, {});
  return { l, db: l.db, config };
}

const counts = async (db: Sql) => ({
  instruments: (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM instruments`))!.n,
  revisions: (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_revisions`))!.n,
  rejections: (await db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_rejections`))!.n,
});

const feedCheck = async (db: Sql) =>
  (await opsStatus(db, { issuerPollSeconds: 3600, mintPollSeconds: 300, jobDeadlineSeconds: 1800, rpcErrors: () => ({ errors: 0, total: 0 }) })).checks.find(
    (c) => c.name === "issuer_feed_freshness",
  )!;

describe("the issuer feed's caps", () => {
  test("more rows than ISSUER_FEED_MAX_RECORDS: degraded, saying why, and nothing of the poll stored; under the cap the same feed is stored", async () => {
    const data = loadIssuerFixture();
    data.history.push({ ...data.history[0], eventId: "bad", notes: "\u0000" }); // a rejection, which is not stored either
    const rows = data.assets.length + data.history.length + data.upcoming.length;
    const issuer = startIssuerServer(data);
    const { l, db, config } = await ledger();
    try {
      const over = await pollIssuer({ db, config: config(issuer.url, { "issuer-feed-max-records": String(rows - 1) }) });
      expect(over).toMatchObject({ added: 0, rows: 0, degraded: `over its cap: more than ${rows - 1} rows (ISSUER_FEED_MAX_RECORDS) in one poll; nothing of this poll was stored` });
      expect(await counts(db)).toEqual({ instruments: 0, revisions: 0, rejections: 0 });
      expect(await feedCheck(db)).toMatchObject({ status: "warn", message: expect.stringContaining(`degraded: over its cap: more than ${rows - 1} rows (ISSUER_FEED_MAX_RECORDS)`) });

      const under = await pollIssuer({ db, config: config(issuer.url, { "issuer-feed-max-records": String(rows) }) });
      expect(under.degraded).toBeUndefined();
      expect(await counts(db)).toEqual({ instruments: data.assets.length, revisions: data.history.length + data.upcoming.length - 1, rejections: 1 });
      expect((await feedCheck(db)).status).toBe("ok");
    } finally {
      issuer.stop();
      await l.close();
    }
  });

  test("pages of valid records past ISSUER_FEED_MAX_MIB: reading stops at the cap, the poll is degraded, and what the earlier polls stored stays as it was", async () => {
    const good = startIssuerServer(loadIssuerFixture());
    const { l, db, config } = await ledger();
    const hostile = hostileHistoryServer(loadIssuerFixture(), { pageBytes: 512 * 1024, pages: 200 }); // 100 MiB offered
    try {
      await pollIssuer({ db, config: config(good.url) });
      const before = await counts(db);
      expect(before.revisions).toBeGreaterThan(0);

      const r = await pollIssuer({ db, config: config(hostile.url, { "issuer-feed-max-mib": "4" }) });
      expect(r.degraded).toBe("over its cap: more than 4 MiB (ISSUER_FEED_MAX_MIB) in one poll; nothing of this poll was stored");
      // Sent ahead of our reads by at most a few socket buffers, never the feed's 100 MiB.
      expect(hostile.sentBytes()).toBeLessThan(12 * 1024 * 1024);
      expect(await counts(db)).toEqual(before);
      expect((await feedCheck(db)).message).toContain("degraded: over its cap: more than 4 MiB (ISSUER_FEED_MAX_MIB) in one poll");
    } finally {
      good.stop();
      hostile.stop();
      await l.close();
    }
  });
});
