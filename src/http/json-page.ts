// Bodies serialised by the handler itself, as Serialized text (route.ts) the registry sends as it
// is. A paged list answered from stored JSON rows: the rows were serialised once when the engine
// wrote them, so a page is spliced, not parsed and serialised again (the bulk of a list's cost).
// The tests validate these bodies against the same schemas as every other response.
import { Serialized } from "./route.ts";

const json = (text: string) => new Serialized(text, "application/json");

export function jsonPage(head: Record<string, unknown>, key: string, page: { rows: string[]; total: number; nextOffset: number | null }): Serialized {
  const open = JSON.stringify(head).slice(0, -1);
  return json(`${open}${open.length > 1 ? "," : ""}${JSON.stringify(key)}:[${page.rows.join(",")}],"total":${page.total},"nextOffset":${page.nextOffset === null ? "null" : page.nextOffset}}`);
}

/** A stored JSON object with fields added per request (spliced before its closing brace). */
export function jsonWith(stored: string, extra: Record<string, unknown>): Serialized {
  const more = JSON.stringify(extra).slice(1);
  return json(more === "}" ? stored : `${stored.slice(0, -1)}${stored.length > 2 ? "," : ""}${more}`);
}

/**
 * Fields computed per request followed by a stored JSON object's own fields: the same bytes as
 * `JSON.stringify({ ...head, ...JSON.parse(stored) })` when their keys differ and none is an
 * array index (which JavaScript would order first), without the parse.
 */
export function jsonBefore(head: Record<string, unknown>, stored: string): Serialized {
  const open = JSON.stringify(head).slice(0, -1);
  const rest = stored.slice(1);
  return json(open.length > 1 && rest !== "}" ? `${open},${rest}` : `${open}${rest}`);
}

/**
 * A body built here and serialised once. Sent as it is, it skips Elysia's per-request
 * response-schema check (about 45 µs on a portfolio); the tests check these bodies against the
 * same schemas instead.
 */
export function jsonBody<T>(body: T): Serialized {
  return json(JSON.stringify(body));
}
