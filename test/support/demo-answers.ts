// Every answer the API gives on the embedded demo, and every hash and seal behind them, to prove a
// change of how the ledger stores its rows leaves them byte for byte as they were. The demo is
// loaded at a fixed time (so what the engine stamps with the clock is the same on every run), two
// issuer corrections re-book it (so the journal holds reversals and an event several revisions),
// the ECB sample is imported (so the year report converts), and the real server, offline, answers
// every route that reads a wallet's books: lists page by page, with date and kind filters, each action's
// and each income entry's detail, each export, each lineage, the year reports. What a request
// stamps with its own clock (`asOf`) is set aside.
//
// Only the HTTP API, the observation tables and the columns both shapes of the actions table have
// are read here, so the same code records the answers on a commit from before the change:
// test/fixtures/demo-answers-before.json says how.
import { loadDemo } from "../../src/demo/load.ts";
import { demoTenant } from "../../src/demo/identity.ts";
import type { DemoRecording } from "../../src/demo/transport.ts";
import { parseEcbHistory } from "../../src/domain/reference-rates.ts";
import { rebookEverything } from "../../src/ledger/booking.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { allScopes, createKey } from "../../src/ledger/keys.ts";
import { importRates } from "../../src/ledger/reference-rates.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { startServer } from "../../src/server.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerFlags, ledgerTarget } from "./engine.ts";
import { hex, jsonText, q, raw } from "./sql.ts";

/** When the demo is loaded and corrected: after every event it holds. */
export const DEMO_AT = new Date("2026-10-01T00:00:00.000Z");

const ecbSample = join(import.meta.dir, "..", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");

export interface DemoAnswers {
  /** `GET path` → the body as served (`asOf` replaced by "<asOf>"). */
  answers: Record<string, string>;
  /** Per action id, its payload and evidence hashes; the journal's seals in id order. */
  hashes: { actions: Record<string, { payloadSha256: string; evidenceSha256: string }>; journalSeals: string[]; issuerRevisions: string[] };
}

/**
 * Loads the demo at DEMO_AT into `dataDir` (empty) and corrects two of its dividends. `recording`:
 * the demo recording to load (default the embedded one; store-once.test.ts loads the one its
 * answers were recorded from, test/fixtures/demo-recording-before.json).
 */
export async function loadCorrectedDemo(dataDir: string, recording?: DemoRecording): Promise<void> {
  const ledger = await openLedger(ledgerTarget(dataDir));
  try {
    await loadDemo(ledger, DEMO_AT, undefined, recording);
    for (let step = 0; step < 2; step++) await correctADividend(ledger.db, step, new Date(DEMO_AT.getTime() + (step + 1) * 60_000));
    await importRates(ledger.db, parseEcbHistory(readFileSync(ecbSample, "utf8"), DEMO_AT.toISOString().slice(0, 10)), DEMO_AT);
  } finally {
    await ledger.close();
  }
}

/**
 * A new version of the `step`-th stored cash-dividend record (by id) with another cash amount,
 * stored and re-booked in one transaction: every wallet holding the mint gets a reversal and a
 * new recognition.
 */
async function correctADividend(db: Sql, step: number, now: Date): Promise<void> {
  const rows = await db.all(
    ...q<{
      payload: string;
    }>`SELECT payload FROM issuer_revisions WHERE ${jsonText(raw("payload"), "caType")} = 'CashDividend' AND ${jsonText(raw("payload"), "netCashflowUsd")} IS NOT NULL ORDER BY id`,
  );
  const record = JSON.parse(rows[step * 3]!.payload);
  const top = (await db.get(...q<{ v: number }>`SELECT max(version) AS v FROM issuer_revisions WHERE event_id = ${record.eventId}`))!;
  const gross = (0.5 + step / 100).toFixed(2);
  const corrected = { ...record, version: top.v + 1, grossCashflowUsd: gross, netCashflowUsd: (Number(gross) * 0.7).toFixed(3), status: "Updated" };
  await db.write(async (tx) => {
    await storeObservations(tx, { issuerRecords: [corrected] }, now);
    await rebookEverything(tx, now);
  });
}

/** Every answer and hash of the ledger in `dataDir` (loaded by loadCorrectedDemo). */
export async function demoAnswers(dataDir: string): Promise<DemoAnswers> {
  const server = await startServer(
    { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
    { offline: true, quiet: true, env: { LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "1000000", AUTH_FAILURES_PER_MINUTE: "1000000" } },
  );
  try {
    const db = server.ledger.db;
    const { key } = await createKey(db, { name: "answers", tenant: demoTenant, scopes: [...allScopes] });
    const answers: Record<string, string> = {};
    const get = async (path: string): Promise<string> => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const text = (await res.text()).replace(/"asOf":"[^"]*"/g, `"asOf":"<asOf>"`);
      answers[`GET ${path}`] = `${res.status} ${text}`;
      return text;
    };
    /** Every page of a list, 7 items at a time (so pages split mid-list), and the ids listed. */
    const pages = async (path: string, key: string): Promise<string[]> => {
      const ids: string[] = [];
      for (let offset: number | null = 0; offset !== null; ) {
        const body = JSON.parse(await get(`${path}&limit=7&offset=${offset}`)) as Record<string, unknown> & { nextOffset: number | null };
        ids.push(...(body[key] as { id: string }[]).map((x) => String(x.id)));
        offset = body.nextOffset;
      }
      await get(`${path}&limit=200`);
      return ids;
    };

    await get("/v1/assets");
    await get("/v1/wallets");
    await get("/v2/taxonomy");
    await get("/v2/reports/currencies");
    const owners = (JSON.parse(answers["GET /v1/wallets"]!.slice(4)) as { wallets: { owner: string }[] }).wallets.map((w) => w.owner);
    const years = [2025, 2026];
    for (const owner of owners) {
      const q = `owner=${owner}`;
      await get(`/v1/wallets/${owner}/status`);
      await get(`/v1/portfolio?${q}`);
      await get(`/v1/yield?${q}`);
      for (const id of await pages(`/v2/actions?${q}`, "actions")) await get(`/v2/actions/${id}?${q}`);
      for (const id of await pages(`/v1/income?${q}`, "entries")) await get(`/v1/income/${id}?${q}`);
      await pages(`/v1/journal?${q}`, "entries");
      for (const kinds of ["kind=dividend", "kind=split&kind=unclassified_adjustment"]) {
        await get(`/v1/income?${q}&${kinds}&limit=200`);
        await get(`/v1/journal?${q}&${kinds}&limit=200`);
      }
      for (const filter of [...years.map((y) => `year=${y}`), "from=2026-01-01&to=2026-06-30", "from=2026-05-01"]) {
        await get(`/v2/actions?${q}&${filter}&limit=200`);
        await get(`/v1/income?${q}&${filter}&limit=200`);
        await get(`/v1/journal?${q}&${filter}&limit=200`);
      }
      for (const dataset of ["journal", "income", "tax", "koinly", "cointracker", "coinledger", "awaken"]) {
        await get(`/v1/export?${q}&dataset=${dataset}`);
        await get(`/v1/export?${q}&dataset=${dataset}&year=2026`);
      }
    }
    for (const year of years) {
      await get(`/v2/reports/income?year=${year}`);
      await get(`/v2/reports/income?year=${year}&currency=CHF`);
      for (const owner of owners) await get(`/v2/reports/income?year=${year}&owner=${owner}`);
    }
    const mints = (await db.all(...q<{ mint: string }>`SELECT mint FROM instruments ORDER BY mint`)).map((r) => r.mint);
    for (const mint of mints) await get(`/v2/instruments/${mint}/lineage`);

    const actions = Object.fromEntries(
      (await db.all(...q<{ id: string; payload_sha256: string; evidence_sha256: string }>`SELECT id, ${hex("payload_sha256")}, ${hex("evidence_sha256")} FROM actions ORDER BY id`)).map((r) => [
        r.id,
        { payloadSha256: r.payload_sha256, evidenceSha256: r.evidence_sha256 },
      ]),
    );
    const journalSeals = (await db.all(...q<{ row_sha256: string }>`SELECT ${hex("row_sha256")} FROM journal ORDER BY id`)).map((r) => r.row_sha256);
    const issuerRevisions = (await db.all(...q<{ row_sha256: string }>`SELECT ${hex("row_sha256")} FROM issuer_revisions ORDER BY id`)).map((r) => r.row_sha256);
    return { answers, hashes: { actions, journalSeals, issuerRevisions } };
  } finally {
    await server.stop();
  }
}
