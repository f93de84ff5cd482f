// Live data carries the issuer's ISINs: the served server polls the loopback xStocks API (the
// recorded rows, real wire format) and GET /v1/assets and the lineage show each instrument's ISIN,
// taken from the issuer's own corporate-action records (the asset list carries none). A ledger
// that stored its instruments before, without ISINs, gets them and a fresh lineage at the next poll.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { instrumentQueries } from "../../src/ledger/queries/instruments.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { startServer } from "../../src/server.ts";
import { createIssuerClient } from "../../src/sources/xstocks/client.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { call, tempDir, waitFor } from "../harness/index.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { ledgerTarget, ledgerFlags } from "../support/engine.ts";

// From the recorded issuer rows (test/fixtures/recorded/xstocks/recorded-20260913-subset.json).
const HONx = { mint: "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2", isin: "CH1436219583" };
const NVDAx = { mint: "Xsc9qvGR1efVDFGLrVsmkzv3qi45LTBjeUKSPmx9qEh", isin: "CH1436219195" };

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("ISINs on live data", () => {
  test("the served server's issuer poll attaches them: /v1/assets and lineage show the ISIN", async () => {
    const data = loadIssuerFixture();
    data.assets.find((a) => a.symbol === "HONx")!.name = "Honeywell International Inc. xStock";
    const issuer = startIssuerServer(data);
    const dir = tempDir();
    dirs.push(dir);
    const srv = await startServer(
      { port: "0", host: "127.0.0.1", ...ledgerFlags(dir) },
      {
        // No API rate limit: the test polls until the issuer poll's assets show.
        env: { XSTOCKS_API_URL: issuer.url, SOLANA_RPC_URL: "http://127.0.0.1:9", LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "1000000" },
        quiet: true,
      },
    );
    try {
      const key = (await createKey(srv.ledger.db, { name: "k", tenant: "acme", scopes: ["assets:read"] })).key;
      const assets: any[] = await waitFor(
        async () => (await call(srv.url, "/v1/assets", { key })).body.assets,
        (a) => a.length > 0,
      );
      expect(assets.length).toBe(data.assets.length);
      for (const a of assets) expect({ symbol: a.symbol, isin: a.isin }).toEqual({ symbol: a.symbol, isin: expect.stringMatching(/^CH\d{10}$/) });
      const hon = assets.find((a) => a.mint === HONx.mint);
      expect({ isin: hon.isin, name: hon.name }).toEqual({ isin: HONx.isin, name: "Honeywell International Inc. xStock" });
      expect(assets.find((a) => a.mint === NVDAx.mint).isin).toBe(NVDAx.isin);

      const lineage = (await call(srv.url, `/v2/instruments/${HONx.mint}/lineage`, { key })).body;
      expect(lineage.identities.at(-1).isin).toBe(HONx.isin);
    } finally {
      await srv.stop();
      issuer.stop();
    }
  });

  test("instruments stored without ISINs get them, and a fresh lineage, at the next poll", async () => {
    const issuer = startIssuerServer(loadIssuerFixture());
    const dir = tempDir();
    dirs.push(dir);
    const ledger = await openLedger(ledgerTarget(dir));
    try {
      // What a poll stored before ISINs were attached: the instruments as the asset list has them.
      const client = createIssuerClient({ baseUrl: issuer.url });
      const [assets, history, upcoming] = await Promise.all([client.assets(), client.corporateActionsHistory(), client.corporateActionsUpcoming()]);
      await storeObservations(ledger.db, { instruments: assets.instruments, issuerRecords: [...history.records, ...upcoming.records] });
      await bookEverythingDirty(ledger.db);
      expect((await instrumentQueries(ledger.db).lineage(HONx.mint))!.identities.at(-1)!.isin).toBeNull();

      const config = loadConfig({ ...ledgerFlags(dir), "xstocks-api-url": issuer.url }, {});
      expect((await pollIssuer({ db: ledger.db, config })).added).toBe(0); // no new revision...
      await bookEverythingDirty(ledger.db);
      const lineage = (await instrumentQueries(ledger.db).lineage(HONx.mint))!;
      expect(lineage.identities.at(-1)!.isin).toBe(HONx.isin); // ...yet the lineage was re-booked
    } finally {
      ledger.close();
      issuer.stop();
    }
  });
});
