// The change mark beside a SQLite ledger (src/ledger/sql/change-mark.ts, docs/sql.md#the-change-mark):
// real files, two marks on one path standing for two processes.
import { afterAll, describe, expect, test } from "bun:test";
import { statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openChangeMark } from "../../src/ledger/sql/change-mark.ts";
import { removeTempDirs, tempDir } from "../ops/helpers.ts";

afterAll(removeTempDirs);

describe("the change mark", () => {
  test("a new mark is private and has its first bytes; what one process changes, another sees as changed", () => {
    const db = join(tempDir("cal-mark-"), "ledger.db");
    const reader = openChangeMark(db)!;
    const writer = openChangeMark(db)!;
    try {
      const st = statSync(`${db}-mark`);
      expect({ mode: st.mode & 0o777, size: st.size }).toEqual({ mode: 0o600, size: 8 });
      reader.remember();
      expect(reader.unchanged()).toBe(true);
      expect(reader.unchanged()).toBe(true); // reading it changes nothing
      writer.changed();
      expect(reader.unchanged()).toBe(false);
      reader.remember();
      expect(reader.unchanged()).toBe(true);
      reader.changed(); // its own commits too
      expect(reader.unchanged()).toBe(false);
    } finally {
      reader.close();
      writer.close();
    }
  });

  test("a mark it cannot read in full counts as changed, so no snapshot is kept on it", () => {
    const db = join(tempDir("cal-mark-"), "ledger.db");
    const mark = openChangeMark(db)!;
    try {
      truncateSync(`${db}-mark`, 3);
      mark.remember();
      expect(mark.unchanged()).toBe(false);
      mark.changed(); // rewrites all 8 bytes
      mark.remember();
      expect(mark.unchanged()).toBe(true);
      truncateSync(`${db}-mark`, 0);
      expect(mark.unchanged()).toBe(false);
    } finally {
      mark.close();
    }
  });

  test("an existing mark keeps its bytes when opened; none can be opened where the file cannot be", () => {
    const dir = tempDir("cal-mark-");
    const db = join(dir, "ledger.db");
    writeFileSync(`${db}-mark`, Buffer.from("12345678"));
    const first = openChangeMark(db)!;
    first.remember();
    const second = openChangeMark(db)!; // another process opening the ledger does not change it
    expect(first.unchanged()).toBe(true);
    first.close();
    second.close();
    expect(openChangeMark(join(dir, "no-such-dir", "ledger.db"))).toBeNull();
  });
});
