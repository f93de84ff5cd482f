// The query string's pairs as the query rules read them (src/http/query-check.ts queryEntries),
// property-tested against the oracle, URLSearchParams: the same pairs in the same order for any
// text, and for the `search` of any URL the parser gives (what the app hands it), whether or not
// the text takes queryEntries' own split or is left to URLSearchParams. And the query string the
// app slices from a request's URL (searchOf) holds the pairs the URL parser finds in it.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { queryEntries, searchOf } from "../../src/http/query-check.ts";

const runs = { numRuns: 2000 };
const pairs = (search: string) => [...queryEntries(search)];
const oracle = (search: string) => [...new URLSearchParams(search)];
// Text made mostly of what a query string is made of, so that pieces, names and values all occur.
const queryText = fc
  .array(fc.oneof(fc.constantFrom("&", "=", "?", "%", "+", "%2", "%41", "%e2%82%ac", "%zz", "owner", "limit", "1", " ", "é", "€", "\u{1f600}", "\ud800"), fc.string({ maxLength: 4 })), {
    maxLength: 12,
  })
  .map((parts) => parts.join(""));

describe("queryEntries", () => {
  test("gives URLSearchParams' pairs for any text, with or without its '?'", () => {
    fc.assert(
      fc.property(queryText, (text) => {
        expect(pairs(text)).toEqual(oracle(text));
        expect(pairs(`?${text}`)).toEqual(oracle(`?${text}`));
      }),
      runs,
    );
  });

  test("gives URLSearchParams' pairs for the search of any URL the parser gives", () => {
    fc.assert(
      fc.property(queryText, (text) => {
        const url = new URL(`http://127.0.0.1/v1/portfolio?${text}`);
        expect(pairs(url.search)).toEqual([...url.searchParams]);
      }),
      runs,
    );
  });

  test("splits plain text itself: names, values, pieces without '=', empty pieces", () => {
    expect(pairs("?owner=abc&limit=5&&flag&=x&y=")).toEqual([
      ["owner", "abc"],
      ["limit", "5"],
      ["flag", ""],
      ["", "x"],
      ["y", ""],
    ]);
    expect(pairs("")).toEqual([]);
    expect(pairs("?")).toEqual([]);
  });
});

describe("searchOf", () => {
  test("a request's URL gives the pairs its parsed search holds, for any query text and path", () => {
    const pathText = fc.array(fc.constantFrom("/", "v1", "portfolio", ".", "..", "%2F", "é", "a b", ";", "@", ":"), { maxLength: 6 }).map((p) => `/${p.join("")}`);
    fc.assert(
      fc.property(pathText, fc.option(queryText), fc.option(fc.string({ maxLength: 6 })), (path, text, fragment) => {
        const given = `http://127.0.0.1:3000${path}${text === null ? "" : `?${text}`}${fragment === null ? "" : `#${fragment}`}`;
        const request = new Request(given);
        const parsed = new URL(request.url);
        expect(pairs(searchOf(request.url))).toEqual([...parsed.searchParams]);
        if (parsed.search !== "") expect(searchOf(request.url)).toBe(parsed.search);
      }),
      runs,
    );
  });

  test("is empty without a '?', and ends before a fragment", () => {
    expect(searchOf("http://127.0.0.1/v1/health")).toBe("");
    expect(searchOf("http://127.0.0.1/v1/portfolio?owner=a#b")).toBe("?owner=a");
    expect(searchOf("http://127.0.0.1/v1/portfolio?")).toBe("?");
  });
});
