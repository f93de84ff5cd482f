// Settings: a flag wins over the environment, the environment over the default; bad values are
// refused with the variable's name; the data dir follows docs/operations.md#data-dir.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, settings } from "../src/config.ts";
import { DEFAULT_STABLECOINS, USDC_MINT } from "../src/domain/lots/stablecoins.ts";

test("defaults, then env, then flags", () => {
  const d = loadConfig({}, { HOME: "/home/u" });
  expect(d).toMatchObject({
    port: 4600,
    host: "127.0.0.1",
    rateLimitPerMinute: 120,
    authFailuresPerMinute: 20,
    trustProxy: false,
    issuerPollSeconds: 3600,
    mintPollSeconds: 300,
    logLevel: "info",
    rpcConcurrency: 4,
    rpcSpacingMs: 0,
  });
  expect(d.xstocksApiUrl).toBe("https://api.xstocks.fi/api/v2");
  const e = loadConfig({}, { HOME: "/home/u", PORT: "5000", TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: "7", RPC_SPACING_MS: "250" });
  expect(e).toMatchObject({ port: 5000, trustProxy: true, rateLimitPerMinute: 7, rpcSpacingMs: 250 });
  const f = loadConfig({ port: "6000", "rate-limit-per-minute": "9", "trust-proxy": false }, { HOME: "/home/u", PORT: "5000", TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: "7" });
  expect(f).toMatchObject({ port: 6000, rateLimitPerMinute: 9, trustProxy: false });
});

test("data dir: CA_LEDGER_DATA_DIR, else XDG_DATA_HOME/ca-ledger, else ~/.local/share/ca-ledger; the flag wins", () => {
  expect(loadConfig({}, { HOME: "/home/u" }).dataDir).toBe("/home/u/.local/share/ca-ledger");
  expect(loadConfig({}, { HOME: "/home/u", XDG_DATA_HOME: "/xdg" }).dataDir).toBe("/xdg/ca-ledger");
  expect(loadConfig({}, { HOME: "/home/u", XDG_DATA_HOME: "/xdg", CA_LEDGER_DATA_DIR: "/data" }).dataDir).toBe("/data");
  expect(loadConfig({ "data-dir": "/flag" }, { CA_LEDGER_DATA_DIR: "/data" }).dataDir).toBe("/flag");
});

test("bad values are refused with the variable's name", () => {
  for (const [env, pattern] of [
    [{ PORT: "abc" }, /PORT/],
    [{ PORT: "70000" }, /PORT/],
    [{ RATE_LIMIT_PER_MINUTE: "0" }, /RATE_LIMIT_PER_MINUTE/],
    [{ TRUST_PROXY: "maybe" }, /TRUST_PROXY/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [{ RPC_CONCURRENCY: "0" }, /RPC_CONCURRENCY/],
  ] as const) {
    expect(() => loadConfig({}, { HOME: "/h", ...env })).toThrow(ConfigError);
    expect(() => loadConfig({}, { HOME: "/h", ...env })).toThrow(pattern);
  }
});

test("every setting has an env variable, a flag and a description", () => {
  for (const s of settings) {
    expect(s.env).toMatch(/^[A-Z_]+$/);
    expect(s.flag).toMatch(/^[a-z-]+$/);
    expect(s.description.length).toBeGreaterThan(5);
  }
  expect(new Set(settings.map((s) => s.env)).size).toBe(settings.length);
});

test("docs/configuration.md's settings table lists every setting, with its flag, env variable and default", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "docs", "configuration.md"), "utf8");
  const rows = readme.split("\n").filter((l) => l.startsWith("| `--"));
  for (const s of settings) {
    const row = rows.find((r) => r.startsWith(`| \`--${s.flag}\` | \`${s.env}\` |`));
    expect({ setting: s.env, row: row !== undefined }).toEqual({ setting: s.env, row: true });
    if (!/^[0-9]+$/.test(s.default)) continue; // paths and URLs are described there in words
    expect({ setting: s.env, defaultShown: row!.split("|")[3]!.trim() }).toEqual({ setting: s.env, defaultShown: s.default });
  }
});

test("lots: TAX_TREATMENT, LOT_METHOD and STABLECOINS, their defaults and their refusals", () => {
  const d = loadConfig({}, { HOME: "/h" });
  expect(d).toMatchObject({ taxTreatment: "income", lotMethod: "fifo" });
  expect(d.stablecoins).toEqual([...DEFAULT_STABLECOINS]);
  const e = loadConfig({}, { HOME: "/h", TAX_TREATMENT: "deferred", LOT_METHOD: "hifo", STABLECOINS: ` ${USDC_MINT} ,${USDC_MINT},So11111111111111111111111111111111111111112` });
  expect(e).toMatchObject({ taxTreatment: "deferred", lotMethod: "hifo", stablecoins: [USDC_MINT, "So11111111111111111111111111111111111111112"] });
  expect(loadConfig({ "lot-method": "average", "tax-treatment": "income" }, { HOME: "/h", LOT_METHOD: "lifo", TAX_TREATMENT: "deferred" })).toMatchObject({
    lotMethod: "average",
    taxTreatment: "income",
  });
  for (const [env, pattern] of [
    [{ TAX_TREATMENT: "both" }, /TAX_TREATMENT must be income or deferred, got "both"/],
    [{ LOT_METHOD: "FIFO" }, /LOT_METHOD must be fifo, lifo, hifo or average/],
    [{ STABLECOINS: `${USDC_MINT},USDC` }, /STABLECOINS must list mint addresses .* got "USDC"/],
    [{ STABLECOINS: " , " }, /STABLECOINS/],
  ] as const)
    expect(() => loadConfig({}, { HOME: "/h", ...env })).toThrow(pattern);
});
