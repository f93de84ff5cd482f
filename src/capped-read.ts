// Reading a body with a cap: a chunked request without content-length, or a hostile or broken
// server sending hundreds of megabytes, cannot make us hold more than the cap. Used by the HTTP
// app's parser, the dashboard's sign-in and the outbound clients.

/** The stream as UTF-8 text, or null once it passes `max` bytes (reading stops and cancels there). */
export async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<string | null> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
