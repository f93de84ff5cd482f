// describeUrl, the one way a URL from the settings is shown: a database URL keeps its host, port
// and database, any other URL its scheme and host, and no secret survives wherever it sits (user,
// password, query, path, fragment), for any text a person may put there.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { describeUrl } from "../src/describe-url.ts";

/** A secret as people write them: long enough to be unmistakable, any URL-safe-once-encoded text. */
const secret = fc
  .string({ minLength: 12, maxLength: 40, unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!$&'()*+,;=:@/?#%[] ".split("")) })
  .map((s) => `SECRET${s}`);
const enc = encodeURIComponent;
const host = fc.constantFrom("db.internal", "127.0.0.1", "[::1]", "pg-1.example.com", "localhost");
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const database = fc.constantFrom("ledger", "ca_ledger", "postgres", "l-1");

describe("describeUrl", () => {
  test("a PostgreSQL URL: scheme, host, port and database only, whatever secrets it carries", () => {
    fc.assert(
      fc.property(fc.constantFrom("postgres", "postgresql"), host, port, database, secret, secret, secret, (scheme, h, p, db, password, inQuery, inFragment) => {
        const at = `${h}${p === undefined ? "" : `:${p}`}`;
        const raw = `${scheme}://ledger:${enc(password)}@${at}/${db}?sslmode=require&password=${enc(inQuery)}#${enc(inFragment)}`;
        const shown = describeUrl(raw);
        expect(shown).toBe(`${scheme}://${at}/${db}`);
        for (const s of [password, inQuery, inFragment, enc(password), enc(inQuery), enc(inFragment), "SECRET", "ledger:"]) expect(shown).not.toContain(s);
      }),
      { numRuns: 300 },
    );
  });

  test("a password written without percent-encoding never shows, even the part before a '#', '?' or '/'", () => {
    fc.assert(
      fc.property(host, database, fc.integer({ min: 1, max: 99999 }), fc.constantFrom("#", "?", "/"), secret, (h, db, digits, cut, rest) => {
        const shown = describeUrl(`postgres://ledger:${digits}${cut}${rest}@${h}:5432/${db}`);
        expect(shown).toBe("(a URL that does not parse)");
      }),
      { numRuns: 200 },
    );
  });

  test("a provider's URL: scheme and host only (keys sit in the path, the query and the user part)", () => {
    fc.assert(
      fc.property(fc.constantFrom("https", "http"), host, port, secret, secret, secret, (scheme, h, p, inPath, inQuery, user) => {
        const at = `${h}${p === undefined || (scheme === "https" && p === 443) || (scheme === "http" && p === 80) ? "" : `:${p}`}`;
        const raw = `${scheme}://${enc(user)}@${at}/v2/${enc(inPath)}?api-key=${enc(inQuery)}`;
        expect(describeUrl(raw)).toBe(`${scheme}://${at}`);
        expect(describeUrl(raw)).not.toContain("SECRET");
      }),
      { numRuns: 300 },
    );
  });

  test("the real shapes: Helius, Alchemy, the issuer feed; and text that is not a URL is never echoed", () => {
    expect(describeUrl("https://mainnet.helius-rpc.com/?api-key=0f3c-SECRET")).toBe("https://mainnet.helius-rpc.com");
    expect(describeUrl("https://solana-mainnet.g.alchemy.com/v2/SECRETKEY")).toBe("https://solana-mainnet.g.alchemy.com");
    expect(describeUrl("https://api.xstocks.fi/api/v2")).toBe("https://api.xstocks.fi");
    expect(describeUrl("postgres://u:p@db:5432/ledger?password=x#y")).toBe("postgres://db:5432/ledger");
    expect(describeUrl("postgres://u:p@db")).toBe("postgres://db/");
    for (const bad of ["postgres://u:SECRET#x@db:99999/l", "not a url SECRET", "", "postgres://u:p@db:port/SECRET"]) {
      expect(describeUrl(bad)).toBe("(a URL that does not parse)");
    }
  });
});
