// Headers on every dashboard answer. The policy allows only this origin's own script, style and
// requests: no inline script or style, no framing, no plugins, no other site.
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders: Record<string, string> = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Adds the headers a response does not set itself. */
export function withDefaults(res: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) if (!res.headers.has(name)) res.headers.set(name, value);
  return res;
}
