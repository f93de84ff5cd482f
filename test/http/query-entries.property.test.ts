// The query string's pairs as the query rules read them (src/http/query-check.ts queryEntries),
// property-tested against the oracle, URLSearchParams: the same pairs in the same order for any
// text, and for the `search` of any URL the parser gives (what the app hands it), whether or not
// the text takes queryEntries' own split or is left to URLSearchParams.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { queryEntries } from "../../src/http/query-check.ts";

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
