// `ca-ledger rates import` through the compiled binary: the real ECB sample imports whole and a
// second import changes nothing; a bad file names its line and column, exits 1 and leaves the
// table exactly as it was (one transaction); usage errors exit 2.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { newLedgerLine } from "./trust-helpers.ts";
import { q } from "../support/sql.ts";

const sample = join(import.meta.dir, "..", "fixtures", "ecb", "eurofxref-hist-2025-12-01-to-2026-01-09.csv");
afterAll(removeTempDirs);

const stored = (dir: string) =>
  withLedger(dir, (l) =>
    l.db.all(...q<{ currency: string; date: string; per_eur: string; imported_at: string }>`SELECT currency, date, per_eur, imported_at FROM reference_rates ORDER BY currency, date`),
  );

describe("rates import", async () => {
  test("the real sample imports whole; importing it again changes nothing", async () => {
    const dir = tempDir();
    const first = cli(["rates", "import", sample, "--data-dir", dir]);
    // A new data dir: the one line saying where the new ledger goes, and nothing else.
    expect({ code: first.code, stderr: first.stderr.replace(newLedgerLine, "") }).toEqual({ code: 0, stderr: "" });
    expect(first.stdout).toBe("imported 27 days (2025-12-01 to 2026-01-09), 41 currencies: 804 rates added, 0 changed, 0 already stored\n");
    const rows = await stored(dir);
    expect(rows.length).toBe(804);
    expect(rows.find((r) => r.currency === "USD" && r.date === "2025-12-31")!.per_eur).toBe("1.175");
    expect(rows.find((r) => r.currency === "BGN" && r.date === "2026-01-02")).toBeUndefined(); // N/A is no row
    const again = cli(["rates", "import", sample, "--data-dir", dir, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ days: 27, currencies: 41, first: "2025-12-01", last: "2026-01-09", added: 0, changed: 0, unchanged: 804 });
    expect(await stored(dir)).toEqual(rows);
  });

  test("a corrected quote in a later file replaces the stored one, and only it", async () => {
    const dir = tempDir();
    expect(cli(["rates", "import", sample, "--data-dir", dir]).code).toBe(0);
    const before = await stored(dir);
    const corrected = join(dir, "corrected.csv");
    writeFileSync(corrected, readFileSync(sample, "utf8").replace("2025-12-31,1.175,", "2025-12-31,1.1751,"));
    const r = cli(["rates", "import", corrected, "--data-dir", dir, "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ added: 0, changed: 1, unchanged: 803 });
    const after = await stored(dir);
    expect(after.filter((row, i) => JSON.stringify(row) !== JSON.stringify(before[i])).map((row) => [row.currency, row.date, row.per_eur])).toEqual([["USD", "2025-12-31", "1.1751"]]);
  });

  test("a bad file names the line and column, exits 1 and changes nothing", async () => {
    const dir = tempDir();
    expect(cli(["rates", "import", sample, "--data-dir", dir]).code).toBe(0);
    const before = await stored(dir);
    const lines = readFileSync(sample, "utf8").split("\n");
    const variant = (name: string, edit: (ls: string[]) => string[]) => {
      const p = join(dir, name);
      writeFileSync(p, edit([...lines]).join("\n"));
      return p;
    };
    const cases: [string, string, RegExp][] = [
      // A new day whose rates are new, followed further down by a bad line: the good lines are not kept either.
      [
        "late-error.csv",
        variant("late-error.csv", (ls) => [
          ls[0]!,
          ls[1]!.replace("2026-01-09", "2026-01-12").replace("1.1642", "1.1600"),
          ...ls.slice(1, 20),
          ls[20]!.replace(/,24\.\d+,/, ",24,3,"),
          ...ls.slice(21),
        ]),
        /line 22: expected 43 columns like the header, found 44/,
      ],
      [
        "bad-rate.csv",
        variant("bad-rate.csv", (ls) => ls.map((l, i) => (i === 4 ? l.replace(/^([^,]+),([^,]+),([^,]+)/, "$1,$2,12O.5") : l))),
        /line 5, column 3: JPY: expected a positive decimal rate or N\/A/,
      ],
      ["bad-date.csv", variant("bad-date.csv", (ls) => ls.map((l, i) => (i === 2 ? l.replace(/^[^,]+/, "2026-02-30") : l))), /line 3, column 1: expected a date written YYYY-MM-DD/],
      ["bad-header.csv", variant("bad-header.csv", (ls) => [ls[0]!.replace("JPY", "yen"), ...ls.slice(1)]), /line 1, column 3: expected a three-letter currency code/],
      ["not-ecb.csv", variant("not-ecb.csv", () => ["name,value", "a,1"]), /line 1, column 1: the header must start with Date/],
    ];
    for (const [name, file, message] of cases) {
      const r = cli(["rates", "import", file, "--data-dir", dir]);
      expect({ name, code: r.code, stdout: r.stdout }).toEqual({ name, code: 1, stdout: "" });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(`${name} line`);
      expect(r.stderr).toContain("nothing was imported");
      expect(await stored(dir)).toEqual(before);
    }
    const missing = cli(["rates", "import", join(dir, "nope.csv"), "--data-dir", dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read");
  });

  test("usage errors exit 2", () => {
    const dir = tempDir();
    for (const args of [
      ["rates", "import"],
      ["rates", "import", sample, "--bogus"],
      ["rates", "import", sample, sample],
      ["rates", "export"],
    ]) {
      const r = cli([...args, "--data-dir", dir]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
  });
});
