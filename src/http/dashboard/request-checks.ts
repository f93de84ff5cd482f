// Checks on a browser's write (sign-in, sign-out, a forwarded POST): it must come from the
// dashboard's own page (Origin names this host, and the browser does not call it cross-site),
// and a signed-in write must carry the session's CSRF token in a header, which only a script of
// this origin can read (from GET /ui/session).
import { timingSafeEqual } from "node:crypto";
import type { Config } from "../../config.ts";

export const csrfHeader = "x-csrf-token";

/**
 * True when Origin is present and names the host the browser addressed. Behind a reverse proxy
 * the proxy must pass the Host header through (or the check fails closed).
 */
export function fromOwnPage(request: Request): boolean {
  const origin = request.headers.get("origin");
  const host = request.headers.get("host");
  if (!origin || !host) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false;
  }
  const site = request.headers.get("sec-fetch-site");
  return originHost === host.toLowerCase() && (site === null || site === "same-origin");
}

export function carriesToken(request: Request, expected: string): boolean {
  const given = request.headers.get(csrfHeader);
  if (!given || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** Whether the browser reached us over HTTPS (directly, or through a trusted proxy that says so). */
export function overHttps(request: Request, url: URL, config: Config): boolean {
  if (url.protocol === "https:") return true;
  return config.trustProxy && (request.headers.get("x-forwarded-proto") ?? "").split(",").pop()?.trim() === "https";
}

/** GET and HEAD read; everything else writes and needs the checks above. */
export const isRead = (method: string): boolean => method === "GET" || method === "HEAD";
