// `ca-ledger import issuer-records` through the compiled binary: JSON arrays, JSON lines and CSV
// stored as hashed revisions with source `operator` (the hash covers the record as given, mint
// included), a higher version as a new revision, bad files refused whole with the row and field
// named; then against a running server with the issuer feed turned off, where the operator's
// record turns an unexplained change into a matched dividend shown in /v2/actions/{id}.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { cli, cliAsync, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { waitFor } from "../harness/index.ts";
import { buildClosedScenario, HONX_DIVIDEND_AT } from "../support/closed-chain.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { readFixture } from "../support/chain.ts";
import { HONX_MINT } from "../support/wallet-chain.ts";
import { baseEnv, serveBinary } from "./trust-helpers.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

/** HONx's recorded 2026-08-14 cash dividend, as an operator would state it for the mint. */
function honxDividend(overrides: Record<string, unknown> = {}) {
  const issuer = readFixture("xstocks/HONx.json").corporateActions.find((r: { effectiveTimeUtc: string }) => Date.parse(r.effectiveTimeUtc) / 1000 === HONX_DIVIDEND_AT);
  return { ...issuer, eventId: "operator-honx-2026-08", version: 1, mint: HONX_MINT, ...overrides };
}

const revisions = (dir: string) =>
  withLedger(dir, (l) =>
    l.db.all(
      ...q<{
        event_id: string;
        version: number;
        source: string;
        mint: string;
        payload: string;
        payload_sha256: string;
      }>`SELECT event_id, version, source, mint, payload, payload_sha256 FROM issuer_revisions ORDER BY id`,
    ),
  );

function fileWith(name: string, text: string): string {
  const path = join(tempDir("cal-records-"), name);
  writeFileSync(path, text);
  return path;
}

describe("ca-ledger import issuer-records", async () => {
  test("a JSON array is stored as hashed revisions with source operator; again stores nothing; a higher version is a new revision", async () => {
    const dir = tempDir();
    const record = honxDividend();
    const file = fileWith("records.json", JSON.stringify([record]));
    const first = cli(["import", "issuer-records", file, "--data-dir", dir, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ records: 1, newRevisions: 1, mints: 1 });
    const [stored] = await revisions(dir);
    expect(stored).toMatchObject({ event_id: record.eventId, version: 1, source: "operator", mint: HONX_MINT });
    expect(JSON.parse(stored!.payload)).toEqual(record); // the record as given, mint included
    expect(stored!.payload_sha256).toBe(sha256Hex(canonicalJson(record)));

    expect(JSON.parse(cli(["import", "issuer-records", file, "--data-dir", dir, "--json"]).stdout)).toMatchObject({ newRevisions: 0 });
    const corrected = fileWith("v2.jsonl", JSON.stringify(honxDividend({ version: 2, netCashflowUsd: "0.5", status: "Corrected" })) + "\n");
    expect(JSON.parse(cli(["import", "issuer-records", corrected, "--data-dir", dir, "--json"]).stdout)).toMatchObject({ newRevisions: 1 });
    expect((await revisions(dir)).map((r) => [r.event_id, r.version, r.source])).toEqual([
      [record.eventId, 1, "operator"],
      [record.eventId, 2, "operator"],
    ]);
  });

  test("distributedName (the operator's name for what a spin-off distributed) is stored and hashed with the record; a record without it hashes as before", async () => {
    const dir = tempDir();
    const spinOff = honxDividend({ eventId: "operator-honx-spin-off", caType: "SpinOff", grossCashflowUsd: null, netCashflowUsd: null, withholdingTaxRate: null });
    const named = { ...spinOff, version: 2, distributedName: "Solstice Advanced Materials (SOLS)" };
    const file = fileWith("named.json", JSON.stringify([spinOff, named]));
    expect(cli(["import", "issuer-records", file, "--data-dir", dir, "--json"]).code).toBe(0);
    const [plain, withName] = await revisions(dir);
    expect(JSON.parse(plain!.payload)).toEqual(spinOff);
    expect(plain!.payload_sha256).toBe(sha256Hex(canonicalJson(spinOff)));
    expect(JSON.parse(withName!.payload)).toEqual(named);
    expect(withName!.payload_sha256).toBe(sha256Hex(canonicalJson(named)));
    const bad = cli(["import", "issuer-records", fileWith("bad.json", JSON.stringify([{ ...named, version: 3, distributedName: 7 }])), "--data-dir", dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/record 1: distributedName: expected the distributed holding's name/);
  });

  test("CSV with the same columns: empty cells are null, the version a number", async () => {
    const dir = tempDir();
    const record = honxDividend({ eventId: "csv-1", notes: 'Dividend, "quoted"' });
    const columns = Object.keys(record);
    const cell = (v: unknown) => (v === null ? "" : /[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));
    const file = fileWith("records.csv", `${columns.join(",")}\r\n${columns.map((c) => cell(record[c])).join(",")}\r\n`);
    const r = cli(["import", "issuer-records", file, "--data-dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 new revision(s) stored with source operator");
    expect(JSON.parse((await revisions(dir))[0]!.payload)).toEqual(record);
  });

  test("a bad row anywhere refuses the whole file, naming the row and the field; nothing is stored", async () => {
    const dir = tempDir();
    expect(cli(["import", "issuer-records", fileWith("good.json", JSON.stringify([honxDividend()])), "--data-dir", dir]).code).toBe(0);
    const cases: [string, string, RegExp][] = [
      ["bad-version.json", JSON.stringify([honxDividend({ eventId: "a" }), honxDividend({ eventId: "b", version: "two" })]), /record 2: version: expected an integer >= 1, got "two"/],
      ["typo.jsonl", `${JSON.stringify(honxDividend({ eventId: "c" }))}\n${JSON.stringify({ ...honxDividend({ eventId: "d" }), netCashFlowUsd: "1" })}\n`, /line 2: unknown field netCashFlowUsd/],
      ["no-mint.json", JSON.stringify([{ ...honxDividend(), mint: undefined }]), /record 1: missing field mint/],
      ["bad-mint.json", JSON.stringify([honxDividend({ mint: "not-a-mint" })]), /record 1: mint: expected a base58 Solana address/],
      [
        "bad-decimal.csv",
        "mint,eventId,version,xstockSymbol,caType,status,netCashflowUsd\n" + `${HONX_MINT},e,1,HONx,CashDividend,Initial,0.49\n${HONX_MINT},f,1,HONx,CashDividend,Initial,1e3\n`,
        /line 3: netCashflowUsd: expected a decimal string or null, got "1e3"/,
      ],
      ["bad-column.csv", "mint,eventId,version,xstockSymbol,caType,status,amount\n", /line 1: unknown column amount/],
      ["broken.json", "[{", /not valid JSON/],
    ];
    for (const [name, text, message] of cases) {
      const r = cli(["import", "issuer-records", fileWith(name, text), "--data-dir", dir]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("nothing was imported");
    }
    expect(await revisions(dir)).toHaveLength(1); // the good rows before a bad one were not stored either
    expect(cli(["import", "issuer-records", join(dir, "missing.json"), "--data-dir", dir]).code).toBe(1);
    expect(cli(["import", "issuer-records", "--data-dir", dir]).code).toBe(2);
    expect(cli(["import", "issuer-records", "x.json", "--source", "y", "--data-dir", dir]).code).toBe(2);
  });
});

describe("operator records with a running server and the issuer feed off", () => {
  test("the change no record explained is matched to the operator's record: /v2/actions/{id} shows it with source operator", async () => {
    const s = buildClosedScenario({ seed: 31 });
    const rpc = startRpcServer(s.chain);
    const dir = tempDir();
    // No API rate limit: the test polls until the sync's action shows, however long that takes.
    const env = baseEnv(tempDir("cal-home-"), { SOLANA_RPC_URL: rpc.url, XSTOCKS_API_URL: "off", CA_LEDGER_DATA_DIR: dir, RATE_LIMIT_PER_MINUTE: "1000000" });
    const server = await serveBinary([], env);
    try {
      const key = JSON.parse((await cliAsync(["keys", "create", "ops", "--tenant", "acme", "--scopes", "assets:read,ledger:read,wallets:sync,ops:read", "--json"], env)).stdout).key;
      const get = async (path: string) => (await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } })).json();
      await fetch(server.url + "/v1/wallets/sync", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ owner: s.owner }) });
      const listed: any = await waitFor(
        () => get(`/v2/actions?owner=${s.owner}`),
        (l) => l.total > 0,
        60_000,
      );
      expect(listed.actions.map((a: any) => a.type)).toEqual(["unknown"]);
      const id = listed.actions[0].id;
      expect((await get(`/v2/actions/${id}?owner=${s.owner}`)).revisions).toEqual([]);
      const feed = (await get("/v1/ops/status")).checks.find((c: any) => c.name === "issuer_feed_freshness");
      expect(feed).toMatchObject({ status: "ok", value: "off" });

      const file = fileWith("honx.json", JSON.stringify([honxDividend()]));
      const imported = await cliAsync(["import", "issuer-records", file], env);
      expect(imported.code).toBe(0);
      const detail = await get(`/v2/actions/${id}?owner=${s.owner}`);
      expect(detail.type).toBe("cash_dividend");
      expect(Number(detail.usd)).toBeGreaterThan(0);
      expect(detail.revisions.map((r: any) => [r.eventId, r.version, r.source])).toEqual([["operator-honx-2026-08", 1, "operator"]]);
      expect(detail.revisions[0].record.mint).toBe(HONX_MINT);
    } finally {
      await server.stop();
      rpc.stop();
    }
  }, 30_000);
});
