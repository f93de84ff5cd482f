// Standard Webhooks signing (docs/events.md#signatures). A secret is `whsec_` and the base64 of
// random bytes; the key is those bytes, not the text. Each delivery carries three headers:
// `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (this attempt, Unix
// seconds) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`
// (UTF-8). While a secret is being replaced, the delivery is signed with each secret in force and
// the signatures are sent space-separated, so a receiver holding either one accepts it.
// Pure: randomness is an argument; HMAC is a computation.
import { createHmac } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
/** Bytes of a secret we generate. */
export const SECRET_BYTES = 32;
// The specification's bounds for a symmetric secret: at least 24 bytes, at most 64.
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class SignatureInputError extends Error {
  constructor(
    readonly code: "invalid_webhook_secret" | "invalid_webhook_id" | "invalid_webhook_timestamp",
    message: string,
  ) {
    super(message);
    this.name = "SignatureInputError";
  }
}

/** A new secret: `whsec_` + base64 of 32 bytes from `random` (the caller's CSPRNG, e.g. crypto.randomBytes). */
export function generateSecret(random: (n: number) => Uint8Array): string {
  const bytes = random(SECRET_BYTES);
  if (bytes.length !== SECRET_BYTES) throw new RangeError(`random(${SECRET_BYTES}) returned ${bytes.length} bytes`);
  return SECRET_PREFIX + Buffer.from(bytes).toString("base64");
}

/**
 * The HMAC key of a secret: the bytes its base64 decodes to. The `whsec_` prefix is required
 * (it is how a person and a library tell the scheme). The error never repeats the secret.
 */
export function secretKeyBytes(secret: string): Uint8Array {
  if (!secret.startsWith(SECRET_PREFIX)) throw new SignatureInputError("invalid_webhook_secret", "A webhook secret starts with whsec_.");
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(b64)) throw new SignatureInputError("invalid_webhook_secret", "A webhook secret is whsec_ followed by standard base64 (A-Z a-z 0-9 + /, = padding).");
  const bytes = Buffer.from(b64, "base64");
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) {
    throw new SignatureInputError("invalid_webhook_secret", `A webhook secret holds ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes; this one holds ${bytes.length}.`);
  }
  return new Uint8Array(bytes);
}

/** Unix seconds of an instant, as `webhook-timestamp` carries it. */
export function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

function checkIdAndTimestamp(id: string, timestamp: number): void {
  // The signed content joins the parts with dots: an id with a dot could be shifted into the timestamp.
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw new SignatureInputError("invalid_webhook_id", "A webhook id is 1 to 200 of A-Z a-z 0-9 _ - (no dot).");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new SignatureInputError("invalid_webhook_timestamp", "A webhook timestamp is whole Unix seconds.");
}

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the secret's bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  checkIdAndTimestamp(id, timestamp);
  const mac = createHmac("sha256", secretKeyBytes(secret)).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The three Standard Webhooks headers of one attempt, signed with every secret given (newest
 * first; two while a secret is being replaced). At least one secret is needed.
 */
export function webhookHeaders(p: { id: string; timestamp: number; body: string; secrets: readonly string[] }): WebhookHeaders {
  if (!p.secrets.length) throw new SignatureInputError("invalid_webhook_secret", "A delivery needs at least one secret to sign with.");
  const signatures = [...new Set(p.secrets.map((s) => signPayload(s, p.id, p.timestamp, p.body)))];
  return { "webhook-id": p.id, "webhook-timestamp": String(p.timestamp), "webhook-signature": signatures.join(" ") };
}
