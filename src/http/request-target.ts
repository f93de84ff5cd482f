// A request's path and query string, sliced from its URL's text: the checks in onRequest need
// only these two, and parsing the whole URL (`new URL`) on every request cost more than the rest
// of the query string's checks. The text is the one the server gives (`request.url`): absolute,
// already normalised, so the slices are what the URL parser would give (the property test says
// so); the URL is still parsed where its other parts are needed (the dashboard, a missing Host).

/** The path: from the first `/` after the scheme's `//` up to a `?` or a fragment. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = firstOf(url, "?", "#", start);
  return url.slice(start, end);
}

/**
 * The query string: from its first `?` up to a fragment, "" without a `?` before the fragment.
 * What `new URL(text).search` gives, but for a lone `?`, kept here (it holds no parameter either).
 */
export function searchOf(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#");
  if (hash < 0) return url.slice(q);
  return hash < q ? "" : url.slice(q, hash);
}

/** The index of the first `a` or `b` from `from`, or the text's length. */
function firstOf(text: string, a: string, b: string, from: number): number {
  const i = text.indexOf(a, from);
  const j = text.indexOf(b, from);
  if (i < 0) return j < 0 ? text.length : j;
  return j < 0 ? i : Math.min(i, j);
}
