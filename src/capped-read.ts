// Reading a body with a cap: a chunked request without content-length, or a hostile or broken
// server sending hundreds of megabytes, cannot make us hold more than the cap. Used by the HTTP
// app's parser, the dashboard's sign-in and the outbound clients; a file read line by line (the
// rates import) holds one line at a time.

/**
 * The stream as UTF-8 text, or null once it passes `max` bytes, or once `take` (told each chunk's
 * size, for a budget shared by several reads) refuses one: reading stops and cancels there.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, max: number, take?: (bytes: number) => boolean): Promise<string | null> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max || (take && !take(value.byteLength))) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A line longer than the reader's cap: `line` counts from 1. */
export class LineTooLong extends Error {
  constructor(
    readonly line: number,
    readonly max: number,
  ) {
    super(`line ${line}: longer than ${max} characters`);
    this.name = "LineTooLong";
  }
}

/**
 * The stream's UTF-8 text, line by line (LF or CRLF, the line end not included), holding one line
 * at a time: a line past `maxLine` characters throws LineTooLong instead of being gathered.
 */
export async function* readLinesCapped(body: ReadableStream<Uint8Array>, maxLine: number): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let line = 1;
  const strip = (l: string) => (l.endsWith("\r") ? l.slice(0, -1) : l);
  // A line's "\r" (CRLF) is not counted against the cap.
  const take = function* (text: string) {
    pending += text;
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
      const l = pending.slice(start, nl);
      start = nl + 1;
      if (strip(l).length > maxLine) throw new LineTooLong(line, maxLine);
      line++;
      yield strip(l);
    }
    pending = pending.slice(start);
    if (pending.length > maxLine + 1) throw new LineTooLong(line, maxLine);
  };
  for await (const chunk of body) yield* take(decoder.decode(chunk, { stream: true }));
  yield* take(decoder.decode());
  if (pending !== "") {
    if (strip(pending).length > maxLine) throw new LineTooLong(line, maxLine);
    yield strip(pending);
  }
}
