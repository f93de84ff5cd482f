// The one way a URL from the settings is shown to a person (logs, errors, command output). Such
// URLs carry secrets in every part but the host: a database password in the user info or in
// `?password=`, a provider's API key in the query (`?api-key=`), in the path (`/v2/<key>`) or in
// the fragment. So only what names the place is kept: the host and port, and for PostgreSQL the
// database (docs/postgres.md#the-database-url).

const postgresSchemes = new Set(["postgres:", "postgresql:"]);
const unparsable = "(a URL that does not parse)";

/**
 * `postgres://host:port/database` for a database URL; `https://host[:port]` for any other URL
 * (a Solana RPC provider, the issuer feed). Never the user, password, rest of the path, query or
 * fragment.
 */
export function describeUrl(raw: string): string {
  const text = raw.trim();
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return unparsable;
  }
  // An '@' after the authority: a password with an unencoded '#', '?' or '/' cut the user part
  // short, and what parsed as the host and port is the user and the start of the password.
  const afterScheme = text.slice(text.indexOf("//") + 2);
  const authorityEnd = afterScheme.search(/[/?#]/);
  if (authorityEnd >= 0 && afterScheme.slice(authorityEnd).includes("@")) return unparsable;
  if (!postgresSchemes.has(u.protocol)) return `${u.protocol}//${u.host}`;
  // The database is the path's first segment; PostgreSQL defaults it to the user's name.
  return `${u.protocol}//${u.host}/${u.pathname.split("/")[1] ?? ""}`;
}

/**
 * A URL's host and port alone (`host:port`), for errors that name a provider or a database
 * server in running text: never its user, path, query or fragment.
 */
export function urlHost(raw: string): string {
  try {
    return new URL(raw.trim()).host || "(a URL without a host)";
  } catch {
    return unparsable;
  }
}
