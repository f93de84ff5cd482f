// How a provider and its failures are written for a person (errors, logs, a job's status): by its
// host only, with the cause of a failure in words, and with any part of its URL it echoes back
// cut out. A provider's URL can carry a key in its path or query (docs/providers.md#sync-errors).

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
