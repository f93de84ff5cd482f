// Shared pieces of the two HTTP transports (Solana RPC, xStocks API): backoff with jitter,
// `retry-after` parsing and a cancellable sleep. Plain functions so both clients and their
// tests can drive them with a fixed random source.
import { readCapped } from "../capped-read.ts";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Exponential backoff with "full jitter": a uniform delay in [0.5, 1] x base x 2^attempt,
 * capped. Half of the window is kept as a floor so a retry never fires instantly after a 429.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * `retry-after` is either whole seconds or an HTTP date (RFC 9110 §10.2.3). Returns
 * milliseconds to wait, or null when absent or unreadable (the caller falls back to backoff).
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value == null) return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** Thrown when an answer's body passes the cap: the rest is never read or held in memory. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`answer larger than ${maxBytes} bytes`);
    this.name = "BodyTooLarge";
  }
}

/**
 * The body as text, reading at most `maxBytes` (a hostile or broken server can send hundreds of
 * megabytes; holding them, then parsing them, took over a gigabyte). Stops and cancels the stream
 * past the cap. With a `budget` (bytes several answers share) each chunk is taken from it too, and
 * once it runs out its `spent()` error is thrown instead.
 */
export async function readBodyCapped(res: Response, maxBytes: number, budget?: ByteBudget): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new BodyTooLarge(maxBytes);
  }
  let spent = false;
  const take = budget && ((n: number) => {
    if (budget.take(n)) return true;
    spent = true;
    return false;
  });
  const text = await readCapped(res.body, maxBytes, take);
  if (text === null) throw spent ? budget!.spent() : new BodyTooLarge(maxBytes);
  return text;
}

/** Bytes several reads share (one issuer poll's answers): `take` false once they pass it; `spent` is the error to throw then. */
export interface ByteBudget {
  take(bytes: number): boolean;
  spent(): Error;
}

export function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a transport reads and waits on for its pacing: the wall clock, or a test's. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const wallClock: Clock = { now: () => Date.now(), sleep };

/** The status codes a well-behaved client retries: throttling and transient server trouble. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599);
}

/** A provider's URL as it may be shown: its host (and port) only (src/describe-url.ts). */
export { urlHost as providerHost } from "../describe-url.ts";

/**
 * Text a provider sent back (a JSON-RPC error message, say), with every part of its URL that may
 * be secret cut out: a server can echo the request line. Parts shorter than 6 characters are
 * kept (they name nothing secret, and cutting them would mangle ordinary words).
 */
export function withoutSecrets(text: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return text;
  }
  const secrets = [url, parsed.pathname + parsed.search, parsed.search, ...parsed.pathname.split("/"), ...[...parsed.searchParams.values()], parsed.password]
    .filter((s) => s.length >= 6)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of secrets) out = out.split(s).join("…");
  return out;
}

// Bun's fetch names a failure by its `code` (a system error or a TLS verdict); its message can
// quote the whole URL, key included, so only the code is read.
const NETWORK_CAUSES: [RegExp, string][] = [
  [/^ECONNREFUSED$/, "connection refused"],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|EAI_NODATA|DNSException)$/, "DNS lookup failed"],
  [/^(ETIMEDOUT|ConnectionTimeout|TimeoutError)$/, "connection timed out"],
  [/^(ECONNRESET|EPIPE|ConnectionClosed|ECONNABORTED)$/, "connection closed unexpectedly"],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, "host unreachable"],
  [/^(EPROTO|ERR_SSL_.*|ERR_TLS_.*|.*CERT.*|.*SELF_SIGNED.*|UNABLE_TO_.*|.*SIGNATURE.*)$/, "TLS failed"],
];

/**
 * Why a request never got an answer, for a person: "connection refused (ECONNREFUSED)", "DNS
 * lookup failed (ENOTFOUND)", "TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)"... never a bare
 * `TypeError`, never the URL.
 */
export function networkCause(err: unknown): string {
  const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : "";
  if (code) {
    const known = NETWORK_CAUSES.find(([pattern]) => pattern.test(code));
    return known ? `${known[1]} (${code})` : `network error (${code})`;
  }
  const name = err instanceof Error ? err.name : "";
  return name && name !== "TypeError" && name !== "Error" ? `network error (${name})` : "network error (no code given)";
}
