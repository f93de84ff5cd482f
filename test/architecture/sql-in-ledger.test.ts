// All SQL lives in src/ledger (docs/sql.md): the CLI, the HTTP routes, the sync and the demo call
// the ledger's functions. A module outside src/ledger neither writes SQL nor reaches the
// statements (src/ledger/tables/, src/ledger/sql/statement.ts), so it cannot run a query of its own.
import { Glob } from "bun";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const outside = [...new Glob("{src,cli}/**/*.ts").scanSync(root)].filter((f) => !f.startsWith("src/ledger/"));

const SQL = /\b(SELECT\s+[\w*"(]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+[\w"]+\s+SET|PRAGMA\s+\w|CREATE\s+(TABLE|INDEX|TRIGGER))/;

describe("SQL outside src/ledger", () => {
  test("the check reads the modules it means to", () => {
    expect(outside.length).toBeGreaterThan(50);
    expect(outside).toContain("src/sync/job.ts");
    expect(outside).toContain("cli/sync.ts");
  });

  test("no module outside src/ledger writes SQL", () => {
    const found = outside
      .flatMap((f) =>
        readFileSync(join(root, f), "utf8")
          .split("\n")
          .map((line, i) => [f, i + 1, line] as const),
      )
      .filter(([, , line]) => SQL.test(line))
      .map(([f, n, line]) => `${f}:${n}: ${line.trim()}`);
    expect(found).toEqual([]);
  });

  test("no module outside src/ledger reaches the statements", () => {
    const found = outside.filter((f) => /from\s+"[^"]*ledger\/(tables\/[^"]+|sql\/statement\.ts)"/.test(readFileSync(join(root, f), "utf8")));
    expect(found).toEqual([]);
  });
});
