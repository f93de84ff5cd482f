// Sending one signed delivery over HTTP (docs/events.md#delivery-and-retries). A POST of the
// stored body with the Standard Webhooks headers; any 2xx is delivered; a redirect is not
// followed (it is a failure that says to update the URL); an attempt, answer included, ends after
// 10 s; at most 64 KiB of the answer is read and 500 characters kept. What went wrong is described
// by the receiver's scheme, host and port and the cause, never by the URL's path or query, which
// often carry a token. The request itself goes through the one HTTP transport (src/net), which
// the chain and issuer clients use too.
import { describeUrl } from "../describe-url.ts";
import type { WebhookHeaders } from "../domain/events/signature.ts";
import { exchange, type FetchLike } from "../net/http-transport.ts";
import { wallClock, type Clock } from "../net/retry.ts";
import { version } from "../version.ts";

export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const KEPT_ANSWER_CHARS = 500;

export interface WebhookRequest {
  url: string;
  headers: WebhookHeaders;
  body: string;
}

export type SendResult = { ok: true; status: number; answer: string } | { ok: false; status: number | null; answer: string; retryAfterMs: number | null; abandoned?: true };

/** Sends one attempt; `signal` aborts it (the worker is stopping). Never throws for the receiver's faults. */
export type Send = (request: WebhookRequest, signal?: AbortSignal) => Promise<SendResult>;

export interface TransportOptions {
  timeoutMs?: number;
  fetch?: FetchLike;
  /** For Retry-After given as a date. */
  now?: () => Date;
}

/** The answer's text as kept for `webhooks deliveries`: control characters out, cut at 500 characters. */
function keep(text: string): string {
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ").trim();
  return clean.length > KEPT_ANSWER_CHARS ? `${clean.slice(0, KEPT_ANSWER_CHARS)}…` : clean;
}

export function createWebhookTransport(options: TransportOptions = {}): Send {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());
  const clock: Clock = { ...wallClock, now: () => now().getTime() };
  return async (request, stop) => {
    const where = describeUrl(request.url);
    // One attempt, no retries here: the outbox's schedule retries (docs/events.md#delivery-and-retries).
    const answer = await exchange({ fetch: options.fetch, timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES, clock, signal: stop }, request.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": `ca-ledger/${version} (webhooks)`, ...request.headers },
      body: request.body,
      redirect: "manual",
    });
    if (stop?.aborted) return { ok: false, status: null, answer: `attempt to ${where} abandoned: the server is stopping`, retryAfterMs: null, abandoned: true };
    if (answer.kind === "timeout") return { ok: false, status: null, answer: `no answer from ${where} within ${timeoutMs / 1000} s`, retryAfterMs: null };
    if (answer.kind === "network_error") return { ok: false, status: null, answer: `could not deliver to ${where}: ${answer.detail}`, retryAfterMs: null };
    const status = answer.status!;
    const kept = answer.kind === "answer" ? keep(`HTTP ${status}${answer.text ? `: ${answer.text}` : ""}`) : `HTTP ${status}; answer over ${MAX_ANSWER_BYTES / 1024} KiB, not kept`;
    if (status >= 200 && status <= 299) return { ok: true, status, answer: kept };
    if (status >= 300 && status <= 399) {
      return { ok: false, status, answer: `HTTP ${status} from ${where}: a redirect, not followed (update the subscription's URL)`, retryAfterMs: null };
    }
    return { ok: false, status, answer: kept, retryAfterMs: answer.kind === "answer" ? answer.retryAfterMs : null };
  };
}
