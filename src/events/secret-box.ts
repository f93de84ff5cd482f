// Webhook secrets at rest (docs/events.md#secrets-at-rest). Signing needs the secret itself, so it
// cannot be stored as a hash: it is sealed with AES-256-GCM under the server's webhook key and
// opened only to sign a delivery. The sealed text names the key it was sealed with (a short
// fingerprint), so opening it under another key is a clear error instead of a failed tag; the
// subscription's id is bound in as additional data, so a sealed secret copied to another
// subscription's row does not open there.
import { createCipheriv, createDecipheriv, createHash, randomBytes as cryptoRandomBytes } from "node:crypto";

const FORMAT = "whbox1";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SecretBoxErrorCode = "webhook_key_mismatch" | "webhook_secret_unreadable";

export class SecretBoxError extends Error {
  constructor(
    readonly code: SecretBoxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SecretBoxError";
  }
}

export interface SecretBox {
  /** The key's fingerprint: 16 hex digits, safe to log (it tells keys apart and reveals nothing of them). */
  readonly keyId: string;
  /** The sealed form of `plain`, bound to `context` (the subscription's id). A new IV each time. */
  seal(plain: string, context: string): string;
  /** The plain text back; a SecretBoxError when the key or the context is not the one it was sealed with. */
  open(sealed: string, context: string): string;
}

/** The fingerprint of a webhook key (a hash of a domain-separated label and the key). */
export function keyFingerprint(key: Uint8Array): string {
  return createHash("sha256").update("ca-ledger webhook key\0").update(key).digest("hex").slice(0, 16);
}

export function createSecretBox(key: Uint8Array, randomBytes: (n: number) => Uint8Array = cryptoRandomBytes): SecretBox {
  if (key.length !== KEY_BYTES) throw new RangeError(`a webhook key is ${KEY_BYTES} bytes; got ${key.length}`);
  const keyBytes = Buffer.from(key);
  const keyId = keyFingerprint(keyBytes);
  const aad = (context: string) => Buffer.from(`${FORMAT}.${keyId}.${context}`, "utf8");
  return {
    keyId,
    seal(plain, context) {
      const iv = Buffer.from(randomBytes(IV_BYTES));
      const cipher = createCipheriv("aes-256-gcm", keyBytes, iv);
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${FORMAT}.${keyId}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed, context) {
      const parts = sealed.split(".");
      if (parts.length !== 4 || parts[0] !== FORMAT) throw new SecretBoxError("webhook_secret_unreadable", "A stored webhook secret is not in the sealed format (whbox1.<key>.<iv>.<data>).");
      const [, sealedWith, ivText, bodyText] = parts as [string, string, string, string];
      if (sealedWith !== keyId) {
        throw new SecretBoxError(
          "webhook_key_mismatch",
          `A webhook secret was sealed with the webhook key ${sealedWith}, but this server has the key ${keyId}: set WEBHOOK_SECRET_KEY (or the key file) to the key the subscriptions were created with.`,
        );
      }
      const iv = Buffer.from(ivText, "base64url");
      const body = Buffer.from(bodyText, "base64url");
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretBoxError("webhook_secret_unreadable", "A stored webhook secret is truncated.");
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyBytes, iv);
        decipher.setAAD(aad(context));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretBoxError("webhook_secret_unreadable", "A stored webhook secret does not open: it was changed, or it belongs to another subscription.");
      }
    },
  };
}
