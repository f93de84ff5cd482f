// Server-Sent Events framing, read back by eventsource-parser (a maintained parser that follows
// the HTML standard's event-stream rules): whatever the id, name and data, and however the bytes
// are cut into chunks on the way, the client gets the same events.
import { describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import fc from "fast-check";
import { SseFramingError, sseComment, sseMessage, type SseMessage } from "../../src/domain/events/sse.ts";

/** Feeds the stream's UTF-8 bytes to the parser cut at the given points, as a network would. */
function readBack(stream: string, cuts: number[]): { events: EventSourceMessage[]; comments: string[]; retries: number[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c), onRetry: (r) => retries.push(r) });
  const bytes = new TextEncoder().encode(stream);
  const decoder = new TextDecoder();
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b).concat(bytes.length)) {
    parser.feed(decoder.decode(bytes.subarray(from, cut), { stream: true }));
    from = cut;
  }
  parser.feed(decoder.decode());
  return { events, comments, retries };
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom("\n", "\r\n", "\r", ":", " ", "\0", "data: x", "é", "😀"), fc.string({ unit: "grapheme", maxLength: 1 })), maxLength: 200 });
const oneLine = (min: number) => fc.string({ unit: "grapheme", minLength: min, maxLength: 40 }).filter((s) => !/[\r\n\0]/.test(s) && s.length >= min);
const message: fc.Arbitrary<SseMessage> = fc.record({ id: fc.option(oneLine(0), { nil: undefined }), event: fc.option(oneLine(1), { nil: undefined }), data: text }, { requiredKeys: ["data"] });

describe("SSE framing", () => {
  test("id, event and each data line, then a blank line", () => {
    expect(sseMessage({ id: "evt_12", event: "action.booked", data: '{"a":1}' })).toBe('id: evt_12\nevent: action.booked\ndata: {"a":1}\n\n');
    expect(sseMessage({ data: "one\r\ntwo\rthree\nfour" })).toBe("data: one\ndata: two\ndata: three\ndata: four\n\n");
    expect(sseMessage({ data: "", retry: 5000 })).toBe("retry: 5000\ndata: \n\n");
    expect(sseComment("keep-alive")).toBe(": keep-alive\n\n");
  });

  test("a field that would break the framing is refused", () => {
    expect(() => sseMessage({ id: "a\nb", data: "x" })).toThrow(SseFramingError);
    expect(() => sseMessage({ id: "a\0b", data: "x" })).toThrow(SseFramingError);
    expect(() => sseMessage({ event: "a\rb", data: "x" })).toThrow(SseFramingError);
    expect(() => sseMessage({ event: "", data: "x" })).toThrow(SseFramingError);
    expect(() => sseMessage({ data: "x", retry: -1 })).toThrow(SseFramingError);
  });

  test("property: any messages and comments, cut anywhere, parse back to the same events (line breaks as LF)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(message, fc.option(text, { nil: undefined })), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (items, cuts) => {
        const stream = items.map(([m, comment]) => (comment === undefined ? "" : sseComment(comment)) + sseMessage(m)).join("");
        const { events, comments } = readBack(stream, cuts);
        const expected = items.map(([m]) => ({ id: m.id, event: m.event, data: m.data.replace(/\r\n|\r/g, "\n") }));
        const expectedComments = items.flatMap(([, c]) => (c === undefined ? [] : c.split(/\r\n|\r|\n/)));
        expect(events.map((e) => ({ id: e.id, event: e.event, data: e.data }))).toEqual(expected);
        expect(comments).toEqual(expectedComments);
      }),
      { numRuns: 400 },
    );
  });

  test("retry reaches the client", () => {
    expect(readBack(sseMessage({ data: "x", retry: 2500 }), []).retries).toEqual([2500]);
  });
});
