// `ca-ledger import issuer-records` through the compiled binary, for what an operator's file may
// not do: hold a row PostgreSQL would refuse (a NUL byte, a 4 KB symbol), a day not on the
// calendar, a zero or negative multiplier, a bidi control (each named: record and field, nothing
// stored, identically on both engines); and speak of a mint the issuer feed covers without
// --override-feed (that changes every tenant's books).
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { storeObservations } from "../../src/ledger/store.ts";
import { cli, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { readFixture } from "../support/chain.ts";
import { HONX_MINT } from "../support/wallet-chain.ts";
import { HONX_DIVIDEND_AT } from "../support/closed-chain.ts";
import { q } from "../support/sql.ts";

afterAll(removeTempDirs);

/** HONx's recorded 2026-08-14 cash dividend, as an operator would state it for the mint. */
function honxDividend(overrides: Record<string, unknown> = {}) {
  const issuer = readFixture("xstocks/HONx.json").corporateActions.find((r: { effectiveTimeUtc: string }) => Date.parse(r.effectiveTimeUtc) / 1000 === HONX_DIVIDEND_AT);
  return { ...issuer, eventId: "operator-honx-2026-08", version: 1, mint: HONX_MINT, ...overrides };
}

const revisionCount = (dir: string) => withLedger(dir, async (l) => (await l.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM issuer_revisions`))!.n);

function fileWith(name: string, text: string): string {
  const path = join(tempDir("cal-records-"), name);
  writeFileSync(path, text);
  return path;
}

describe("an operator's record that no real corporate action has", () => {
  test("NUL, a 4 KB symbol, 30 February, a zero or negative multiplier, a bidi control: the record and field are named, nothing is stored", async () => {
    const dir = tempDir();
    expect(cli(["migrate", "--data-dir", dir]).code).toBe(0);
    const cases: [string, string, RegExp][] = [
      ["nul.json", JSON.stringify([honxDividend({ eventId: "a" }), honxDividend({ eventId: "b", notes: "net\u0000" })]), /record 2: notes: holds U\+0000, a control character, at position 4/],
      ["long.jsonl", JSON.stringify(honxDividend({ xstockSymbol: "H".repeat(4096) })) + "\n", /line 1: xstockSymbol: 4096 characters, at most 32/],
      ["feb-30.json", JSON.stringify([honxDividend({ effectiveTimeUtc: "2026-02-30T13:30:00.000Z" })]), /record 1: effectiveTimeUtc: 2026-02-30 is not a day of the calendar/],
      ["zero.json", JSON.stringify([honxDividend({ multiplierNew: "0.0" })]), /record 1: multiplierNew: expected a positive decimal or null, got "0.0"/],
      [
        "negative.csv",
        `mint,eventId,version,xstockSymbol,caType,status,multiplierOld\n${HONX_MINT},n,1,HONx,CashDividend,Initial,-1\n`,
        /line 2: multiplierOld: expected a positive decimal or null, got "-1"/,
      ],
      ["bidi.json", JSON.stringify([honxDividend({ xstockSymbol: "\u202exNOH" })]), /record 1: xstockSymbol: holds U\+202E, an invisible or bidirectional control character, at position 1/],
    ];
    for (const [name, text, message] of cases) {
      const r = cli(["import", "issuer-records", fileWith(name, text), "--data-dir", dir]);
      expect({ name, code: r.code, stdout: r.stdout }).toEqual({ name, code: 1, stdout: "" });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("nothing was imported");
    }
    expect(await revisionCount(dir)).toBe(0);
  });
});

describe("a record for a mint the issuer feed covers", () => {
  test("is refused without --override-feed, naming the record and the mint; with it, stored and said so", async () => {
    const dir = tempDir();
    expect(cli(["migrate", "--data-dir", dir]).code).toBe(0);
    // The feed's asset list maps HONx to its mint (as the issuer poll stores it).
    await withLedger(dir, (l) => storeObservations(l.db, { instruments: [{ mint: HONX_MINT, symbol: "HONx", name: "Honeywell xStock", underlying: "HON", isin: null, decimals: 8 }] }));
    const file = fileWith("honx.json", JSON.stringify([honxDividend()]));

    const refused = cli(["import", "issuer-records", file, "--data-dir", dir]);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: "" });
    expect(refused.stderr).toContain(`record operator-honx-2026-08 (version 1) is for HONx (${HONX_MINT}), a mint the issuer feed covers`);
    expect(refused.stderr).toContain("Pass --override-feed to import it anyway; nothing was imported");
    expect(await revisionCount(dir)).toBe(0);

    const forced = cli(["import", "issuer-records", file, "--override-feed", "--data-dir", dir]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`override: HONx (${HONX_MINT}) is a mint the issuer feed covers; these records are matched beside the feed's own records for every tenant holding them`);
    expect(await revisionCount(dir)).toBe(1);
    const json = cli(["import", "issuer-records", fileWith("v2.json", JSON.stringify([honxDividend({ version: 2 })])), "--override-feed", "--json", "--data-dir", dir]);
    expect(JSON.parse(json.stdout)).toMatchObject({ newRevisions: 1, overridesFeed: [{ mint: HONX_MINT, symbol: "HONx" }] });
  });

  test("a mint only its own metadata names is not covered by the feed: no flag needed", async () => {
    const dir = tempDir();
    expect(cli(["migrate", "--data-dir", dir]).code).toBe(0);
    await withLedger(dir, (l) =>
      storeObservations(l.db, { instruments: [{ mint: HONX_MINT, symbol: "HONx", name: "Look-alike", underlying: null, isin: null, decimals: 8, source: "token-metadata", uri: null }] }),
    );
    const r = cli(["import", "issuer-records", fileWith("honx.json", JSON.stringify([honxDividend()])), "--data-dir", dir, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ newRevisions: 1, overridesFeed: [] });
  });
});
