// Sending one signed delivery over HTTP (docs/events.md#delivery-and-retries). A POST of the
// stored body with the Standard Webhooks headers; any 2xx is delivered; a redirect is not
// followed (it is a failure that says to update the URL); an attempt, answer included, ends after
// 10 s; at most 64 KiB of the answer is read and 500 characters kept. What went wrong is described
// by the receiver's scheme, host and port and the cause, never by the URL's path or query, which
// often carry a token.
import { readCapped } from "../capped-read.ts";
import { describeUrl } from "../describe-url.ts";
import type { WebhookHeaders } from "../domain/events/signature.ts";
import { parseRetryAfter, type FetchLike } from "../sources/retry.ts";
import { version } from "../version.ts";

export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const KEPT_ANSWER_CHARS = 500;

export interface WebhookRequest {
  url: string;
  headers: WebhookHeaders;
  body: string;
}

export type SendResult =
  | { ok: true; status: number; answer: string }
  | { ok: false; status: number | null; answer: string; retryAfterMs: number | null; abandoned?: true };

/** Sends one attempt; `signal` aborts it (the worker is stopping). Never throws for the receiver's faults. */
export type Send = (request: WebhookRequest, signal?: AbortSignal) => Promise<SendResult>;

export interface TransportOptions {
  timeoutMs?: number;
  fetch?: FetchLike;
  /** For Retry-After given as a date. */
  now?: () => Date;
}

// Error codes Bun and Node give for network faults, in words. Anything else is named by its code.
const CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset before an answer",
  ConnectionClosed: "connection closed before an answer",
  EPIPE: "connection closed while sending",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  FailedToOpenSocket: "could not open a connection",
};

function causeOf(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown };
  const code = typeof e?.code === "string" ? e.code : "";
  if (CAUSES[code]) return CAUSES[code]!;
  // Certificates: the code names the fault (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, …).
  if (/CERT|SSL|TLS|UNABLE_TO_(GET|VERIFY)/.test(code)) return `TLS certificate not accepted (${code})`;
  // Only a code-like word: an error's message can carry the whole URL.
  if (/^[A-Za-z0-9_]{1,40}$/.test(code)) return `network error ${code}`;
  return typeof e?.name === "string" && /^[A-Za-z]{1,40}$/.test(e.name) ? `network error (${e.name})` : "network error";
}

/** The answer's text as kept for `webhooks deliveries`: control characters out, cut at 500 characters. */
function keep(text: string): string {
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ").trim();
  return clean.length > KEPT_ANSWER_CHARS ? `${clean.slice(0, KEPT_ANSWER_CHARS)}…` : clean;
}

export function createHttpTransport(options: TransportOptions = {}): Send {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? (() => new Date());
  return async (request, stop) => {
    const where = describeUrl(request.url);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
    // The answer is read under the same deadline: a receiver that sends headers and then stalls
    // cannot hold the attempt past it.
    const deadline = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    deadline.catch(() => {});
    try {
      const res = await Promise.race([
        doFetch(request.url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": `ca-ledger/${version} (webhooks)`, ...request.headers },
          body: request.body,
          redirect: "manual",
          signal,
        }),
        deadline,
      ]);
      const text = await Promise.race([readCapped(res.body, MAX_ANSWER_BYTES), deadline]);
      const answer = text === null ? `HTTP ${res.status}; answer over ${MAX_ANSWER_BYTES / 1024} KiB, not kept` : keep(`HTTP ${res.status}${text ? `: ${text}` : ""}`);
      if (res.status >= 200 && res.status <= 299) return { ok: true, status: res.status, answer };
      if (res.status >= 300 && res.status <= 399) {
        return { ok: false, status: res.status, answer: `HTTP ${res.status} from ${where}: a redirect, not followed (update the subscription's URL)`, retryAfterMs: null };
      }
      return { ok: false, status: res.status, answer, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), now().getTime()) };
    } catch (err) {
      if (timeout.aborted) return { ok: false, status: null, answer: `no answer from ${where} within ${timeoutMs / 1000} s`, retryAfterMs: null };
      if (stop?.aborted) return { ok: false, status: null, answer: `attempt to ${where} abandoned: the server is stopping`, retryAfterMs: null, abandoned: true };
      return { ok: false, status: null, answer: `could not deliver to ${where}: ${causeOf(err)}`, retryAfterMs: null };
    }
  };
}
