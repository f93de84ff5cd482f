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
 * past the cap.
 */
export async function readBodyCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new BodyTooLarge(maxBytes);
  }
  const text = await readCapped(res.body, maxBytes);
  if (text === null) throw new BodyTooLarge(maxBytes);
  return text;
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
