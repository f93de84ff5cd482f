// Server-Sent Events framing (the HTML standard's text/event-stream; docs/events.md#the-live-stream).
// A message is `id:`, `event:` and one `data:` line per line of its data, then a blank line; a
// line starting with `:` is a comment, which clients ignore and proxies see as traffic (the
// keep-alive). Pure: text in, text out.

export interface SseMessage {
  /** The id a reconnecting client sends back as Last-Event-ID. */
  id?: string;
  /** The event name (a client's addEventListener(name)); absent: "message". */
  event?: string;
  /** Any text; line breaks (CRLF, CR, LF) become separate data lines and come back as LF. */
  data: string;
  /** Milliseconds a client waits before reconnecting. */
  retry?: number;
}

/** Thrown for a field that would break the stream's framing. */
export class SseFramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SseFramingError";
  }
}

const LINE_BREAK = /\r\n|\r|\n/;

/** One message, ending with its blank line. */
export function sseMessage(m: SseMessage): string {
  let out = "";
  if (m.id !== undefined) {
    // A NUL makes clients ignore the id; a line break would end the field early.
    if (/[\r\n\0]/.test(m.id)) throw new SseFramingError("An event id cannot hold a line break or NUL.");
    out += `id: ${m.id}\n`;
  }
  if (m.event !== undefined) {
    if (/[\r\n]/.test(m.event) || m.event === "") throw new SseFramingError("An event name is one non-empty line.");
    out += `event: ${m.event}\n`;
  }
  if (m.retry !== undefined) {
    if (!Number.isSafeInteger(m.retry) || m.retry < 0) throw new SseFramingError("retry is whole milliseconds.");
    out += `retry: ${m.retry}\n`;
  }
  // "data: " and not "data:": a client drops one space after the colon, so data that starts with
  // a space keeps it.
  for (const line of m.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out + "\n";
}

/** A comment (ignored by clients): the keep-alive, or a note at the start of the stream. */
export function sseComment(text = ""): string {
  return (
    text
      .split(LINE_BREAK)
      .map((line) => `: ${line}\n`)
      .join("") + "\n"
  );
}
