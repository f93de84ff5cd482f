// An issuer that edits only a record's notes, poll after poll: every revision is stored and listed
// on the action, but a revision that changes no figure appends nothing to the journal, and the
// ops status reports the feed as churning without naming a tenant or a wallet. The real server
// (its worker polling every second) against loopback servers speaking the Solana JSON-RPC and
// xStocks wire formats; a wallet that held HONx through its recorded 2026-08-14 cash dividend.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createKey } from "../../src/ledger/keys.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { startServer } from "../../src/server.ts";
import { call, tempDir } from "../harness/index.ts";
import { buildClosedScenario } from "../support/closed-chain.ts";
import { ledgerFlags } from "../support/engine.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { q } from "../support/sql.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** HONx's recorded cash dividend of 2026-08-14, as the issuer feed lists it. */
const DIVIDEND = { eventId: "7d20da53-6639-4781-bfa3-806ffa86f5cb", version: 2 };
const EDITS = 5;

describe("an issuer that edits only a record's notes", () => {
  test("each edit is stored and listed, none is booked again, verify passes, and ops status says the feed is churning", async () => {
    const s = buildClosedScenario({ seed: 41 });
    const rpc = startRpcServer(s.chain);
    const issuer = startIssuerServer(loadIssuerFixture());
    const dataDir = tempDir("cal-churn-");
    dirs.push(dataDir);
    const server = await startServer(
      { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
      {
        quiet: true,
        env: { LOG_LEVEL: "error", SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: issuer.url, ISSUER_POLL_SECONDS: "1", MINT_POLL_SECONDS: "3600", RESYNC_SECONDS: "0" },
      },
    );
    const db = server.ledger.db;
    try {
      const { key } = await createKey(db, { name: "k", tenant: "acme", scopes: ["wallets:sync", "ledger:read", "ops:read"] });
      expect((await call(server.url, "/v1/wallets/sync", { key, body: { owner: s.owner } })).status).toBe(202);
      const action = await until("the dividend booked", async () => {
        const list = (await call(server.url, `/v2/actions?owner=${s.owner}`, { key })).body;
        return list.total > 0 ? list.actions[0] : undefined;
      });
      expect(action.type).toBe("cash_dividend");
      const journal = () => db.all(...q<{ entry_type: string; evidence_sha256: string }>`SELECT entry_type, evidence_sha256 FROM journal WHERE owner = ${s.owner} ORDER BY id`);
      const booked = await journal();
      expect(booked.map((j) => j.entry_type)).toEqual(["recognition"]);

      // From now on each poll finds the record's notes edited (the same eventId and version).
      let edits = 0;
      issuer.onServed = (path) => {
        if (path.endsWith("/corporate-actions/history") && edits < EDITS) issuer.editRecord(DIVIDEND.eventId, DIVIDEND.version, { notes: `Cash dividend; note edited ${++edits} time(s)` });
      };
      const revisions = () => db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_revisions WHERE event_id = ${DIVIDEND.eventId} AND version = ${DIVIDEND.version}`).then((r) => r!.n);
      await until("every edit stored", async () => ((await revisions()) === 1 + EDITS ? true : undefined));
      // Storing a revision marks its mint dirty in the same transaction: once none is left, every edit was booked.
      await until("every edit booked", async () => {
        const dirty = (await db.get(...q<{ n: number }>`SELECT (SELECT count(*) FROM dirty_wallets) + (SELECT count(*) FROM dirty_mints) AS n`))!.n;
        return dirty === 0 ? true : undefined;
      });

      // Nothing appended: the standing recognition still cites the evidence it was booked on.
      expect(await journal()).toEqual(booked);
      // Every revision is evidence: the action lists them all (version 1, scheduled, and version 2 as first published and after each edit).
      const detail = (await call(server.url, `/v2/actions/${action.id}?owner=${s.owner}`, { key })).body;
      const listed = detail.revisions.filter((r: { eventId: string; version: number }) => r.eventId === DIVIDEND.eventId && r.version === DIVIDEND.version);
      expect(listed.map((r: { record: { notes: string | null } }) => r.record.notes).sort()).toEqual(
        [null, ...Array.from({ length: EDITS }, (_, i) => `Cash dividend; note edited ${i + 1} time(s)`)].sort(),
      );
      expect(listed.filter((r: { edited: boolean }) => r.edited)).toHaveLength(EDITS);
      expect(detail.usd).toBe(action.usd);

      const status = (await call(server.url, "/v1/ops/status", { key })).body;
      const churn = status.checks.find((c: { name: string }) => c.name === "issuer_feed_churn");
      expect(churn).toMatchObject({
        status: "warn",
        value: 1,
        message: expect.stringContaining("The issuer feed is churning: 1 record(s) revised at least 3 times in 24 h without changing any booking"),
      });
      expect(JSON.stringify(status)).not.toContain(s.owner);
      expect(JSON.stringify(status)).not.toContain("acme");

      const report = await verifyLedger(db);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    } finally {
      await server.stop();
      rpc.stop();
      issuer.stop();
    }
  }, 90_000);
});
