// Helpers for the hostile tests: a timed fetch, a raw-socket HTTP/1.1 client (for bytes fetch
// will not send: odd Host headers, request targets, chunked bodies), the error-body contract of
// docs/api.md#errors, and a content snapshot of the ledger tables to prove a request wrote nothing.
import { createHash, randomBytes } from "node:crypto";
import { tableNames } from "../../src/ledger/sql/dialect.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { errorCodes } from "../../schemas/errors.ts";
import { q, raw } from "../support/sql.ts";

export const knownCodes = errorCodes as Record<string, number>;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

export interface Outgoing {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}

/**
 * One request over loopback with a hard timeout: a hang is a failure, not a slow test. The
 * timeout only tells a hang from an answer (generous: the machine may be loaded); how long an
 * answer took is never asserted.
 */
export async function send(base: string, req: Outgoing, timeoutMs = 30_000): Promise<Reply> {
  const res = await fetch(base + req.path, {
    method: req.method,
    headers: req.headers,
    body: req.body as BodyInit | undefined,
    signal: AbortSignal.timeout(timeoutMs),
    redirect: "manual",
    // Bun's fetch keeps connections alive; a refused request must not poison the next one.
    keepalive: true,
  });
  // A live stream (GET /v2/events) never ends: its status and headers are the answer.
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, text: "" };
  }
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

export interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: string;
  raw: string;
  timedOut: boolean;
}

/** Writes bytes to the server's socket and reads until the server closes (or the timeout). */
export function rawRequest(port: number, bytes: string | Uint8Array, timeoutMs = 3000): Promise<RawReply> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks).toString("latin1"), timedOut));
    };
    const timer = setTimeout(() => {
      finish(true);
      sock?.end();
    }, timeoutMs);
    let sock: { end(): void } | undefined;
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          sock = s;
          s.write(bytes);
        },
        data(s, d) {
          chunks.push(Buffer.from(d));
          // With Connection: close the server closes; a complete response is also enough.
          const r = parseRaw(Buffer.concat(chunks).toString("latin1"), false);
          if (r.status && complete(r)) {
            finish(false);
            s.end();
          }
        },
        close() {
          finish(false);
        },
        error() {
          finish(false);
        },
      },
    }).catch(() => finish(false));
  });
}

function complete(r: RawReply): boolean {
  const cl = r.headers.get("content-length");
  if (cl !== undefined) return Buffer.byteLength(r.body, "latin1") >= Number(cl);
  return false;
}

function parseRaw(raw: string, timedOut: boolean): RawReply {
  const end = raw.indexOf("\r\n\r\n");
  const head = end < 0 ? raw : raw.slice(0, end);
  const lines = head.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  const headers = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const i = l.indexOf(":");
    if (i > 0) headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
  }
  return { status: m ? Number(m[1]) : 0, headers, body: end < 0 ? "" : raw.slice(end + 4), raw, timedOut };
}

/**
 * The contract of every error answered by the application (docs/api.md#errors): body exactly
 * {error, code}, a known code, the status that code maps to, and the headers the table promises.
 * Returns the problems found (empty when the reply keeps the contract).
 */
export function errorProblems(status: number, headers: { get(name: string): string | null | undefined }, text: string, method = "GET"): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`server error ${status}`);
  if (!headers.get("x-request-id")) problems.push("no x-request-id");
  if (status < 400 || method === "HEAD") return problems;
  if (!(headers.get("content-type") ?? "").startsWith("application/json")) problems.push(`error content-type ${headers.get("content-type")}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`error body is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    return problems;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    problems.push("error body is not an object");
    return problems;
  }
  const keys = Object.keys(body).sort();
  if (keys.join(",") !== "code,error") problems.push(`error body keys ${keys.join(",")}`);
  const { error, code } = body as { error: unknown; code: unknown };
  if (typeof error !== "string" || error.length === 0) problems.push("error is not a sentence");
  if (typeof code !== "string" || !(code in knownCodes)) problems.push(`unknown code ${String(code)}`);
  else if (knownCodes[code] !== status) problems.push(`code ${code} maps to ${knownCodes[code]}, got ${status}`);
  if (typeof error === "string" && /at .*\.(ts|js):\d+|SQLITE_|SELECT |sqlite/i.test(error)) problems.push("error leaks internals");
  if (status === 429 && !/^\d+$/.test(headers.get("retry-after") ?? "")) problems.push("429 without retry-after");
  if (code === "missing_api_key" && !(headers.get("www-authenticate") ?? "").startsWith("Bearer")) problems.push("401 without www-authenticate");
  if (status === 405 && !headers.get("allow")) problems.push("405 without allow");
  return problems;
}

/** A well-formed key that nobody issued: `cal_` + 43 base64url characters. */
export function randomKey(): string {
  return "cal_" + randomBytes(32).toString("base64url");
}

/**
 * A digest of every table's content, except what a read may legitimately touch:
 * api_keys.last_used_at, and sync_jobs / tenant_wallets (registration is the one write a key
 * with wallets:sync may cause; the test checks those rows separately).
 */
export async function snapshot(db: Sql): Promise<Record<string, string>> {
  const skip = new Set(["sync_jobs", "tenant_wallets"]);
  const out: Record<string, string> = {};
  for (const t of await tableNames(db)) {
    if (skip.has(t)) continue;
    let rows = await db.all(...q`SELECT * FROM "${raw(t)}"`);
    if (t === "api_keys") rows = rows.map(({ last_used_at: _ignored, ...rest }) => rest);
    const lines = rows.map((r) => JSON.stringify(r)).sort();
    out[t] = `${rows.length} rows ${createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16)}`;
  }
  return out;
}

/** Runs `tasks` with at most `n` in flight. */
export async function pool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** What a response shows apart from its per-request id, date and rate-limit counters. */
export function visible(status: number, headers: Headers, text: string) {
  const hidden = new Set(["x-request-id", "date", "ratelimit-remaining", "ratelimit-reset"]);
  const h = [...headers.entries()].filter(([k]) => !hidden.has(k)).sort(([a], [b]) => a.localeCompare(b));
  return { status, headers: Object.fromEntries(h), text };
}
