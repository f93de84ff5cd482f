// The path and query string the app slices from a request's URL (src/http/request-target.ts),
// property-tested against the URL parser: for any host, path, query and fragment a Request is
// made with, the same path, and a query string holding the same pairs.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { pathOf, searchOf } from "../../src/http/request-target.ts";

const piece = (...extra: string[]) => fc.oneof(fc.constantFrom(...extra), fc.string({ maxLength: 4 }));
const host = fc.constantFrom("127.0.0.1:3000", "localhost", "[::1]:8080", "ledger.example.org", "a");
const path = fc.array(piece("/", "v1", "portfolio", ".", "..", "%2F", "é", "a b", ";", "@", ":", "?", "#"), { maxLength: 6 }).map((p) => `/${p.join("")}`);
const query = fc.option(fc.array(piece("&", "=", "?", "%", "+", "%41", "owner", "€", "/", "#"), { maxLength: 8 }).map((p) => p.join("")));
const fragment = fc.option(fc.string({ maxLength: 6 }));
const pairs = (search: string) => [...new URLSearchParams(search)];

describe("pathOf and searchOf", () => {
  test("give the parser's path, and a query string with its pairs, for any URL a Request is made with", () => {
    fc.assert(
      fc.property(host, path, query, fragment, (h, p, q, f) => {
        const url = new Request(`http://${h}${p}${q === null ? "" : `?${q}`}${f === null ? "" : `#${f}`}`).url;
        const parsed = new URL(url);
        expect(pathOf(url)).toBe(parsed.pathname);
        expect(pairs(searchOf(url))).toEqual([...parsed.searchParams]);
        if (parsed.search !== "") expect(searchOf(url)).toBe(parsed.search);
      }),
      { numRuns: 3000 },
    );
  });

  test("the path ends at the query or a fragment; the query is empty without a '?' and ends at a fragment", () => {
    expect(pathOf("http://127.0.0.1:3000/v1/portfolio?owner=a#b")).toBe("/v1/portfolio");
    expect(pathOf("http://localhost/v1/health#x")).toBe("/v1/health");
    expect(pathOf("http://[::1]:3000/")).toBe("/");
    expect(searchOf("http://127.0.0.1/v1/health")).toBe("");
    expect(searchOf("http://127.0.0.1/v1/portfolio?owner=a#b")).toBe("?owner=a");
    expect(searchOf("http://127.0.0.1/v1/portfolio#a?b")).toBe("");
    expect(searchOf("http://127.0.0.1/v1/portfolio?")).toBe("?");
  });
});
