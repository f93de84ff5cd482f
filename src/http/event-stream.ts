// The live stream's body (docs/events.md#the-live-stream): a tenant's events as Server-Sent Events,
// read from the outbox after the last one sent, about once a second, with a keep-alive comment
// between them so neither Bun's idle timeout (10 s) nor a proxy closes a quiet stream. Ends when
// the client goes away.
import { sseComment, sseMessage } from "../domain/events/sse.ts";
import { formatEventId } from "../domain/events/types.ts";
import { tenantEventsAfter } from "../ledger/outbox.ts";
import type { Sql } from "../ledger/sql/port.ts";

const POLL_MS = 1_000;
const KEEP_ALIVE_MS = 5_000;
/** How long a client waits before reconnecting after the stream ends. */
const RETRY_MS = 3_000;

export function eventStream(db: Sql, tenantId: number, after: bigint, opts: { pollMs?: number } = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let last = after;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let quietSince = Date.now();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // The reconnection delay, and a comment so the client sees the stream open at once.
      controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n${sseComment("ca-ledger events")}`));
      const tick = async () => {
        if (closed) return;
        try {
          for (;;) {
            const batch = await tenantEventsAfter(db, tenantId, last);
            if (closed) return;
            for (const e of batch) {
              controller.enqueue(encoder.encode(sseMessage({ id: formatEventId(e.seq), event: e.type, data: e.body })));
              last = e.seq;
              quietSince = Date.now();
            }
            if (batch.length < 100) break;
          }
          if (Date.now() - quietSince >= KEEP_ALIVE_MS) {
            controller.enqueue(encoder.encode(sseComment("keep-alive")));
            quietSince = Date.now();
          }
        } catch {
          // The client went away meanwhile, or the database failed (the server is stopping, the
          // file is gone): end the stream; a client still there reconnects with its Last-Event-ID.
          if (!closed) {
            closed = true;
            try {
              controller.close();
            } catch {
              /* already closed */
            }
          }
          return;
        }
        if (!closed) timer = setTimeout(tick, opts.pollMs ?? POLL_MS);
      };
      void tick();
    },
    cancel() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  });
}
