// src/domain/events is pure: it imports only the domain (and node:crypto for hashes), and reads
// no clock, randomness or environment; the clock and the random bytes are its callers' arguments.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

test("src/domain/events imports only the domain and node:crypto, and reads no clock, randomness or environment", () => {
  const dir = join(import.meta.dir, "..", "..", "src", "domain", "events");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
  expect(files.length).toBeGreaterThanOrEqual(6);
  for (const f of files) {
    const text = readFileSync(join(dir, f), "utf8");
    for (const [, from] of text.matchAll(/from\s+"([^"]+)"/g)) {
      expect({ f, from, ok: from === "node:crypto" || (/^\.\.?\//.test(from!) && !/\.\.\/\.\./.test(from!)) }).toEqual({ f, from, ok: true });
    }
    expect({ f, impure: /Date\.now|new Date\(\)|performance\.|Math\.random|randomBytes\(|process\.|require\(/.test(text) }).toEqual({ f, impure: false });
  }
});
