// The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
// it), Path=/ and Secure whenever the browser reached us over HTTPS.

export const sessionCookieName = "ca_ledger_session";

/** The value of one cookie from the Cookie header, or null. */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Set-Cookie for a new session id, kept by the browser until the session's absolute limit. */
export function setSessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${sessionCookieName}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

/** Set-Cookie that makes the browser drop the session cookie. */
export function clearSessionCookie(secure: boolean): string {
  return setSessionCookie("", 0, secure);
}
